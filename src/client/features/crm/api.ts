import type { QueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type ContactNameFields, displayNameOf } from "@/server/features/crm/contact-name";
import type { AppRouter } from "@/server/trpc/router";

/** Lifecycle stages and lead statuses (spec section 4). */
export const LIFECYCLE_STAGES = ["subscriber", "lead", "prospect", "customer", "advocate"] as const;
export const LEAD_STATUSES = ["new", "contacted", "qualified", "unqualified"] as const;
export type LifecycleStage = (typeof LIFECYCLE_STAGES)[number];
export type LeadStatus = (typeof LEAD_STATUSES)[number];

type CrmOut = inferRouterOutputs<AppRouter>["crm"];
/** A contact (spec section 3: Contact), as the server's toContactJson shapes it (tRPC `crm.get`). */
export type Contact = CrmOut["get"]["contact"];
/** A contact of the list page, with its tags (tRPC `crm.list`). */
export type ListedContact = CrmOut["list"]["contacts"][number];
export type ContactTag = CrmOut["get"]["tags"][number];
export type Tag = CrmOut["tags"][number];
/** A tag as `crm.createTag` returns it. */
export type CreatedTag = CrmOut["createTag"];
export type Activity = CrmOut["get"]["activities"][number];
export type Note = CrmOut["get"]["notes"][number];
/** A saved segment ("list") with its current size (tRPC `crm.lists`). */
export type Segment = CrmOut["lists"][number];

/** The contacts list's filter as the URL and the server take it (`tag` is a tag id). */
export interface ContactFilter {
  search?: string;
  stage?: string;
  status?: string;
  tag?: number;
  page?: number;
  limit?: number;
}

/** An import's progress (tRPC `crm.importStatus`; the CSV upload answers `{import}` of the same shape). */
export type ImportProgress = CrmOut["importStatus"];

/** Query string of a contact filter (empty values left out). */
export function filterQuery(f: ContactFilter): string {
  const p = new URLSearchParams();
  if (f.search) p.set("search", f.search);
  if (f.stage) p.set("stage", f.stage);
  if (f.status) p.set("status", f.status);
  if (f.tag) p.set("tag", String(f.tag));
  if (f.page && f.page > 1) p.set("page", String(f.page));
  if (f.limit) p.set("limit", String(f.limit));
  const s = p.toString();
  return s ? `?${s}` : "";
}

/**
 * Refreshes every tRPC `crm.*` query (list, detail, tags, segments, map) and the plan usage
 * (`billing.usage`: the contact count and its banners), which a finished import changes too.
 */
export function invalidateCrm(qc: QueryClient) {
  return Promise.all([
    qc.invalidateQueries({ queryKey: [["crm"]] }),
    qc.invalidateQueries({ queryKey: [["billing", "usage"]] }),
  ]);
}

/**
 * The server's display-name rule (crm/contact-name displayNameOf: "First Last", else the company, a
 * business saved from lead search having no person's name, else the email), else "Unnamed contact".
 * ContactNameText shows it with a building icon when it is the company (contact-name namedByCompany).
 */
export function contactName(c: ContactNameFields): string {
  return displayNameOf(c) ?? "Unnamed contact";
}

/**
 * Badge classes per lifecycle stage (missing shows as lead, spec section 4): the stage's hue as a 15%
 * tint with its -700/-800 shade as text in light themes and its -300 shade in dark themes (`dark:`
 * follows the theme, styles.css), each 4.5:1 or more on the tint over every theme's background and
 * card. Customer takes emerald-800: emerald-700 on its tint was 4.44-4.49:1 in half the light themes.
 */
export const STAGE_BADGE: Record<LifecycleStage, string> = {
  subscriber: "bg-slate-500/15 text-slate-700 dark:text-slate-300",
  lead: "bg-blue-500/15 text-blue-700 dark:text-blue-300",
  prospect: "bg-amber-500/15 text-amber-800 dark:text-amber-300",
  customer: "bg-emerald-500/15 text-emerald-800 dark:text-emerald-300",
  advocate: "bg-purple-500/15 text-purple-700 dark:text-purple-300",
};
