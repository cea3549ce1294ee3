import type { AppContext } from "../../context";
import type { DbOrTx, Sql } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { retryOnRace } from "../../db/retry";
import type { Contact, NewContact } from "../../db/schema";
import { isContactEmail, normaliseContactEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { invalidPhoneMessage, normalisePhone, toE164 } from "../../lib/phone";
import { parseInput } from "../../lib/validate";
import { apiKeyNames } from "../api/api.service";
import { assertContactsFit, type ContactsLimit, contactsLimitOf } from "../billing/billing.service";
import {
  describeOptOut,
  type OptInChannel,
  type OptOutCause,
  optOutsOf,
} from "../compliance/compliance.service";
import { displayNames } from "../user/user.service";
import {
  emitWebhookEvent,
  queueWebhookDeliveries,
  subscribedWebhookTypes,
  type WebhookEmit,
} from "../webhooks/webhooks.service";
import { phoneCountryOf } from "../workspaces/workspaces.service";
import { emitContactRows } from "./crm.contact-events";
import { fieldsToColumns, toContactJson } from "./crm.contact-json";
import { selectFileImportOf } from "./crm.imports.queries";
import { analyzeContactsJob, geocodeContactsJob } from "./crm.jobs";
import { canChangeNote, type NoteActor } from "./crm.note-access";
import { selectContactActivities, selectContactNotes } from "./crm.notes.queries";
import {
  analyzeContactStats,
  byContactEmail,
  contactWhere,
  countContactsCreatedBefore,
  deleteContactRow,
  insertContact,
  insertContactsSkippingDuplicates,
  insertContactsSkippingDuplicatesReturning,
  lockContactCreation,
  mergeSearchIndexPending,
  prunePendingSearchEntries,
  selectContact,
  selectContactIdsByEmail,
  selectContactIdsByPhone,
  selectContactIdsIn,
  selectContactIdsWhere,
  selectContactsByIds,
  setContactOptIn,
  sumContactCounts,
  updateContactRow,
} from "./crm.queries";
import {
  type ContactFields,
  type CustomFieldsInput,
  createContactSchema,
  type ListFilter,
  MAX_CUSTOM_FIELDS,
  updateContactSchema,
  withoutNullFields,
} from "./crm.schemas";
import { DEFAULT_TAG_COLOR, tagsOfContacts } from "./crm.tags";
import { selectSegment } from "./crm.tags.queries";

// Contacts: reading one or many, the detail page, create, edit, delete, and the lookups other
// features depend on (campaigns, studio, dashboard, billing). Keep names and signatures.

type Ctx = Pick<AppContext, "db" | "sql" | "jobs" | "providers" | "log" | "env">;

/** How long after a bulk write the contacts statistics are refreshed (ms): later writes join it. */
export const CONTACT_STATS_DELAY_MS = 5000;

/**
 * Queues an ANALYZE of the contacts table (crm.analyze-contacts) CONTACT_STATS_DELAY_MS from now,
 * debounced: while one waits, further calls are no-ops (a `short` queue, one waiting job), so a
 * run of 1,000-row bulk upserts costs one or two ANALYZEs, each after the writes it covers. Called
 * by every service that writes many contacts (importContactsJson, findOrCreateContacts); the CSV
 * file import refreshes them in its own follow-up job. Issue 15: without it, `GET /api/v1/contacts`
 * over 10,000 freshly upserted contacts was planned from stale statistics (27 ms instead of 0.2 ms).
 */
export async function refreshContactStatsSoon(ctx: Pick<AppContext, "jobs">): Promise<void> {
  await ctx.jobs.send(
    analyzeContactsJob,
    {},
    { singletonKey: "contacts", startAfter: new Date(Date.now() + CONTACT_STATS_DELAY_MS) },
  );
}

/**
 * What the crm.analyze-contacts and crm.index-import-search jobs do after their writes: refresh the
 * contacts' planner statistics (analyzeContactStats) and merge the search indexes' pending lists
 * (mergeSearchIndexPending). Returns the pending pages merged per index.
 */
export async function refreshContactSearchState(sql: Sql): Promise<Record<string, number>> {
  await analyzeContactStats(sql);
  return mergeSearchIndexPending(sql);
}

/**
 * The end of an import's search-index follow-up (crm.index-import-search), after its contacts were
 * rewritten as indexed: refreshContactSearchState, then the workspace's dead entries in the
 * pending-search index are marked dead (prunePendingSearchEntries), so the workspace's searches stop
 * visiting the rows' old versions without waiting for a VACUUM. Returns the pending pages merged per
 * GIN index and the contacts of the workspace still pending (0 unless another import is running).
 */
export async function settleImportSearch(
  sql: Sql,
  workspaceId: string,
): Promise<{ merged: Record<string, number>; pending: number }> {
  const merged = await refreshContactSearchState(sql);
  return { merged, pending: await prunePendingSearchEntries(sql, workspaceId) };
}

/** Contacts owned by `workspaceId`, optionally only those created before `before`. */
export async function countContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  opts: { before?: Date } = {},
): Promise<number> {
  if (!opts.before) return sumContactCounts(ctx.db, workspaceId);
  return countContactsCreatedBefore(ctx.db, workspaceId, opts.before);
}

