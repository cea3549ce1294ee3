import type { LinkProps } from "@tanstack/react-router";
import {
  Clapperboard,
  CreditCard,
  LayoutDashboard,
  Library,
  type LucideIcon,
  Mail,
  Map as MapIcon,
  Megaphone,
  MessageSquare,
  Phone,
  SearchCheck,
  Settings,
  Users,
  Video,
  Voicemail,
} from "lucide-react";
import { titleCase } from "@/client/lib/format";

export interface NavItem {
  label: string;
  to: NonNullable<LinkProps["to"]>;
  icon: LucideIcon;
  /** Active only on an exact path match (Dashboard); others match by path prefix. */
  exact?: boolean;
}

export interface NavSection {
  title: string;
  items: NavItem[];
}

/** Sidebar sections (spec section 2, Navigation layouts). */
export const NAV_SECTIONS: NavSection[] = [
  {
    title: "Main",
    items: [
      { label: "Dashboard", to: "/dashboard", icon: LayoutDashboard, exact: true },
      { label: "Studio", to: "/studio", icon: Clapperboard },
    ],
  },
  {
    title: "Campaigns",
    items: [
      { label: "All Campaigns", to: "/campaigns", icon: Megaphone },
      { label: "Video", to: "/campaigns/video", icon: Video },
      { label: "Email", to: "/email-campaign", icon: Mail },
      { label: "SMS", to: "/campaigns/sms", icon: MessageSquare },
      { label: "Call", to: "/campaigns/call", icon: Phone },
      { label: "Voice", to: "/campaigns/voice", icon: Voicemail },
    ],
  },
  {
    title: "Contacts",
    items: [
      { label: "All Contacts", to: "/contacts", icon: Users },
      { label: "Business Search", to: "/contacts/business-search", icon: SearchCheck },
      { label: "Map View", to: "/contacts/map", icon: MapIcon },
    ],
  },
  {
    title: "Settings",
    items: [
      { label: "Settings", to: "/settings", icon: Settings },
      { label: "Pricing", to: "/pricing", icon: CreditCard },
    ],
  },
];

const trimSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);

export interface TopNavItem {
  label: string;
  to: NonNullable<LinkProps["to"]>;
  /** the studio tab the link opens (Library is /studio?tab=library) */
  tab?: "library";
  icon: LucideIcon;
}

/** The top-bar variant's links (spec section 2, Navigation layouts); Logout follows them. */
export const TOP_NAV_ITEMS: TopNavItem[] = [
  { label: "Dashboard", to: "/dashboard", icon: LayoutDashboard },
  { label: "Studio", to: "/studio", icon: Clapperboard },
  { label: "Library", to: "/studio", tab: "library", icon: Library },
  { label: "Video Campaigns", to: "/campaigns/video", icon: Video },
  { label: "Email Campaigns", to: "/email-campaign", icon: Mail },
  { label: "Contacts", to: "/contacts", icon: Users },
  { label: "Business Search", to: "/contacts/business-search", icon: SearchCheck },
  { label: "Settings", to: "/settings", icon: Settings },
];

/**
 * The label of the one active top-bar item for a path and studio tab: Dashboard exactly, Library on
 * /studio?tab=library, else the longest path prefix (Business Search beats Contacts).
 */
export function activeTopNavLabel(pathname: string, tab: string | undefined): string | undefined {
  const path = trimSlash(pathname);
  if (path === "/studio") return tab === "library" ? "Library" : "Studio";
  let best: TopNavItem | undefined;
  for (const item of TOP_NAV_ITEMS) {
    const to = item.to as string;
    const match = to === "/dashboard" ? path === to : path === to || path.startsWith(`${to}/`);
    if (match && (!best || to.length > (best.to as string).length)) best = item;
  }
  return best?.label;
}

/**
 * The `to` of the one active item for `pathname`: Dashboard on an exact match, others by path prefix,
 * the longest prefix winning (so /contacts/map activates Map View, /contacts/42 All Contacts).
 */
export function activeNavTarget(pathname: string): string | undefined {
  const path = trimSlash(pathname);
  let best: string | undefined;
  for (const section of NAV_SECTIONS) {
    for (const item of section.items) {
      const to = item.to as string;
      const match = item.exact ? path === to : path === to || path.startsWith(`${to}/`);
      if (match && (!best || to.length > best.length)) best = to;
    }
  }
  return best;
}

export interface Crumb {
  label: string;
  /** Link target; missing for the current page and for groups without a page (Campaigns). */
  to?: string;
}

const CRUMB_LABELS: Record<string, string> = {
  "/dashboard": "Dashboard",
  "/studio": "Studio",
  "/campaigns": "Campaigns",
  "/campaigns/video": "Video Campaign",
  "/campaigns/sms": "SMS Campaign",
  "/campaigns/call": "Call Campaign",
  "/campaigns/voice": "Voice Campaign",
  "/email-campaign": "Email Campaign",
  "/contacts": "Contacts",
  "/contacts/map": "Map View",
  "/contacts/business-search": "Business Search",
  "/contacts/opt-outs": "Opt-outs",
  "/settings": "Settings",
  "/pricing": "Pricing",
};

/** Paths that sit under a group their URL does not show. */
const CRUMB_PARENTS: Record<string, string> = { "/email-campaign": "/campaigns" };
/** Crumbs that are labels only (no page of their own). */
const GROUP_ONLY = new Set(["/campaigns"]);

/**
 * A crumb's label: the page's own (CRUMB_LABELS), else "Contact Details" / "Campaign Report" for a
 * record's page (a numeric id: /contacts/<word> pages such as opt-outs are not a contact), else the
 * last segment in title case.
 */
function labelFor(path: string): string {
  const known = CRUMB_LABELS[path];
  if (known) return known;
  if (/^\/contacts\/\d+$/.test(path)) return "Contact Details";
  if (/^\/campaigns\/\d+$/.test(path)) return "Campaign Report";
  return titleCase(decodeURIComponent(path.split("/").pop() ?? ""));
}

/** Breadcrumb trail for a path, rooted at Dashboard: "/campaigns/sms" -> Dashboard > Campaigns > SMS Campaign. */
export function breadcrumbsFor(pathname: string): Crumb[] {
  const path = trimSlash(pathname);
  if (path === "/dashboard" || path === "/") return [{ label: "Dashboard" }];

  const chain: string[] = [];
  if (CRUMB_PARENTS[path]) {
    chain.push(CRUMB_PARENTS[path], path);
  } else {
    const segments = path.split("/").filter(Boolean);
    segments.forEach((_, i) => {
      chain.push(`/${segments.slice(0, i + 1).join("/")}`);
    });
  }

  const crumbs: Crumb[] = [{ label: "Dashboard", to: "/dashboard" }];
  chain.forEach((p, i) => {
    const last = i === chain.length - 1;
    crumbs.push({ label: labelFor(p), to: last || GROUP_ONLY.has(p) ? undefined : p });
  });
  return crumbs;
}
