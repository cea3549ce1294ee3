import Papa from "papaparse";
import type { AppContext } from "../../context";
import type { Contact } from "../../db/schema";
import { CSV_FORMULA_ESCAPE } from "../../lib/csv";
import { toContactJson } from "./crm.contact-json";

import { contactOrder, contactWhere, selectContactsBeforeCursor } from "./crm.queries";

import type { ListContactsInput } from "./crm.schemas";
import { shownListFilter } from "./crm.search";
import { tagsOfContacts } from "./crm.tags";

// The contacts CSV export.

/** Columns of the contacts CSV export, in order. */
export const EXPORT_COLUMNS = [
  "id",
  "first_name",
  "last_name",
  "email",
  "phone",
  "mobile",
  "company",
  "job_title",
  "website",
  "street_address",
  "city",
  "state",
  "postal_code",
  "country",
  "lifecycle_stage",
  "lead_status",
  "lead_source",
  "lead_score",
  "engagement_score",
  "email_opt_in",
  "sms_opt_in",
  "call_opt_in",
  "preferred_language",
  "timezone",
  "linkedin_url",
  "twitter_handle",
  "facebook_url",
  "instagram_handle",
  "latitude",
  "longitude",
  "tags",
  "created_at",
] as const;

/**
 * Streams the user's contacts matching the list filter (search, stage, status, tag) as CSV lines (the
 * contacts the list shows: a search term matching nothing is corrected as the list does, crm.search
 * shownListFilter),
 * 2,000 rows per query (keyset on the list's unique (created_at, id) order, newest first), every cell formula-safe (OWASP CSV injection).
 */
export async function* exportContactsCsv(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: ListContactsInput,
) {
  // the list's filter, with a search term's typos corrected when the list corrects them
  const filter = await shownListFilter(ctx, workspaceId, input);
  yield `\uFEFF${Papa.unparse([EXPORT_COLUMNS as unknown as string[]])}\r\n`;
  // keyset on (created_at, id), the list's order: created_at travels as Postgres text (a JS Date
  // drops its microseconds and skipped rows sharing an import's time), the id breaks ties
  let before: { createdAt: string; id: number } | undefined;
  for (;;) {
    const page = await selectContactsBeforeCursor(
      ctx.db,
      contactWhere(workspaceId, filter),
      contactOrder(filter),
      2000,
      before,
    );
    const rows: Contact[] = page.map((r) => r.c);
    if (rows.length === 0) break;
    const tagRows = await tagsOfContacts(
      ctx,
      workspaceId,
      rows.map((r) => r.id),
    );
    const tagsBy = new Map<number, string[]>();
    for (const t of tagRows) tagsBy.set(t.contact_id, [...(tagsBy.get(t.contact_id) ?? []), t.tag_name]);
    const data = rows.map((r) => {
      const j = toContactJson(r) as Record<string, unknown>;
      j.tags = (tagsBy.get(r.id) ?? []).join("; ");
      return EXPORT_COLUMNS.map((c) => j[c]);
    });
    yield `${Papa.unparse(data, { newline: "\r\n", escapeFormulae: CSV_FORMULA_ESCAPE })}\r\n`;
    const last = page[page.length - 1] as { c: Contact; ts: string };
    before = { createdAt: last.ts, id: last.c.id };
    if (rows.length < 2000) break;
  }
}