/**
 * Runs `write`, which creates at most `adding` new contacts of `workspaceId`, so that the plan's contact
 * limit (billing contactsLimitOf, read first) holds against concurrent requests (issue 12; the audit's
 * 20 parallel creates at 95 of 100 made 114). On a plan that limits contacts: one transaction that takes
 * the workspace's contact-creation lock and counts its contacts (lockContactCreation), checks that
 * `adding` more fit (billing assertContactsFit: PAYMENT_REQUIRED before anything is written), then runs
 * `write` in it, so the next creator counts after this one committed. On an unlimited plan `write` runs
 * on the pool at once (in a transaction of its own with `opts.transaction`). With `adding` 0 nothing is
 * checked. A transaction is run again as a whole on a deadlock or serialization failure (retryOnRace),
 * so `write` must be repeatable. `write` gets the transaction (or the pool) and makes every statement on
 * it, never on another connection: the lock's waiters each hold a pooled connection, so a second one
 * might never come. `opts.lock` takes the lock on an unlimited plan too, for a `write` that must see
 * every contact created before it (findOrCreateContacts' phone-only rows, which no unique index
 * deduplicates).
 * @throws AppError PAYMENT_REQUIRED when `adding` more contacts would pass the plan's limit.
 */
export async function withinContactLimit<T>(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  adding: number,
  write: (db: DbOrTx) => Promise<T>,
  opts: { transaction?: boolean; lock?: boolean } = {},
): Promise<T> {
  const limit = adding > 0 ? await contactsLimitOf(ctx, workspaceId) : null;
  if (!limit || limit.max === null) {
    if (opts.lock)
      return retryOnRace(() =>
        ctx.db.transaction(async (tx) => {
          await lockContactCreation(tx, workspaceId);
          return write(tx);
        }),
      );
    return opts.transaction ? retryOnRace(() => ctx.db.transaction((tx) => write(tx))) : write(ctx.db);
  }
  return retryOnRace(() =>
    ctx.db.transaction(async (tx) => {
      assertContactsFit(limit, await lockContactCreation(tx, workspaceId), adding);
      return write(tx);
    }),
  );
}

/**
 * Inside a `withinContactLimit` write that holds the contact-creation lock (its transaction `tx`,
 * with `opts.lock` or on a limited plan): PAYMENT_REQUIRED unless `adding` new contacts fit `limit`
 * (billing contactsLimitOf, read before the transaction) now. For a write that learns under the lock
 * that it creates more contacts than the `adding` it was called with (addBusinessContacts matches its
 * businesses again there: a contact matched before the lock may have been deleted since, and is then
 * created). Counts on `tx`.
 * @throws AppError PAYMENT_REQUIRED with the plan's sentence.
 */
export async function assertContactsFitInLock(
  tx: DbOrTx,
  workspaceId: string,
  limit: ContactsLimit,
  adding: number,
): Promise<void> {
  if (adding <= 0 || limit.max === null) return;
  assertContactsFit(limit, await sumContactCounts(tx, workspaceId), adding);
}

function splitName(name: string | undefined | null): { first: string | null; last: string | null } {
  const parts = (name ?? "").trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { first: null, last: null };
  return { first: parts[0] ?? null, last: parts.slice(1).join(" ") || null };
}

/** A campaign list's row as findOrCreateContacts and matchContactsByAddress read its address. */
type AddressRow = { email?: string | null; phone?: string | null; mobile?: string | null };

/**
 * A campaign list row's address: its email normalised (normaliseContactEmail) when valid by the
 * contacts' one rule (lib/email isContactEmail), its phone (else its mobile) in E.164 read with
 * `country` when valid (lib/phone), else null each; and the number as typed (phoneRaw, for display).
 */
function rowAddress(
  r: AddressRow,
  country: string,
): { email: string | null; phone: string | null; phoneRaw: string | null } {
  const email = (r.email && normaliseContactEmail(r.email)) || null;
  const phone = normalisePhone(r.phone || r.mobile, country);
  return {
    email: email && isContactEmail(email) ? email : null,
    phone: phone.e164,
    phoneRaw: phone.raw,
  };
}

/**
 * True when a campaign list's row (`contacts` / `recipients.csv`) gives a usable email or a valid
 * phone number (its phone, else its mobile, read with the workspace's `country`): the rows
 * findOrCreateContacts finds or makes a contact of. A row with neither (e.g. "Bad Number, 12345")
 * gets no contact: findOrCreateContacts answers null for it, and the campaign preflight and launch
 * count it as skipped.
 */
export function hasContactAddress(row: AddressRow, country: string): boolean {
  const a = rowAddress(row, country);
  return !!(a.email || a.phone);
}

/**
 * The contacts of `workspaceId` holding each of `numbers` (E.164) as their phone or their mobile:
 * number -> contact id, the oldest contact whose phone it is, else the oldest whose mobile it is.
 */
