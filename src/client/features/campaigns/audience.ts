import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
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
  /** contacts ticked in the CRM picker (source "crm"), by id */
  picked: Map<number, ListedContact>;
  /** "select all N matching": the picker's filter, its count and the unticked contacts (source "crm") */
  pickAll: PickAll | null;
  /** source "saved" */
  savedKind: SavedKind;
  savedValue: string;
}

export const emptyAudience = (source: AudienceSource = "csv"): AudienceState => ({
  source,
  csvRows: [],
  csvFileName: "",
  picked: new Map(),
  pickAll: null,
  savedKind: "segment",
  savedValue: "",
});

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
    const c = a.picked.values().next().value;
    if (c) return { ...c, name: [c.first_name, c.last_name].filter(Boolean).join(" ") };
  }
  return null;
}

/**
 * The recipient the review step previews merge tags for: the first one the client knows
 * (firstKnownRecipient), else the preflight's `sample` (a segment, tag or filter audience: the
 * server's first recipient), with `name` as the merge tags read it; null when neither is known.
 */
export function previewRecipient(
  a: AudienceState,
  preflight: PreflightResult | undefined,
): Record<string, unknown> | null {
  const known = firstKnownRecipient(a);
  if (known) return known;
  const s = preflight?.sample;
  return s ? { ...s, name: [s.first_name, s.last_name].filter(Boolean).join(" ") } : null;
}

/** "3 not opted in to SMS, 1 no valid phone number" (largest first). */
export function describeSkipped(skipped: Record<string, number>): string {
  return Object.entries(skipped)
    .sort((x, y) => y[1] - x[1])
    .map(([reason, n]) => `${n.toLocaleString("en-US")} ${reason}`)
    .join(", ");
}
