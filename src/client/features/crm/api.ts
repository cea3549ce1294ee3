import { queryOptions } from "@tanstack/react-query";
import { api } from "@/client/lib/api";

/** Lifecycle stages and lead statuses (spec section 4). */
export const LIFECYCLE_STAGES = ["subscriber", "lead", "prospect", "customer", "advocate"] as const;
export const LEAD_STATUSES = ["new", "contacted", "qualified", "unqualified"] as const;
export type LifecycleStage = (typeof LIFECYCLE_STAGES)[number];
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** A contact as GET /api/contacts returns it (spec section 3: Contact). */
export interface Contact {
  id: number;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  phone_e164: string | null;
  mobile: string | null;
  mobile_e164: string | null;
  company: string | null;
  job_title: string | null;
  website: string | null;
  street_address: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  lifecycle_stage: LifecycleStage | null;
  lead_status: LeadStatus | null;
  lead_source: string | null;
  lead_score: number | null;
  engagement_score: number | null;
  email_opt_in: boolean;
  sms_opt_in: boolean;
  call_opt_in: boolean;
  preferred_language: string | null;
  timezone: string | null;
  linkedin_url: string | null;
  twitter_handle: string | null;
  facebook_url: string | null;
  instagram_handle: string | null;
  latitude: number | string | null;
  longitude: number | string | null;
  created_at: string;
  updated_at: string;
}

export interface ContactTag {
  id: number;
  tag_name: string;
  tag_color: string | null;
}
export interface Tag {
  id: number;
  name: string;
  color: string;
  contact_count: number;
}
export interface Activity {
  id: number;
  activity_type: string;
  metadata: Record<string, unknown>;
  created_at: string;
}
export interface Note {
  id: number;
  note_text: string;
  created_at: string;
}
export interface Pagination {
  page: number;
  pages: number;
  total: number;
  limit: number;
  /** a search matched more than `total` contacts (the count stops at 1,000) */
  total_capped?: boolean;
}
export interface ContactFilter {
  search?: string;
  stage?: string;
  status?: string;
  page?: number;
  limit?: number;
}

export interface ImportProgress {
  id: string;
  status: "queued" | "processing" | "completed" | "failed";
  file_name: string;
  file_size: number;
  progress: number;
  rows_processed: number;
  imported: number;
  created: number;
  updated: number;
  skipped: number;
  errors: number;
  error_rows: { line: number; reason: string }[];
  failure_reason: string | null;
}

/** Query string of a contact filter (empty values left out). */
export function filterQuery(f: ContactFilter): string {
  const p = new URLSearchParams();
  if (f.search) p.set("search", f.search);
  if (f.stage) p.set("stage", f.stage);
  if (f.status) p.set("status", f.status);
  if (f.page && f.page > 1) p.set("page", String(f.page));
  if (f.limit) p.set("limit", String(f.limit));
  const s = p.toString();
  return s ? `?${s}` : "";
}

export const crmKeys = {
  all: ["crm"] as const,
  list: (f: ContactFilter) => ["crm", "contacts", f] as const,
  detail: (id: number) => ["crm", "contact", id] as const,
  tags: ["crm", "tags"] as const,
};

export const contactsQuery = (f: ContactFilter) =>
  queryOptions({
    queryKey: crmKeys.list(f),
    queryFn: () => api.get<{ contacts: Contact[]; pagination: Pagination }>(`/api/contacts${filterQuery(f)}`),
    placeholderData: (prev) => prev,
  });

export const contactDetailQuery = (id: number) =>
  queryOptions({
    queryKey: crmKeys.detail(id),
    queryFn: () =>
      api.get<{ contact: Contact; tags: ContactTag[]; activities: Activity[]; notes: Note[] }>(
        `/api/contacts/${id}`,
      ),
    retry: false,
  });

export const tagsQuery = queryOptions({
  queryKey: crmKeys.tags,
  queryFn: () => api.get<{ tags: Tag[] }>("/api/contacts/tags/all").then((r) => r.tags),
});

/** "First Last", else the email, else "Unnamed contact". */
export function contactName(c: Pick<Contact, "first_name" | "last_name" | "email">): string {
  const n = [c.first_name, c.last_name].filter(Boolean).join(" ").trim();
  return n || c.email || "Unnamed contact";
}

/** Badge classes per lifecycle stage (missing shows as lead, spec section 4). */
export const STAGE_BADGE: Record<LifecycleStage, string> = {
  subscriber: "bg-slate-500/15 text-slate-700 dark:text-slate-300",
  lead: "bg-blue-500/15 text-blue-700 dark:text-blue-300",
  prospect: "bg-amber-500/15 text-amber-700 dark:text-amber-300",
  customer: "bg-emerald-500/15 text-emerald-700 dark:text-emerald-300",
  advocate: "bg-purple-500/15 text-purple-700 dark:text-purple-300",
};