async function contactIdsByNumber(
  db: DbOrTx,
  workspaceId: string,
  numbers: string[],
): Promise<Map<string, number>> {
  const found: { id: number; phone: string | null; mobile: string | null }[] = [];
  for (let i = 0; i < numbers.length; i += 5000)
    found.push(...(await selectContactIdsByPhone(db, workspaceId, numbers.slice(i, i + 5000))));
  const out = new Map<string, number>();
  for (const f of found) if (f.phone && !out.has(f.phone)) out.set(f.phone, f.id);
  for (const f of found) if (f.mobile && !out.has(f.mobile)) out.set(f.mobile, f.id);
  return out;
}

type FindOrCreateCtx = Pick<AppContext, "db" | "jobs"> & { log?: Pick<AppContext["log"], "warn"> };

/** A campaign list's row as findOrCreateContacts takes it (mobile: used when `phone` is empty). */
type ContactListRow = {
  first_name?: string | null;
  last_name?: string | null;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  mobile?: string | null;
  company?: string | null;
};

/**
 * The fields findOrCreateContacts gives the contact it creates for a campaign list's row: the
 * address (rowAddress: normalised email, E.164 phone read with `country`, the number as typed), the
 * first and last name (`first_name` / `last_name`, else `name` split at its first space) and the
 * company, each null when empty. The campaign preflight previews a new row's merge tags with them,
 * so the preview is the contact the launch will make.
 */
export function contactFieldsOfListRow(
  r: ContactListRow,
  country: string,
): Pick<Contact, "email" | "phone" | "phoneRaw" | "firstName" | "lastName" | "company"> {
  const split = splitName(r.name);
  return {
    ...rowAddress(r, country),
    firstName: r.first_name?.trim() || split.first,
    lastName: r.last_name?.trim() || (r.first_name ? null : split.last),
    company: r.company?.trim() || null,
  };
}

/**
 * Returns one contact id per input row, in input order: an existing contact of `workspaceId` matched by
 * email (case-insensitive, in Unicode NFC: lib/email normaliseContactEmail, the form emails are
 * stored in), else by E.164 number (libphonenumber-js, the workspace's phone country) against the
 * contacts' phone or mobile; missing ones are created. A row with neither a usable email nor a valid
 * phone number (hasContactAddress false) creates no contact: with `opts.skipUnaddressable` its id is
 * null (the campaign launch counts it as skipped), else the call is refused before any write. Used
 * for campaign CSV recipients. Rows repeating an email or phone map to the same id, across concurrent calls
 * too (emails by the unique index, phone-only rows under the workspace's contact-creation lock). Creating any queues
 * a statistics refresh (refreshContactStatsSoon) and emits `contact.created` per created contact
 * when an endpoint listens (one select of the workspace's endpoints, only when creating): stored in
 * the inserts' transaction (the webhooks outbox), queued after its commit. A contact created for an
 * opted-out email (compliance optOutsOf) starts with `email_opt_in` false. The contacts created
 * record `opts.by` (who launched the campaign: contacts.created_by, or the API key:
 * created_by_api_key_id), the contact page's "Added by"; matched contacts keep theirs.
 * @throws AppError PAYMENT_REQUIRED when the new contacts would pass the plan's contact limit;
 * BAD_REQUEST 'Row N has no valid email or phone number' without `opts.skipUnaddressable`.
 */
