import Papa from "papaparse";
import { z } from "zod";
import type { AppContext } from "../../context";
import { CSV_FORMULA_ESCAPE } from "../../lib/csv";
import { normaliseContactEmail } from "../../lib/email";
import { parseInput } from "../../lib/validate";
import {
  listSuppressions,
  SUPPRESSION_CHANNELS,
  type SuppressionListEntry,
} from "../compliance/compliance.service";
import { contactDisplayName } from "./crm.contact-json";
import { normaliseSearch, selectAddressesOfContactsNamed, selectContactsByAddresses } from "./crm.queries";

/**
 * How many contacts a search's name match brings in (their addresses and numbers join the list's
 * search): past it the screen says the name matches too many contacts to list all their opt-outs.
 */
export const OPT_OUT_NAME_MATCH_CAP = 5000;

// The workspace's Opt-outs screen (Contacts > Opt-outs): the suppression list (compliance) with the
// contact each address or number belongs to. Read only: only the person can opt back in.

/**
 * The Opt-outs screen's query (tRPC crm.optOutList; GET /api/contacts/opt-outs.csv without page and
 * limit). Closed: an unknown key is a 400 naming it. `search` up to 200 characters, `channel` one of
 * email, sms, voice (calls and voicemail), voicemail, all; `page` from 1, `limit` 1-100 (default 25).
 */
export const optOutListSchema = z.strictObject({
  search: z.string().max(200, "Search is at most 200 characters").optional(),
  channel: z
    .enum(SUPPRESSION_CHANNELS, { error: `must be one of ${SUPPRESSION_CHANNELS.join(", ")}` })
    .optional(),
  page: z.number().int().min(1).max(100_000).optional(),
  limit: z.number().int().min(1).max(100).optional(),
});

/** A listed suppression and the contact holding its address or number (null when none does). */
export interface OptOutListEntry extends SuppressionListEntry {
  contact: { id: number; name: string } | null;
}

/** The name a contact is listed under: contactDisplayName (name, company, email), else "Contact #id". */
function nameOf(c: {
  id: number;
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  email: string | null;
}) {
  return contactDisplayName(c) ?? `Contact #${c.id}`;
}

/** `entries` with the contact each belongs to (its email, or its phone or mobile; the oldest such contact). */
async function withContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  entries: SuppressionListEntry[],
): Promise<OptOutListEntry[]> {
  const emails = [
    ...new Set(entries.filter((e) => e.value.includes("@")).map((e) => normaliseContactEmail(e.value))),
  ];
  const phones = [...new Set(entries.filter((e) => !e.value.includes("@")).map((e) => e.value.trim()))];
  const found = await selectContactsByAddresses(ctx.db, workspaceId, emails, phones);
  const byEmail = new Map<string, { id: number; name: string }>();
  const byPhone = new Map<string, { id: number; name: string }>();
  for (const c of found) {
    const link = { id: c.id, name: nameOf(c) };
    if (c.email && !byEmail.has(normaliseContactEmail(c.email)))
      byEmail.set(normaliseContactEmail(c.email), link);
    for (const p of [c.phone, c.mobile]) if (p && !byPhone.has(p)) byPhone.set(p, link);
  }
  return entries.map((e) => ({
    ...e,
    contact:
      (e.value.includes("@") ? byEmail.get(normaliseContactEmail(e.value)) : byPhone.get(e.value.trim())) ??
      null,
  }));
}

/**
 * The search's matches among the workspace's contact names: the addresses and numbers of up to
 * OPT_OUT_NAME_MATCH_CAP contacts whose name contains it (accents and case ignored), for
 * listSuppressions' `alsoMatching`; `capped` when more contacts match. Nothing without a search.
 */
async function namedAddresses(ctx: Pick<AppContext, "db">, workspaceId: string, search: string | undefined) {
  const term = normaliseSearch(search);
  if (!term) return { values: [], capped: false };
  const found = await selectAddressesOfContactsNamed(ctx.db, workspaceId, term, OPT_OUT_NAME_MATCH_CAP);
  return { values: [...found.emails, ...found.phones], capped: found.capped };
}

/**
 * A page of the workspace's Opt-outs (compliance listSuppressions, newest first) with each entry's
 * contact (`{id, name}` or null). A search also finds the opt-outs of the contacts it names (their
 * email, phone or mobile; up to OPT_OUT_NAME_MATCH_CAP contacts: `name_match_cap` is that number when
 * more matched, else null). Returns `{entries, total, page, limit, name_match_cap}`. Only the workspace's own
 * suppressions; there is no way to remove one here (README "Opt-outs": only the person can opt back in).
 * @throws AppError BAD_REQUEST on an unknown key or a value out of range (optOutListSchema).
 */
export async function listOptOuts(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const q = parseInput(optOutListSchema, input ?? {});
  const page = q.page ?? 1;
  const limit = q.limit ?? 25;
  const named = await namedAddresses(ctx, workspaceId, q.search);
  const { entries, total } = await listSuppressions(ctx.db, workspaceId, {
    channel: q.channel,
    search: q.search,
    alsoMatching: named.values,
    page,
    limit,
  });
  return {
    entries: await withContacts(ctx, workspaceId, entries),
    total,
    page,
    limit,
    name_match_cap: named.capped ? OPT_OUT_NAME_MATCH_CAP : null,
  };
}

/** Columns of the Opt-outs CSV, in order. */
export const OPT_OUT_EXPORT_COLUMNS = [
  "channel",
  "address",
  "reason",
  "source",
  "how",
  "opted_out_at",
  "contact_id",
  "contact_name",
] as const;

/**
 * The workspace's Opt-outs as CSV lines (UTF-8 BOM, CRLF; `search` (names included) and `channel` as the screen's,
 * no paging): OPT_OUT_EXPORT_COLUMNS, newest first, 1,000 suppressions per query, every cell
 * formula-safe like the contacts export (lib/csv CSV_FORMULA_ESCAPE: "=HYPERLINK(...)" in an address
 * or a contact's name is exported as text). `opted_out_at` ISO 8601 UTC.
 * @throws AppError BAD_REQUEST on an unknown query key (page and limit included).
 */
export async function* exportOptOutsCsv(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const q = parseInput(optOutListSchema.omit({ page: true, limit: true }), input ?? {});
  yield `\uFEFF${Papa.unparse([OPT_OUT_EXPORT_COLUMNS as unknown as string[]])}\r\n`;
  const limit = 1000;
  const named = await namedAddresses(ctx, workspaceId, q.search);
  for (let page = 1; ; page++) {
    const { entries } = await listSuppressions(ctx.db, workspaceId, {
      ...q,
      alsoMatching: named.values,
      page,
      limit,
    });
    if (entries.length === 0) break;
    const rows = (await withContacts(ctx, workspaceId, entries)).map((e) => [
      e.channel,
      e.value,
      e.reason,
      e.source ?? "",
      e.how,
      e.created_at,
      e.contact?.id ?? "",
      e.contact?.name ?? "",
    ]);
    yield `${Papa.unparse(rows, { newline: "\r\n", escapeFormulae: CSV_FORMULA_ESCAPE })}\r\n`;
    if (entries.length < limit) break;
  }
}
