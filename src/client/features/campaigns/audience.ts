import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { z } from "zod";
import type { AppRouter } from "@/server/trpc/router";

type In = inferRouterInputs<AppRouter>;
type Out = inferRouterOutputs<AppRouter>;

/** A contact row of the CRM list (tRPC `crm.list`), with its tags. */
export type ListedContact = Out["crm"]["list"]["contacts"][number];
/** The CRM audience a launch accepts (server: campaigns.schemas audienceSchema). */
export type AudienceInput = NonNullable<In["campaigns"]["preflight"]["audience"]>;
export type AudienceFilterInput = NonNullable<AudienceInput["filter"]>;
/** A CSV recipient the builders send (server: campaigns.schemas recipientInput). */
export type CsvRecipient = NonNullable<NonNullable<In["campaigns"]["create"]["recipients"]>["csv"]>[number];
export type PreflightResult = Out["campaigns"]["preflight"];

/** "Select all N matching": the picker's filter, its count, and the contacts unticked since. */
export interface PickAll {
  filter: AudienceFilterInput;
  count: number;
  excludeIds: number[];
}

/** Where a builder's recipients come from (issue 14). */
export type AudienceSource = "csv" | "crm" | "saved";
/** The kinds of saved audience: a saved segment, a tag, a lifecycle stage or a lead status. */
export type SavedKind = "segment" | "tag" | "stage" | "status";

/** The audience step's state, shared by every builder. */
export interface AudienceState {
  source: AudienceSource;
  /** CSV rows (source "csv") and the file they came from */
  csvRows: CsvRecipient[];
  csvFileName: string;
  /**
   * contacts ticked in the CRM picker (source "crm"), by id; null for a contact chosen on another
   * screen (a hand-off) whose row the picker has not loaded
   */
  picked: Map<number, ListedContact | null>;
  /** "select all N matching": the picker's filter, its count and the unticked contacts (source "crm") */
  pickAll: PickAll | null;
  /** source "saved" */
  savedKind: SavedKind;
  savedValue: string;
  /** the contacts another screen sent the builder (its "Start a campaign"), as they arrived */
  handOff: AudienceHandOff | null;
}

export const emptyAudience = (source: AudienceSource = "csv"): AudienceState => ({
  source,
  csvRows: [],
  csvFileName: "",
  picked: new Map(),
  pickAll: null,
  savedKind: "segment",
  savedValue: "",
  handOff: null,
});

/** The screens that hand a builder its audience, as the audience step names them. */
export const HAND_OFF_SOURCES = { "business-search": "Business Search" } as const;

/**
 * The history state a screen's "Start a campaign" passes the builder (router `state.campaignAudience`):
 * the contacts it chose (`contactIds`, the workspace's: the server's preflight and launch refuse any
 * other as "contact not found") and how many things the owner chose there (`chosen`), so the
 * audience step can say how many arrived when some could not be added.
 */
const handOffSchema = z.object({
  from: z.enum(Object.keys(HAND_OFF_SOURCES) as [keyof typeof HAND_OFF_SOURCES]),
  contactIds: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).max(5000),
  chosen: z.number().int().min(0).max(5000),
});
export type AudienceHandOff = z.infer<typeof handOffSchema>;

declare module "@tanstack/history" {
  interface HistoryState {
    /** read through parseAudienceHandOff only (history state is whatever the entry holds) */
    campaignAudience?: unknown;
  }
}

/**
 * The audience hand-off in a history entry's state, validated: null when there is none or it is not
 * one (a hand-off is never half-read: an invalid one selects nobody). Ids are kept once each.
 */
export function parseAudienceHandOff(raw: unknown): AudienceHandOff | null {
  const r = handOffSchema.safeParse(raw);
  if (!r.success) return null;
  return { ...r.data, contactIds: [...new Set(r.data.contactIds)] };
}

/** The builder's opening audience for a hand-off: its contacts ticked in the CRM picker. */
export function audienceFromHandOff(h: AudienceHandOff): AudienceState {
  return {
    ...emptyAudience("crm"),
    picked: new Map(h.contactIds.map((id) => [id, null])),
    handOff: h,
  };
}

/**
 * The launch body's recipients part for an audience: `{contacts}` (CSV rows, the spec's form) or
 * `{audience}` (segment, tag, filter or chosen ids). Null when nothing is chosen yet.
 */
export function audienceBody(
  a: AudienceState,
):
  | { contacts: CsvRecipient[]; audience?: undefined }
  | { audience: AudienceInput; contacts?: undefined }
  | null {
  if (a.source === "csv") return a.csvRows.length ? { contacts: a.csvRows } : null;
  if (a.source === "crm") {
    if (a.pickAll) {
      const { filter, excludeIds } = a.pickAll;
      return { audience: excludeIds.length ? { filter, excludeIds } : { filter } };
    }
    return a.picked.size ? { audience: { contactIds: [...a.picked.keys()] } } : null;
  }
  if (!a.savedValue) return null;
  if (a.savedKind === "segment") return { audience: { segmentId: Number(a.savedValue) } };
  if (a.savedKind === "tag") return { audience: { tagId: Number(a.savedValue) } };
  if (a.savedKind === "stage")
    return { audience: { filter: { stage: a.savedValue as AudienceFilterInput["stage"] } } };
  return { audience: { filter: { status: a.savedValue as AudienceFilterInput["status"] } } };
}

/** The launch body's recipients in the generic `campaigns.create` shape. */
export function createRecipients(a: AudienceState): {
  recipients: { csv?: CsvRecipient[] };
  audience?: AudienceInput;
} {
  const body = audienceBody(a);
  if (!body) return { recipients: {} };
  return body.contacts ? { recipients: { csv: body.contacts } } : { recipients: {}, audience: body.audience };
}

/** What the user has chosen, in a few words ("312 contacts from the CSV", "contacts tagged VIP"). */
export function audienceChosen(a: AudienceState): boolean {
  return audienceBody(a) !== null;
}

/** The first recipient known on the client (for previews): a picked contact or the first CSV row. */
export function firstKnownRecipient(a: AudienceState): Record<string, unknown> | null {
  if (a.source === "csv" && a.csvRows[0]) {
    const r = a.csvRows[0];
    const [first, ...rest] = (r.name ?? "").trim().split(/\s+/);
    return { ...r, first_name: first ?? "", last_name: rest.join(" ") };
  }
  if (a.source === "crm" && !a.pickAll) {
    const c = [...a.picked.values()].find((x) => x !== null);
    if (c) return { ...c, name: [c.first_name, c.last_name].filter(Boolean).join(" ") };
  }
  return null;
}

/**
 * The recipient the review step previews merge tags for: once the preflight answered, its `sample`
 * (the server's first recipient with every field the send merges: a CSV row matching an existing
 * contact is sent that contact's values, not the row's; null when nobody would be sent to, which
 * previews the fallbacks); before that, the first one the client knows (firstKnownRecipient).
 */
export function previewRecipient(
  a: AudienceState,
  preflight: PreflightResult | undefined,
): Record<string, unknown> | null {
  if (preflight) return preflight.sample;
  return firstKnownRecipient(a);
}

/** "3 not opted in to SMS, 1 no valid phone number" (largest first). */
export function describeSkipped(skipped: Record<string, number>): string {
  return Object.entries(skipped)
    .sort((x, y) => y[1] - x[1])
    .map(([reason, n]) => `${n.toLocaleString("en-US")} ${reason}`)
    .join(", ");
}