export async function findOrCreateContacts(
  ctx: FindOrCreateCtx,
  workspaceId: string,
  rows: ContactListRow[],
): Promise<number[]>;
export async function findOrCreateContacts(
  ctx: FindOrCreateCtx,
  workspaceId: string,
  rows: ContactListRow[],
  opts: { skipUnaddressable: true; by?: AddedBy },
): Promise<(number | null)[]>;
export async function findOrCreateContacts(
  ctx: FindOrCreateCtx,
  workspaceId: string,
  rows: ContactListRow[],
  opts: { skipUnaddressable?: boolean; by?: AddedBy } = {},
): Promise<(number | null)[]> {
  const country = await phoneCountryOf(ctx, workspaceId);
  const norm = rows.map((r) => contactFieldsOfListRow(r, country));
  if (!opts.skipUnaddressable) {
    const bad = norm.findIndex((n) => !n.email && !n.phone);
    if (bad >= 0) throw new AppError("BAD_REQUEST", `Row ${bad + 1} has no valid email or phone number`);
  }
  const byEmail = new Map<string, number>();
  const byPhone = new Map<string, number>();
  const lookup = async () => {
    const emails = [...new Set(norm.map((n) => n.email).filter((e): e is string => !!e))];
    const phones = [...new Set(norm.map((n) => n.phone).filter((p): p is string => !!p))];
    for (let i = 0; i < emails.length; i += 5000)
      for (const f of await selectContactIdsByEmail(ctx.db, workspaceId, emails.slice(i, i + 5000)))
        byEmail.set(f.email, f.id);
    for (const [phone, id] of await contactIdsByNumber(ctx.db, workspaceId, phones))
      if (!byPhone.has(phone)) byPhone.set(phone, id);
  };
  const resolve = (n: (typeof norm)[number]) =>
    (n.email ? byEmail.get(n.email) : undefined) ?? (!n.email && n.phone ? byPhone.get(n.phone) : undefined);
  await lookup();
  const toCreate: NewContact[] = [];
  const seen = new Set<string>();
  for (const n of norm) {
    // a row with no usable address makes no contact (null below)
    const key = n.email ? `e:${n.email}` : n.phone ? `p:${n.phone}` : null;
    if (!key || resolve(n) !== undefined || seen.has(key)) continue;
    seen.add(key);
    toCreate.push({
      workspaceId,
      email: n.email,
      phone: n.phone,
      phoneRaw: n.phoneRaw,
      firstName: n.firstName,
      lastName: n.lastName,
      company: n.company,
      leadSource: "campaign",
      createdBy: opts.by?.userId ?? null,
      createdByApiKeyId: opts.by?.apiKeyId ?? null,
    });
  }
  // an opted-out address (the suppression list) starts with its email opt-in off, not the default on
  const emailed = toCreate.filter((c) => c.email);
  if (emailed.length) {
    const found = await optOutsOf(
      ctx.db,
      workspaceId,
      emailed.map((c) => ({ email: c.email })),
      ["email"],
    );
    emailed.forEach((c, i) => {
      if (found[i]?.email) c.emailOptIn = false;
    });
  }
  // contact.created (issue 15) for the contacts created here, when an endpoint listens: only then
  // do the inserts return the rows
  const listens =
    toCreate.length > 0 &&
    (await subscribedWebhookTypes(ctx, workspaceId, ["contact.created"])).has("contact.created");
  // rows with an email in CONTACT_LOCK_ORDER: an insert meeting another's same emails waits, not deadlocks
  const keyed = toCreate.sort((a, b) =>
    a.email && b.email ? byContactEmail(a.email, b.email) : a.email ? -1 : b.email ? 1 : 0,
  );
  // the plan's contact limit (issue 12), checked under the workspace's contact-creation lock and
  // held to the inserts' commit: refuse before creating any
  // rows keyed by phone alone: no unique index stops a concurrent call creating the same phone, so
  // they are created under the workspace's contact-creation lock, after reading the numbers again
  const phoneOnly = keyed.filter((c) => !c.email).map((c) => c.phone as string);
  const emitted = await withinContactLimit(
    ctx,
    workspaceId,
    toCreate.length,
    async (db) => {
      const createdRows: Contact[] = [];
      let rows = keyed;
      if (phoneOnly.length) {
        const taken = await contactIdsByNumber(db, workspaceId, phoneOnly);
        if (taken.size) rows = keyed.filter((c) => c.email || !taken.has(c.phone as string));
      }
      for (let i = 0; i < rows.length; i += 2000)
        if (listens)
          createdRows.push(...(await insertContactsSkippingDuplicatesReturning(db, rows.slice(i, i + 2000))));
        else await insertContactsSkippingDuplicates(db, rows.slice(i, i + 2000));
      // contact.created in the inserts' transaction (the webhooks outbox), queued after its commit
      return emitContactRows({ db, log: ctx.log }, workspaceId, "contact.created", createdRows);
    },
    // a transaction whenever events are stored: the contacts and their events commit together
    { lock: phoneOnly.length > 0, transaction: listens },
  );
  await queueWebhookDeliveries(ctx, emitted);
  if (keyed.length) await lookup();
  if (toCreate.length) await refreshContactStatsSoon(ctx);
  return norm.map((n) => {
    if (!n.email && !n.phone) return null;
    const id = resolve(n);
    if (id === undefined) throw new AppError("INTERNAL", "Could not create a contact");
    return id;
  });
}

/**
 * Contact ids of `workspaceId` addressed by a campaign target: explicit `contactIds` (unknown or foreign
 * ids are ignored), a saved segment (`segmentId`, NOT_FOUND 'List not found' when not the user's),
 * and/or an ad-hoc `filter` (with `reachable`, only the contacts that channel reaches: a campaign
 * picker's "select all N matching"); the union, ascending.
 */
export async function resolveTargetContactIds(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  target: { contactIds?: number[]; segmentId?: number; filter?: ListFilter },
): Promise<number[]> {
  const ids = new Set<number>();
  if (target.contactIds?.length) {
    const unique = [...new Set(target.contactIds.filter((n) => Number.isSafeInteger(n) && n > 0))];
    for (let i = 0; i < unique.length; i += 10_000)
      for (const id of await selectContactIdsIn(ctx.db, workspaceId, unique.slice(i, i + 10_000)))
        ids.add(id);
  }
  const filters: ListFilter[] = [];
  if (target.segmentId !== undefined) {
    const seg = await selectSegment(ctx.db, workspaceId, target.segmentId);
    if (!seg) throw new AppError("NOT_FOUND", "List not found");
    filters.push(seg.filter);
  }
  if (target.filter) filters.push(target.filter);
  for (const f of filters)
    for (const id of await selectContactIdsWhere(ctx.db, contactWhere(workspaceId, f))) ids.add(id);
  return [...ids].sort((a, b) => a - b);
}

/** Contact rows of `workspaceId` with the given ids (others' and unknown ids are left out), by id. */
export async function getContactsByIds(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  ids: number[],
): Promise<Contact[]> {
  const unique = [...new Set(ids.filter((n) => Number.isSafeInteger(n) && n > 0))];
  const out: Contact[] = [];
  for (let i = 0; i < unique.length; i += 10_000)
    out.push(...(await selectContactsByIds(ctx.db, workspaceId, unique.slice(i, i + 10_000))));
  return out.sort((a, b) => a.id - b.id);
}

