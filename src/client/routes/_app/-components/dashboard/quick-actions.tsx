import { Link, type LinkProps } from "@tanstack/react-router";
import {
  ArrowUpRight,
  Clapperboard,
  type LucideIcon,
  Mail,
  MessageSquare,
  Phone,
  SearchCheck,
  Settings,
  Users,
  Video,
  Voicemail,
} from "lucide-react";

interface QuickAction {
  title: string;
  description: string;
  to: NonNullable<LinkProps["to"]>;
  icon: LucideIcon;
}

const actions: QuickAction[] = [
  {
    title: "Studio",
    description: "Record, upload and edit videos and audio",
    to: "/studio",
    icon: Clapperboard,
  },
  {
    title: "Video Campaign",
    description: "Send personalised video messages",
    to: "/campaigns/video",
    icon: Video,
  },
  {
    title: "Email Campaign",
    description: "Write and launch an email campaign",
    to: "/email-campaign",
    icon: Mail,
  },
  {
    title: "SMS Campaign",
    description: "Text your contacts in bulk",
    to: "/campaigns/sms",
    icon: MessageSquare,
  },
  {
    title: "Call Campaign",
    description: "AI voice calls that read your script",
    to: "/campaigns/call",
    icon: Phone,
  },
  {
    title: "Voice Campaign",
    description: "Ringless voicemail drops",
    to: "/campaigns/voice",
    icon: Voicemail,
  },
  { title: "Contacts", description: "Manage, tag and import your contacts", to: "/contacts", icon: Users },
  {
    title: "Business Search",
    description: "Find local leads with advanced filters",
    to: "/contacts/business-search",
    icon: SearchCheck,
  },
  { title: "Settings", description: "Profile, theme and preferences", to: "/settings", icon: Settings },
];

/** Grid of shortcut cards to the main features (spec section 2, Dashboard). */
export function QuickActions() {
  return (
    <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
      {actions.map(({ title, description, to, icon: Icon }) => (
        <li key={title}>
          <Link
            to={to}
            className="group flex h-full items-center gap-4 rounded-xl border border-border bg-card p-4 shadow-xs transition-[translate,border-color,box-shadow] outline-none hover:-translate-y-0.5 hover:border-primary/40 hover:shadow-md focus-visible:ring-2 focus-visible:ring-ring"
          >
            <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-primary text-primary-foreground shadow-sm">
              <Icon className="size-5" aria-hidden />
            </span>
            <span className="min-w-0 flex-1">
              <span className="block text-sm font-semibold">{title}</span>
              <span className="block text-xs text-muted-foreground">{description}</span>
            </span>
            <ArrowUpRight
              className="size-4 shrink-0 text-muted-foreground transition-transform group-hover:translate-x-0.5 group-hover:-translate-y-0.5 group-hover:text-foreground"
              aria-hidden
            />
          </Link>
        </li>
      ))}
    </ul>
  );
}