/** One contact of `workspaceId`. @throws AppError NOT_FOUND 'Contact not found' (also for another user's id). */
export async function getContact(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  id: number,
): Promise<Contact> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("NOT_FOUND", "Contact not found");
  const row = await selectContact(ctx.db, workspaceId, id);
  if (!row) throw new AppError("NOT_FOUND", "Contact not found");
  return row;
}

/**
 * GET /api/contacts/{id}: the contact with its tags, the 200 latest activities and all notes
 * (newest first). Each note is `{id, note_text, created_at, author_name}`: `author_name` is the name
 * of the person who wrote it (notes.created_by, as user.service displayNames gives it: the name, else
 * the email, else 'A former member'; kept after they leave the workspace, as a CRM keeps a
 * former colleague's notes signed), null when nobody is recorded (notes written before it was kept,
 * through the public API, or by an account since deleted). `added_by_name`: who added the contact by
 * hand, imported it as JSON or launched the campaign whose list created it (contacts.created_by), or
 * imported the CSV file it came from (contact_imports.created_by), by displayNames too, null when not
 * known (older contacts, the public API, a deleted account). `added_by_api_key_name` and each note's `author_api_key_name`: the name
 * of the API key it was added through (contacts / notes created_by_api_key_id; api.service
 * apiKeyNames, a revoked key's too), null otherwise. Each activity's `created_by_name`: the person
 * who did it by hand (activities.created_by: a send from the contact's page, a note written, edited
 * or deleted; displayNames), null for the rest (campaign sends, replies, opens) and older rows.
 * Each note also says what `viewer` may do with it, `can_edit` and `can_delete` (crm.note-access
 * canChangeNote: its author, or an owner or admin), which the page's Edit and Delete follow.
 * @throws NOT_FOUND 'Contact not found'.
 */
export async function getContactDetail(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  id: number,
  viewer: NoteActor,
) {
  const c = await getContact(ctx, workspaceId, id);
  const [tagRows, acts, noteRows, fromFile] = await Promise.all([
    tagsOfContacts(ctx, workspaceId, [c.id]),
    selectContactActivities(ctx.db, workspaceId, c.id, 200),
    selectContactNotes(ctx.db, workspaceId, c.id),
    c.importId ? selectFileImportOf(ctx.db, workspaceId, c.importId) : Promise.resolve(undefined),
  ]);
  // who added it: by hand (contacts.created_by), else who imported its file; or the API key it came through
  const addedBy = c.createdBy ?? fromFile?.createdBy ?? null;
  const [names, keyNames] = await Promise.all([
    displayNames(ctx, [...noteRows.map((n) => n.createdBy), ...acts.map((a) => a.createdBy), addedBy]),
    apiKeyNames(ctx, workspaceId, [c.createdByApiKeyId, ...noteRows.map((n) => n.createdByApiKeyId)]),
  ]);
  const timeline = acts.map((a) => ({
    id: a.id,
    activity_type: a.activityType,
    metadata: a.metadata,
    created_at: a.createdAt.toISOString(),
    created_by_name: (a.createdBy && names.get(a.createdBy)) ?? null,
  }));
  // an imported contact's first entry: the import that created it (kept on the contact as
  // import_id; the negative id cannot collide with an activities id)
  if (c.importId && timeline.length < 200)
    timeline.push({
      id: -c.id,
      activity_type: "imported",
      metadata: { source: fromFile ? "csv_import" : "import", import_id: c.importId },
      created_at: c.createdAt.toISOString(),
      created_by_name: null,
    });
  return {
    contact: toContactJson(c),
    added_by_name: (addedBy && names.get(addedBy)) ?? null,
    added_by_api_key_name: (c.createdByApiKeyId && keyNames.get(c.createdByApiKeyId)) ?? null,
    tags: tagRows.map(({ contact_id: _c, ...t }) => ({ ...t, tag_color: t.tag_color || DEFAULT_TAG_COLOR })),
    activities: timeline,
    notes: noteRows.map((n) => ({
      id: n.id,
      note_text: n.noteText,
      created_at: n.createdAt.toISOString(),
      author_name: (n.createdBy && names.get(n.createdBy)) ?? null,
      author_api_key_name: (n.createdByApiKeyId && keyNames.get(n.createdByApiKeyId)) ?? null,
      can_edit: canChangeNote(viewer, n.createdBy),
      can_delete: canChangeNote(viewer, n.createdBy),
    })),
  };
}

/**
 * Refuses a typed phone or mobile that is not a valid number (lib/phone.ts, the one phone rule).
 * @throws AppError BAD_REQUEST with `param` naming the field (the v1 API's error `param`).
 */
function assertPhonesValid(f: Partial<ContactFields>, country: string) {
  for (const key of ["phone", "mobile"] as const) {
    const v = f[key];
    if (v && !toE164(v, country))
      throw new AppError("BAD_REQUEST", invalidPhoneMessage(key, v), { param: key });
  }
}

/** Enqueues offline geocoding for contacts with a city/state or postal code and no coordinates. */
async function queueGeocode(ctx: Ctx, workspaceId: string, contactIds?: number[]) {
  await ctx.jobs.send(
    geocodeContactsJob,
    { workspaceId, contactIds },
    contactIds ? {} : { singletonKey: `geo:${workspaceId}` },
  );
}

function needsGeocode(c: Partial<NewContact>) {
  return c.latitude == null && (!!c.postalCode || (!!c.city && !!c.state));
}

/** The sentence of a contact whose custom fields would pass MAX_CUSTOM_FIELDS. */
function tooManyCustomFields(n: number): AppError {
  return new AppError(
    "BAD_REQUEST",
    `A contact may have at most ${MAX_CUSTOM_FIELDS} custom fields; this would make ${n}. Remove some (set them to null) first.`,
    { param: "custom_fields" },
  );
}

/**
 * How many custom fields `stored` holds once `patch` is merged in (null removes a field), names
 * compared case-insensitively as the merge does (crm.queries CUSTOM_FIELDS_MERGE: `tier` replaces
 * `Tier`).
 */
export function mergedCustomFieldCount(
  stored: Record<string, unknown> | null | undefined,
  patch: CustomFieldsInput,
): number {
  const keys = new Set<string>();
  const removed = new Set(Object.keys(patch).map((k) => k.toLowerCase()));
  for (const k of Object.keys(stored ?? {})) if (!removed.has(k.toLowerCase())) keys.add(k);
  for (const [k, v] of Object.entries(patch)) if (v !== null) keys.add(k);
  return keys.size;
}

/** The contact field of each opt-in channel. */
const OPT_IN_FIELDS = { email: "email_opt_in", sms: "sms_opt_in", call: "call_opt_in" } as const;
const OPT_IN_COLUMNS = { email: "emailOptIn", sms: "smsOptIn", call: "callOptIn" } as const;

/**
 * The refusal of a request that turns on an opt-in the person opted out of: CONFLICT (409) with a
 * sentence naming the channel and how they opted out, `param` the field. The owner's own Do Not Call
 * mark is theirs to lift first (contact page); anything else only the person can undo.
 */
function optedOutError(channel: OptInChannel, cause: OptOutCause): AppError {
  const how = describeOptOut(cause.reason, cause.source);
  const param = OPT_IN_FIELDS[channel];
  if (cause.reason === "do_not_call")
    return new AppError(
      "CONFLICT",
      "This contact's number is marked Do Not Call: remove that mark on the contact page before turning call opt-in on.",
      { param, reason: cause.reason },
    );
  const what = { email: "your emails", sms: "your texts", call: "your calls" }[channel];
  const flag = { email: "email opt-in", sms: "SMS opt-in", call: "call opt-in" }[channel];
  const back =
    channel === "sms" ? " Only they can opt back in, by replying START." : " Only they can opt back in.";
  return new AppError("CONFLICT", `This person opted out of ${what} (${how}), so ${flag} stays off.${back}`, {
    param,
    reason: cause.reason,
  });
}

/**
 * The opt-in rule of a single create or edit (README "Opt-outs": only the person can re-subscribe):
 * an opt-in the request sets to true while the contact's address (email) or one of its numbers (SMS,
 * calls) is opted out (compliance optOutsOf, the send paths' rule) is refused; a new contact's email
 * opt-in, when the request does not state it, defaults to off instead of on for an opted-out email
 * (`cols.emailOptIn` set false). `after`: the contact's email and numbers as the write leaves them.
 * One lookup, only when some flag would turn on.
 * @throws AppError CONFLICT (optedOutError) naming the first such flag in `param`.
 */
async function assertOptInsAllowed(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  f: Partial<ContactFields>,
  cols: Partial<NewContact>,
  after: { email?: string | null; phone?: string | null; mobile?: string | null },
  isNew: boolean,
): Promise<void> {
  const asked = (["email", "sms", "call"] as const).filter((c) => f[OPT_IN_FIELDS[c]] === true);
  const defaultEmail = isNew && f.email_opt_in === undefined && !!after.email;
  if (asked.length === 0 && !defaultEmail) return;
  const [found = {}] = await optOutsOf(ctx.db, workspaceId, [
    { email: after.email, numbers: [after.phone, after.mobile] },
  ]);
  for (const c of asked) {
    const cause = found[c];
    if (cause) throw optedOutError(c, cause);
  }
  if (defaultEmail && found.email) cols[OPT_IN_COLUMNS.email] = false;
}

/**
 * Who added a contact or a note: the signed-in person (`userId`: the app's REST and tRPC) or the API
 * key it came through (`apiKeyId`: the public API, /api/v1; its creator is not taken for the author,
 * as HubSpot shows "Created by: <integration>"). Neither: nobody known.
 */
export interface AddedBy {
  userId?: string | null;
  apiKeyId?: string | null;
}

/**
 * POST /api/contacts. First name and email required (spec section 5); phones to E.164; optional
 * `custom_fields` (crm.schemas customFieldsSchema; null values are dropped).
 * Emits the `contact.created` webhook event. An opted-out email or number (the suppression list)
 * keeps its opt-in off: `email_opt_in` left out defaults to false for such an email
 * (assertOptInsAllowed). `by`: who adds it (the contact page's "Added by Cara Member" or "Added
 * through API key 'Zapier'"; contacts.created_by / created_by_api_key_id).
 * @throws BAD_REQUEST on invalid fields, CONFLICT 'A contact with this email already exists',
 * CONFLICT 'This person opted out of ...' (an opt-in set to true the person opted out of; `param` the
 * flag), PAYMENT_REQUIRED at the plan's contact limit.
 */
export async function createContact(
  ctx: Ctx,
  workspaceId: string,
  input: unknown,
  by: AddedBy = {},
): Promise<Contact> {
  const f = parseInput(createContactSchema, input);
  const country = await phoneCountryOf(ctx, workspaceId);
  assertPhonesValid(f, country);
  const values: NewContact = {
    ...fieldsToColumns(f, country),
    ...(f.custom_fields ? { customFields: withoutNullFields(f.custom_fields) } : {}),
    workspaceId,
    leadSource: f.lead_source || "manual",
    createdBy: by.userId ?? null,
    createdByApiKeyId: by.apiKeyId ?? null,
  };
  await assertOptInsAllowed(ctx, workspaceId, f, values, values, true);
  // the contact and its contact.created event in one transaction (the webhooks outbox): both or
  // neither; the event's delivery jobs are queued after the commit
  const insertAndEmit = async (db: DbOrTx) => {
    const row = await insertContact(db, values);
    const emitted = row
      ? await emitWebhookEvent({ db, log: ctx.log }, workspaceId, "contact.created", toContactJson(row))
      : undefined;
    return { row, emitted };
  };
  let created: Awaited<ReturnType<typeof insertAndEmit>>;
  try {
    // the plan's contact limit, checked under the workspace's contact-creation lock
    created = await withinContactLimit(ctx, workspaceId, 1, insertAndEmit, { transaction: true });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A contact with this email already exists");
    throw e;
  }
  const { row, emitted } = created;
  if (!row) throw new AppError("INTERNAL", "Failed to add contact");
  await queueWebhookDeliveries(ctx, emitted);
  if (needsGeocode(row)) await queueGeocode(ctx, workspaceId, [row.id]);
  return row;
}

/**
 * PUT /api/contacts/{id}: updates the given fields (address changes re-geocode). `custom_fields` is
 * merged into the stored ones (the given fields set, the others kept, null removes one), at most
 * MAX_CUSTOM_FIELDS after the merge (checked in the same UPDATE). Emits `contact.updated` when the
 * contact as the API gives it changed (contactChanged: not for a save of the stored values).
 * A phone or mobile sent back as stored (an import keeps an invalid number as typed) is not checked
 * again, so the form saves its other fields; a changed one must be a valid number.
 * @throws NOT_FOUND; BAD_REQUEST (an invalid new number, param phone/mobile; clearing a stored first
 * name "First name is required", param first_name; param custom_fields: over the limit); CONFLICT
 * (email taken by another contact; an opt-in set to true while the person is opted out of that channel,
 * `param` the flag: assertOptInsAllowed, nothing changed).
 */
export async function updateContact(
  ctx: Ctx,
  workspaceId: string,
  id: number,
  input: unknown,
): Promise<Contact> {
  const f = parseInput(updateContactSchema, input);
  const current = await getContact(ctx, workspaceId, id);
  if (f.custom_fields) {
    const n = mergedCustomFieldCount(current.customFields, f.custom_fields);
    if (n > MAX_CUSTOM_FIELDS) throw tooManyCustomFields(n);
  }
  // Add Contact requires a first name (spec section 5): an edit may change it but not clear it (a
  // contact stored without one, from a lead or an older import, may still be saved without one)
  if ("first_name" in f && !f.first_name && current.firstName?.trim())
    throw new AppError("BAD_REQUEST", "First name is required", { param: "first_name" });
  const country = await phoneCountryOf(ctx, workspaceId);
  // a number kept as it was typed (an import keeps an invalid one, reported, for the user to fix) and
  // sent back unchanged with the rest of the form does not block saving the other fields
  const kept = (key: "phone" | "mobile") => {
    const v = f[key]?.trim();
    const stored = key === "phone" ? [current.phoneRaw, current.phone] : [current.mobileRaw, current.mobile];
    return !!v && stored.some((s) => s != null && s.trim() === v);
  };
  assertPhonesValid(
    { phone: kept("phone") ? undefined : f.phone, mobile: kept("mobile") ? undefined : f.mobile },
    country,
  );
  const cols = fieldsToColumns(f, country);
  await assertOptInsAllowed(
    ctx,
    workspaceId,
    f,
    cols,
    {
      email: "email" in cols ? cols.email : current.email,
      phone: "phone" in cols ? cols.phone : current.phone,
      mobile: "mobile" in cols ? cols.mobile : current.mobile,
    },
    false,
  );
  const addressChanged = ["city", "state", "postalCode", "country"].some((k) => k in cols);
  if (addressChanged) {
    cols.latitude = null;
    cols.longitude = null;
    cols.geocodedAt = null;
  }
  let row: Contact | undefined;
  let emitted: WebhookEmit | undefined;
  try {
    // the update and its contact.updated event in one transaction (the webhooks outbox)
    ({ row, emitted } = await ctx.db.transaction(async (tx) => {
      const row = await updateContactRow(
        tx,
        workspaceId,
        id,
        cols,
        f.custom_fields ? { patch: f.custom_fields, maxCustomFields: MAX_CUSTOM_FIELDS } : undefined,
      );
      // a save that changed nothing (an empty PATCH, the stored values sent back) is no update: a
      // receiver's "contact updated" trigger fired for nothing
      const emitted =
        row && contactChanged(current, row)
          ? await emitWebhookEvent(
              { db: tx, log: ctx.log },
              workspaceId,
              "contact.updated",
              toContactJson(row),
            )
          : undefined;
      return { row, emitted };
    }));
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A contact with this email already exists");
    throw e;
  }
  if (!row && f.custom_fields) {
    // another request added custom fields since the check above: the merge would pass the limit
    const now = await getContact(ctx, workspaceId, id);
    throw tooManyCustomFields(mergedCustomFieldCount(now.customFields, f.custom_fields));
  }
  if (!row) throw new AppError("NOT_FOUND", "Contact not found");
  await queueWebhookDeliveries(ctx, emitted);
  if (addressChanged && needsGeocode(row)) await queueGeocode(ctx, workspaceId, [row.id]);
  return row;
}

/**
 * Whether `after` differs from `before` in any field of the contact as the API and its webhook events
 * give it (toContactJson), `updated_at` aside: the UPDATE stamps it even when no value changed.
 */
function contactChanged(before: Contact, after: Contact): boolean {
  const { updated_at: _b, ...was } = toContactJson(before);
  const { updated_at: _a, ...now } = toContactJson(after);
  return JSON.stringify(was) !== JSON.stringify(now);
}

/**
 * DELETE /api/contacts/{id} (notes, tag links and activities cascade, except the message history,
 * which stays detached from the contact for the dashboard: crm.queries deleteContactRow); emits
 * `contact.deleted`.
 * @throws NOT_FOUND 'Contact not found'.
 */
export async function deleteContact(
  ctx: Pick<AppContext, "db" | "jobs"> & { log?: Pick<AppContext["log"], "warn"> },
  workspaceId: string,
  id: number,
): Promise<void> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("NOT_FOUND", "Contact not found");
  // the delete and its contact.deleted event in one transaction (the webhooks outbox)
  const emitted = await ctx.db.transaction(async (tx) => {
    if (!(await deleteContactRow(tx, workspaceId, id))) return null;
    return emitWebhookEvent({ db: tx, log: ctx.log }, workspaceId, "contact.deleted", { id, deleted: true });
  });
  if (!emitted) throw new AppError("NOT_FOUND", "Contact not found");
  await queueWebhookDeliveries(ctx, emitted);
}

/**
 * The existing contact each row would map to in `findOrCreateContacts`, without creating any: one
 * id or null per row, in input order (matched by email, case-insensitive and in Unicode NFC as
 * findOrCreateContacts stores it; a row without a usable email by its E.164 phone, else mobile,
 * against the contacts' phone or mobile). Null also for a row findOrCreateContacts makes no contact
 * of (hasContactAddress). Used by the campaign preflight (issue 14).
 */
export async function matchContactsByAddress(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  rows: AddressRow[],
): Promise<(number | null)[]> {
  const country = await phoneCountryOf(ctx, workspaceId);
  const norm = rows.map((r) => rowAddress(r, country));
  const byEmail = new Map<string, number>();
  const emails = [...new Set(norm.map((n) => n.email).filter((e): e is string => !!e))];
  const phones = [...new Set(norm.filter((n) => !n.email && n.phone).map((n) => n.phone as string))];
  for (let i = 0; i < emails.length; i += 5000)
    for (const f of await selectContactIdsByEmail(ctx.db, workspaceId, emails.slice(i, i + 5000)))
      byEmail.set(f.email, f.id);
  const byPhone = await contactIdsByNumber(ctx.db, workspaceId, phones);
  return norm.map(
    (n) => (n.email ? byEmail.get(n.email) : n.phone ? byPhone.get(n.phone) : undefined) ?? null,
  );
}

/**
 * Records on the contact that they opted out of `channel` (an unsubscribe, a STOP reply, a spam
 * complaint; `optedIn` false) or back in (a START reply; `optedIn` true): email -> email_opt_in,
 * sms -> sms_opt_in, voice / voicemail -> call_opt_in, so the CRM, the API and the export show it.
 * The suppression list, not this flag, is what keeps an opted-out person from being messaged: a later
 * edit of the flag (UI, import, API) does not re-subscribe them. A contact that no longer exists is ignored.
 * `ctx.db` may be the transaction of the change that caused it (campaigns applyRecipientEvent).
 * Returns the flag's value before the change (an opt-out records it on its `opted_out` activity as
 * `opt_in_before`, so a START can put back what the STOP took: crm recordSmsStart), null when the
 * contact does not exist.
 */
export async function recordContactOptIn(
  ctx: { db: DbOrTx },
  workspaceId: string,
  contactId: number,
  channel: "email" | "sms" | "voice" | "voicemail",
  optedIn: boolean,
): Promise<boolean | null> {
  const flag = channel === "email" ? "emailOptIn" : channel === "sms" ? "smsOptIn" : "callOptIn";
  return setContactOptIn(ctx.db, workspaceId, contactId, flag, optedIn);
}
