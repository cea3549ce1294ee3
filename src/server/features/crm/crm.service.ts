import fs from "node:fs";
import { and, count, countDistinct, desc, eq, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import Papa from "papaparse";
import { z } from "zod";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import {
  activities,
  type Contact,
  type ContactImport,
  contactCounts,
  contactImports,
  contacts,
  contactTags,
  contactWords,
  type NewContact,
  notes,
  type SegmentFilter,
  segments,
  tags,
  type WorkspaceRole,
} from "../../db/schema";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { ProviderError } from "../../providers/errors";
import {
  assertContactsWithinPlan,
  contactsAllowance,
  contactsLimitReason,
  releaseUsage,
  reserveUsage,
} from "../billing/billing.service";
import { isSuppressed } from "../compliance/compliance.service";
import { emitWebhookEvent } from "../webhooks/webhooks.service";
import { assertCan } from "../workspaces/workspaces.service";
import {
  type ColumnMapping,
  decodeWithEncoding,
  IMPORT_FIELDS,
  matchHeaders,
  safeCell,
  sniffEncoding,
} from "./crm.csv";
import { importRows } from "./crm.import";
import { geocodeContactsJob, importContactsJob, importStorageKey } from "./crm.jobs";
import { normalisePhone, toE164 } from "./crm.phone";
import { contactOrder, contactWhere, normaliseSearch } from "./crm.queries";
import {
  type BulkOperationInput,
  bulkOperationSchema,
  type ContactFields,
  createContactSchema,
  createSegmentSchema,
  createTagSchema,
  importJsonSchema,
  type ListContactsInput,
  listContactsSchema,
  locationSearchSchema,
  makeCallSchema,
  noteSchema,
  sendEmailSchema,
  sendSmsSchema,
  updateContactSchema,
} from "./crm.schemas";

type Ctx = Pick<AppContext, "db" | "sql" | "jobs" | "providers" | "log" | "env">;

export const SENT_TYPES = ["email_sent", "sms_sent", "call_made", "voicemail_sent"] as const;
export const ENGAGED_TYPES = ["email_opened", "email_clicked", "sms_received", "video_viewed"] as const;
export const DEFAULT_TAG_COLOR = "#6366f1";

// ---------------------------------------------------------------------------------------------
// Functions other features depend on (dashboard, campaigns, studio). Keep names and signatures.
// ---------------------------------------------------------------------------------------------

/** Contacts owned by `workspaceId`, optionally only those created before `before`. */
export async function countContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  opts: { before?: Date } = {},
): Promise<number> {
  if (!opts.before) {
    const [row] = await ctx.db
      .select({ n: sql<string>`coalesce(sum(${contactCounts.n}), 0)` })
      .from(contactCounts)
      .where(eq(contactCounts.workspaceId, workspaceId));
    return Number(row?.n ?? 0);
  }
  const [row] = await ctx.db
    .select({ n: count() })
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), lt(contacts.createdAt, opts.before)));
  return row?.n ?? 0;
}

/**
 * Messages sent to contacts (email_sent, sms_sent, call_made, voicemail_sent activities) in [from, to),
 * and how many of those contacts engaged (opened, clicked or replied) in the same window.
 */
export async function countMessageActivity(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  from: Date,
  to: Date,
): Promise<{ sent: number; engaged: number }> {
  const window = and(
    eq(activities.workspaceId, workspaceId),
    gte(activities.createdAt, from),
    lt(activities.createdAt, to),
  );
  const [[s], [e]] = await Promise.all([
    ctx.db
      .select({ n: count() })
      .from(activities)
      .where(and(window, inArray(activities.activityType, [...SENT_TYPES]))),
    ctx.db
      .select({ n: countDistinct(activities.contactId) })
      .from(activities)
      .where(and(window, inArray(activities.activityType, [...ENGAGED_TYPES]))),
  ]);
  return { sent: s?.n ?? 0, engaged: e?.n ?? 0 };
}

/**
 * Bulk-inserts timeline activities (5,000 rows per statement). `activityType` is one of the types
 * documented on the `activities` table (email_sent, sms_sent, video_viewed, ...). The caller vouches
 * that every contactId belongs to workspaceId (campaigns and studio pass ids they resolved for that user).
 */
export async function recordActivities(
  db: DbOrTx,
  rows: {
    workspaceId: string;
    contactId: number;
    activityType: string;
    metadata?: Record<string, unknown>;
  }[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000).map((r) => ({
      u: r.workspaceId,
      c: r.contactId,
      t: r.activityType,
      m: r.metadata ?? {},
    }));
    // one jsonb parameter instead of 4 per row: no per-row query building (campaign sends' hot path)
    if (chunk.length)
      await db.execute(sql`
        insert into activities (workspace_id, contact_id, activity_type, metadata)
        select v.u, v.c, v.t, v.m
        from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as v(u uuid, c bigint, t text, m jsonb)`);
  }
}

function splitName(name: string | undefined | null): { first: string | null; last: string | null } {
  const parts = (name ?? "").trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { first: null, last: null };
  return { first: parts[0] ?? null, last: parts.slice(1).join(" ") || null };
}

/**
 * Returns one contact id per input row, in input order: an existing contact of `workspaceId` matched by
 * email (case-insensitive), else by E.164 phone (libphonenumber-js, default US); missing ones are
 * created (a row with neither a usable email nor phone always creates a new contact). Used for
 * campaign CSV recipients. Rows repeating an email or phone map to the same id.
 */
export async function findOrCreateContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  rows: {
    first_name?: string;
    last_name?: string;
    name?: string;
    email?: string;
    phone?: string;
    company?: string;
  }[],
): Promise<number[]> {
  const norm = rows.map((r) => {
    const email = r.email?.trim().toLowerCase() || null;
    const validEmail = email && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : null;
    const phone = normalisePhone(r.phone);
    const split = splitName(r.name);
    return {
      email: validEmail,
      phone: phone.e164,
      phoneRaw: phone.raw,
      firstName: r.first_name?.trim() || split.first,
      lastName: r.last_name?.trim() || (r.first_name ? null : split.last),
      company: r.company?.trim() || null,
    };
  });
  const byEmail = new Map<string, number>();
  const byPhone = new Map<string, number>();
  const lookup = async () => {
    const emails = [...new Set(norm.map((n) => n.email).filter((e): e is string => !!e))];
    const phones = [...new Set(norm.map((n) => n.phone).filter((p): p is string => !!p))];
    for (let i = 0; i < emails.length; i += 5000) {
      const found = await ctx.db
        .select({ id: contacts.id, email: sql<string>`lower(${contacts.email})` })
        .from(contacts)
        .where(
          and(
            eq(contacts.workspaceId, workspaceId),
            inArray(sql`lower(${contacts.email})`, emails.slice(i, i + 5000)),
          ),
        );
      for (const f of found) byEmail.set(f.email, f.id);
    }
    for (let i = 0; i < phones.length; i += 5000) {
      const found = await ctx.db
        .select({ id: contacts.id, phone: contacts.phone })
        .from(contacts)
        .where(and(eq(contacts.workspaceId, workspaceId), inArray(contacts.phone, phones.slice(i, i + 5000))))
        .orderBy(contacts.id);
      for (const f of found) if (f.phone && !byPhone.has(f.phone)) byPhone.set(f.phone, f.id);
    }
  };
  const resolve = (n: (typeof norm)[number]) =>
    (n.email ? byEmail.get(n.email) : undefined) ?? (!n.email && n.phone ? byPhone.get(n.phone) : undefined);
  await lookup();
  const toCreate: NewContact[] = [];
  const seen = new Set<string>();
  const anonymous: number[] = [];
  norm.forEach((n, i) => {
    if (resolve(n) !== undefined) return;
    const key = n.email ? `e:${n.email}` : n.phone ? `p:${n.phone}` : null;
    if (key) {
      if (seen.has(key)) return;
      seen.add(key);
    } else anonymous.push(i);
    toCreate.push({
      workspaceId,
      email: n.email,
      phone: n.phone,
      phoneRaw: n.phoneRaw,
      firstName: n.firstName,
      lastName: n.lastName,
      company: n.company,
      leadSource: "campaign",
    });
  });
  // the plan's contact limit (issue 12): refuse before creating any
  if (toCreate.length)
    await assertContactsWithinPlan(ctx, workspaceId, await countContacts(ctx, workspaceId), toCreate.length);
  const anonIds = new Map<number, number>();
  const keyed = toCreate.filter((c) => c.email || c.phone);
  const unkeyed = toCreate.filter((c) => !c.email && !c.phone);
  for (let i = 0; i < keyed.length; i += 2000) {
    await ctx.db
      .insert(contacts)
      .values(keyed.slice(i, i + 2000))
      .onConflictDoNothing();
  }
  if (unkeyed.length) {
    const created = await ctx.db.insert(contacts).values(unkeyed).returning({ id: contacts.id });
    anonymous.forEach((rowIdx, k) => {
      const c = created[k];
      if (c) anonIds.set(rowIdx, c.id);
    });
  }
  if (keyed.length) await lookup();
  return norm.map((n, i) => {
    const id = resolve(n) ?? anonIds.get(i);
    if (id === undefined) throw new AppError("INTERNAL", "Could not create a contact");
    return id;
  });
}

/**
 * Contact ids of `workspaceId` addressed by a campaign target: explicit `contactIds` (unknown or foreign
 * ids are ignored), a saved segment (`segmentId`, NOT_FOUND 'List not found' when not the user's),
 * and/or an ad-hoc `filter`; the union, ascending.
 */
export async function resolveTargetContactIds(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  target: { contactIds?: number[]; segmentId?: number; filter?: SegmentFilter },
): Promise<number[]> {
  const ids = new Set<number>();
  if (target.contactIds?.length) {
    const unique = [...new Set(target.contactIds.filter((n) => Number.isSafeInteger(n) && n > 0))];
    for (let i = 0; i < unique.length; i += 10_000) {
      const rows = await ctx.db
        .select({ id: contacts.id })
        .from(contacts)
        .where(and(eq(contacts.workspaceId, workspaceId), inArray(contacts.id, unique.slice(i, i + 10_000))));
      for (const r of rows) ids.add(r.id);
    }
  }
  const filters: SegmentFilter[] = [];
  if (target.segmentId !== undefined) {
    const [seg] = await ctx.db
      .select()
      .from(segments)
      .where(and(eq(segments.workspaceId, workspaceId), eq(segments.id, target.segmentId)));
    if (!seg) throw new AppError("NOT_FOUND", "List not found");
    filters.push(seg.filter);
  }
  if (target.filter) filters.push(target.filter);
  for (const f of filters) {
    const rows = await ctx.db.select({ id: contacts.id }).from(contacts).where(contactWhere(workspaceId, f));
    for (const r of rows) ids.add(r.id);
  }
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
  for (let i = 0; i < unique.length; i += 10_000) {
    out.push(
      ...(await ctx.db
        .select()
        .from(contacts)
        .where(
          and(eq(contacts.workspaceId, workspaceId), inArray(contacts.id, unique.slice(i, i + 10_000))),
        )),
    );
  }
  return out.sort((a, b) => a.id - b.id);
}

/** One contact of `workspaceId`. @throws AppError NOT_FOUND 'Contact not found' (also for another user's id). */
export async function getContact(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  id: number,
): Promise<Contact> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("NOT_FOUND", "Contact not found");
  const [row] = await ctx.db
    .select()
    .from(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id)));
  if (!row) throw new AppError("NOT_FOUND", "Contact not found");
  return row;
}

// ---------------------------------------------------------------------------------------------
// JSON shapes (spec section 3: Contact, Tag; section 7)
// ---------------------------------------------------------------------------------------------

/** A contact as the REST API returns it (snake_case, spec section 3). */
export function toContactJson(c: Contact) {
  return {
    id: c.id,
    first_name: c.firstName,
    last_name: c.lastName,
    email: c.email,
    phone: c.phoneRaw ?? c.phone,
    phone_e164: c.phone,
    mobile: c.mobileRaw ?? c.mobile,
    mobile_e164: c.mobile,
    company: c.company,
    job_title: c.jobTitle,
    website: c.website,
    street_address: c.streetAddress,
    city: c.city,
    state: c.state,
    postal_code: c.postalCode,
    country: c.country,
    lifecycle_stage: c.lifecycleStage,
    lead_status: c.leadStatus,
    lead_source: c.leadSource,
    lead_score: c.leadScore,
    engagement_score: c.engagementScore,
    email_opt_in: c.emailOptIn,
    sms_opt_in: c.smsOptIn,
    call_opt_in: c.callOptIn,
    preferred_language: c.preferredLanguage,
    timezone: c.timezone,
    linkedin_url: c.linkedinUrl,
    twitter_handle: c.twitterHandle,
    facebook_url: c.facebookUrl,
    instagram_handle: c.instagramHandle,
    latitude: c.latitude,
    longitude: c.longitude,
    custom_fields: c.customFields,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
export type ContactJson = ReturnType<typeof toContactJson>;

/** Maps validated snake_case fields to column values (phones normalised to E.164, raw kept). */
export function fieldsToColumns(f: Partial<ContactFields>): Partial<NewContact> {
  const out: Partial<NewContact> = {};
  const set = <K extends keyof NewContact>(k: K, v: NewContact[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  const blank = (v: string | null | undefined) => (v === undefined ? undefined : v ? v : null);
  set("firstName", blank(f.first_name));
  set("lastName", blank(f.last_name));
  set("email", blank(f.email));
  if (f.phone !== undefined) {
    const p = normalisePhone(f.phone);
    out.phone = p.e164;
    out.phoneRaw = p.raw;
  }
  if (f.mobile !== undefined) {
    const p = normalisePhone(f.mobile);
    out.mobile = p.e164;
    out.mobileRaw = p.raw;
  }
  set("company", blank(f.company));
  set("jobTitle", blank(f.job_title));
  set("website", blank(f.website));
  set("streetAddress", blank(f.street_address));
  set("city", blank(f.city));
  set("state", blank(f.state));
  set("postalCode", blank(f.postal_code));
  set("country", blank(f.country));
  set("lifecycleStage", f.lifecycle_stage);
  set("leadStatus", f.lead_status);
  set("leadSource", blank(f.lead_source));
  set("leadScore", f.lead_score);
  set("engagementScore", f.engagement_score);
  set("emailOptIn", f.email_opt_in);
  set("smsOptIn", f.sms_opt_in);
  set("callOptIn", f.call_opt_in);
  set("preferredLanguage", blank(f.preferred_language));
  set("timezone", blank(f.timezone));
  set("linkedinUrl", blank(f.linkedin_url));
  set("twitterHandle", blank(f.twitter_handle));
  set("facebookUrl", blank(f.facebook_url));
  set("instagramHandle", blank(f.instagram_handle));
  return out;
}

function assertPhonesValid(f: Partial<ContactFields>) {
  for (const key of ["phone", "mobile"] as const) {
    const v = f[key];
    if (v && !toE164(v)) throw new AppError("BAD_REQUEST", `${key}: '${v}' is not a valid phone number`);
  }
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string } };
  return err?.code === "23505" || err?.cause?.code === "23505";
}

// ---------------------------------------------------------------------------------------------
// Contacts list, detail, create, edit, delete
// ---------------------------------------------------------------------------------------------

/**
 * GET /api/contacts. Query: `search` (substring of name/email/company/phone; when nothing contains
 * it, the search runs once more with the term's typos corrected against the user's search
 * dictionary, see correctTerm), `stage`, `status`, `tag`, `page` (1-based), `limit` (default 50,
 * max 200). Returns `{ contacts, pagination: {page, pages, total, limit, total_capped?} }`; the
 * total without a search or tag comes from the trigger-maintained `contact_counts` (exact, O(1));
 * a search's total is exact up to SEARCH_COUNT_CAP, else a lower bound with `total_capped`.
 * `corrected` is internal (the typo-corrected second pass).
 */
export async function listContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: ListContactsInput,
  corrected = false,
): Promise<{
  contacts: ContactJson[];
  pagination: { page: number; pages: number; total: number; limit: number; total_capped?: boolean };
}> {
  const q = parseInput(listContactsSchema, input);
  const filter: SegmentFilter = {
    search: q.search,
    lifecycle_stage: q.stage || undefined,
    lead_status: q.status || undefined,
    tag_id: q.tag,
  };
  const term = normaliseSearch(q.search);
  const where = contactWhere(workspaceId, filter);
  const offset = (q.page - 1) * q.limit;
  let total: number;
  let capped = false;
  let rows: Contact[];
  if (term || q.tag) {
    // Two strategies by the planner's estimate of the matches (EXPLAIN, ~1 ms of planning):
    // - selective term: the ids of the first SEARCH_COUNT_CAP + 1 matches, newest first, in one
    //   trigram index scan give both the exact total and the page; the page's rows follow by id.
    // - broad term (counting would read tens of thousands of heap pages): walk the (workspace_id,
    //   id) index newest first and stop after one page plus one row; the total is then the
    //   exact number when this is the last page, else the lower bound offset + limit + 1 with
    //   total_capped ("51+").
    const estimate = await estimateMatches(ctx, where);
    const ids =
      estimate <= BROAD_ESTIMATE && offset + q.limit <= SEARCH_COUNT_CAP
        ? await ctx.db
            .select({ id: contacts.id })
            .from(contacts)
            .where(where)
            .orderBy(...contactOrder(filter))
            .limit(SEARCH_COUNT_CAP + 1)
        : null;
    if (ids) {
      total = Math.min(ids.length, SEARCH_COUNT_CAP);
      capped = ids.length > SEARCH_COUNT_CAP;
      const pageIds = ids.slice(offset, offset + q.limit).map((r) => r.id);
      rows = pageIds.length
        ? await ctx.db
            .select()
            .from(contacts)
            .where(and(eq(contacts.workspaceId, workspaceId), inArray(contacts.id, pageIds)))
            .orderBy(...contactOrder(filter))
        : [];
    } else {
      const r = await ctx.db
        .select()
        .from(contacts)
        .where(where)
        .orderBy(...contactOrder(filter))
        .limit(q.limit + 1)
        .offset(offset);
      const hasMore = r.length > q.limit;
      rows = hasMore ? r.slice(0, q.limit) : r;
      if (hasMore || (rows.length === 0 && offset > 0)) {
        total = offset + (hasMore ? q.limit + 1 : 0);
        capped = true;
      } else total = offset + rows.length;
    }
    // typo tolerance: nothing contains the term; search again with its words corrected against
    // the user's search dictionary ("did you mean", pg_trgm similarity), once
    if (total === 0 && offset === 0 && term.length >= 4 && !corrected) {
      const fixed = await correctTerm(ctx, workspaceId, term);
      if (fixed) return listContacts(ctx, workspaceId, { ...input, search: fixed.slice(0, 100) }, true);
    }
  } else {
    const [n, r] = await Promise.all([
      ctx.db
        .select({ n: sql<string>`coalesce(sum(${contactCounts.n}), 0)` })
        .from(contactCounts)
        .where(
          and(
            eq(contactCounts.workspaceId, workspaceId),
            filter.lifecycle_stage ? eq(contactCounts.lifecycleStage, filter.lifecycle_stage) : undefined,
            filter.lead_status ? eq(contactCounts.leadStatus, filter.lead_status) : undefined,
          ),
        ),
      ctx.db
        .select()
        .from(contacts)
        .where(where)
        .orderBy(...contactOrder(filter))
        .limit(q.limit)
        .offset(offset),
    ]);
    total = Number(n[0]?.n ?? 0);
    rows = r;
  }
  return {
    contacts: rows.map(toContactJson),
    pagination: {
      page: q.page,
      pages: Math.max(1, Math.ceil(total / q.limit)),
      total,
      limit: q.limit,
      ...(capped ? { total_capped: true } : {}),
    },
  };
}

/**
 * A cursor page of contacts for the public API (issue 15): the filter of `contactWhere`, newest
 * first (created_at desc, id desc), `limit` rows after the position `cursor` (an opaque string from a
 * previous page's `nextCursor`). Search here is the plain substring match (no typo correction), so
 * pages stay stable. Returns `{contacts, nextCursor}` (`nextCursor` null on the last page).
 * @throws AppError BAD_REQUEST 'cursor is not valid' for a cursor this function did not make.
 */
export async function listContactsPage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  filter: SegmentFilter,
  limit: number,
  cursor?: string,
): Promise<{ contacts: Contact[]; nextCursor: string | null }> {
  let after: SQL | undefined;
  if (cursor) {
    const m = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?[+-]\d\d(?::\d\d)?)\|(\d{1,15})$/.exec(
      Buffer.from(cursor, "base64url").toString("utf8"),
    );
    if (!m) throw new AppError("BAD_REQUEST", "cursor is not valid", { param: "cursor" });
    after = sql`(${contacts.createdAt}, ${contacts.id}) < (${m[1]}::timestamptz, ${Number(m[2])})`;
  }
  const rows = await ctx.db
    .select({ c: contacts, ts: sql<string>`${contacts.createdAt}::text` })
    .from(contacts)
    .where(and(contactWhere(workspaceId, filter), after))
    .orderBy(...contactOrder(filter))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    contacts: page.map((r) => r.c),
    nextCursor:
      rows.length > limit && last
        ? Buffer.from(`${last.ts}|${last.c.id}`, "utf8").toString("base64url")
        : null,
  };
}

/** Searches count exactly up to this many matches (then `pagination.total_capped`). */
export const SEARCH_COUNT_CAP = 1000;
/** Above this many matches expected by the planner, a search is not counted (lower bound instead). */
export const BROAD_ESTIMATE = 3000;

/**
 * The planner's estimate of the rows matching `where` (EXPLAIN, no execution; about a millisecond
 * of planning). The statement is sent unprepared with its values inlined, so the estimate uses the
 * actual search term's trigram statistics rather than a generic plan's default selectivity.
 */
async function estimateMatches(ctx: Pick<AppContext, "db">, where: SQL): Promise<number> {
  const query = ctx.db.select({ one: sql`1` }).from(contacts).where(where).toSQL();
  const literal = (v: unknown) => (typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  const text = query.sql.replace(/\$(\d+)/g, (_, i) => literal(query.params[Number(i) - 1]));
  const [row] = await ctx.db.$client.unsafe(`explain (format json) ${text}`, [], { prepare: false });
  const raw = (row as Record<string, unknown> | undefined)?.["QUERY PLAN"];
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as
    | [{ Plan: { "Plan Rows": number } }]
    | undefined;
  return Number(plan?.[0]?.Plan?.["Plan Rows"] ?? 0);
}
/** Smallest pg_trgm similarity (0-1) at which a dictionary word counts as the intended word. */
export const TYPO_SIMILARITY = 0.4;

/**
 * "Did you mean": corrects each word of `term` (4+ characters, with a letter) that is not a word
 * of the user's contacts to the most similar word of the user's search dictionary (`contact_words`,
 * pg_trgm similarity >= TYPO_SIMILARITY through its trigram GIN index, `%` operator at the
 * default 0.3 threshold). Returns the corrected term, or null when nothing was corrected.
 */
async function correctTerm(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  term: string,
): Promise<string | null> {
  const words = term.split(/([^\p{L}\p{N}]+)/u);
  const candidates = [...new Set(words.filter((w) => w.length >= 4 && w.length <= 40 && /\p{L}/u.test(w)))];
  if (candidates.length === 0) return null;
  const fixes = await ctx.db.execute<{ w: string; fix: string | null }>(sql`
    select t.w, (
      select ${contactWords.word} from ${contactWords}
      where ${contactWords.workspaceId} = ${workspaceId} and ${contactWords.word} % t.w
        and similarity(${contactWords.word}, t.w) >= ${TYPO_SIMILARITY}
      order by ${contactWords.word} = t.w desc, similarity(${contactWords.word}, t.w) desc, ${contactWords.word}
      limit 1
    ) as fix
    from unnest(${sql.raw("array[")}${sql.join(
      candidates.map((c) => sql`${c}`),
      sql`, `,
    )}${sql.raw("]::text[]")}) as t(w)`);
  const map = new Map(fixes.map((f) => [f.w, f.fix]));
  let changed = false;
  const out = words.map((w) => {
    const fix = map.get(w);
    if (fix && fix !== w) {
      changed = true;
      return fix;
    }
    return w;
  });
  return changed ? out.join("") : null;
}

/** Tags of the given contacts as `{contact_id, id, tag_name, tag_color}` (spec section 3: Tag on a contact). */
export async function tagsOfContacts(ctx: Pick<AppContext, "db">, workspaceId: string, contactIds: number[]) {
  if (contactIds.length === 0) return [];
  return ctx.db
    .select({ contact_id: contactTags.contactId, id: tags.id, tag_name: tags.name, tag_color: tags.color })
    .from(contactTags)
    .innerJoin(tags, eq(tags.id, contactTags.tagId))
    .where(and(eq(tags.workspaceId, workspaceId), inArray(contactTags.contactId, contactIds)))
    .orderBy(tags.name);
}

/**
 * GET /api/contacts/{id}: the contact with its tags, the 200 latest activities and all notes
 * (newest first). @throws NOT_FOUND 'Contact not found'.
 */
export async function getContactDetail(ctx: Pick<AppContext, "db">, workspaceId: string, id: number) {
  const c = await getContact(ctx, workspaceId, id);
  const [tagRows, acts, noteRows, fromFile] = await Promise.all([
    tagsOfContacts(ctx, workspaceId, [c.id]),
    ctx.db
      .select()
      .from(activities)
      .where(and(eq(activities.workspaceId, workspaceId), eq(activities.contactId, c.id)))
      .orderBy(desc(activities.createdAt), desc(activities.id))
      .limit(200),
    ctx.db
      .select()
      .from(notes)
      .where(and(eq(notes.workspaceId, workspaceId), eq(notes.contactId, c.id)))
      .orderBy(desc(notes.createdAt), desc(notes.id)),
    c.importId
      ? ctx.db
          .select({ id: contactImports.id })
          .from(contactImports)
          .where(and(eq(contactImports.workspaceId, workspaceId), eq(contactImports.id, c.importId)))
      : Promise.resolve([]),
  ]);
  const timeline = acts.map((a) => ({
    id: a.id,
    activity_type: a.activityType,
    metadata: a.metadata,
    created_at: a.createdAt.toISOString(),
  }));
  // an imported contact's first entry: the import that created it (kept on the contact as
  // import_id; the negative id cannot collide with an activities id)
  if (c.importId && timeline.length < 200)
    timeline.push({
      id: -c.id,
      activity_type: "imported",
      metadata: { source: fromFile.length ? "csv_import" : "import", import_id: c.importId },
      created_at: c.createdAt.toISOString(),
    });
  return {
    contact: toContactJson(c),
    tags: tagRows.map(({ contact_id: _c, ...t }) => ({ ...t, tag_color: t.tag_color || DEFAULT_TAG_COLOR })),
    activities: timeline,
    notes: noteRows.map((n) => ({ id: n.id, note_text: n.noteText, created_at: n.createdAt.toISOString() })),
  };
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

/**
 * POST /api/contacts. First name and email required (spec section 5); phones to E.164.
 * @throws BAD_REQUEST on invalid fields, CONFLICT 'A contact with this email already exists'.
 */
export async function createContact(ctx: Ctx, workspaceId: string, input: unknown): Promise<Contact> {
  const f = parseInput(createContactSchema, input);
  assertPhonesValid(f);
  await assertContactsWithinPlan(ctx, workspaceId, await countContacts(ctx, workspaceId), 1);
  let row: Contact | undefined;
  try {
    [row] = await ctx.db
      .insert(contacts)
      .values({ ...fieldsToColumns(f), workspaceId, leadSource: f.lead_source || "manual" })
      .returning();
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A contact with this email already exists");
    throw e;
  }
  if (!row) throw new AppError("INTERNAL", "Failed to add contact");
  if (needsGeocode(row)) await queueGeocode(ctx, workspaceId, [row.id]);
  await emitWebhookEvent(ctx, workspaceId, "contact.created", toContactJson(row));
  return row;
}

/**
 * PUT /api/contacts/{id}: updates the given fields (address changes re-geocode).
 * @throws NOT_FOUND, BAD_REQUEST, CONFLICT (email taken by another contact).
 */
export async function updateContact(
  ctx: Ctx,
  workspaceId: string,
  id: number,
  input: unknown,
): Promise<Contact> {
  const f = parseInput(updateContactSchema, input);
  await getContact(ctx, workspaceId, id);
  assertPhonesValid(f);
  const cols = fieldsToColumns(f);
  const addressChanged = ["city", "state", "postalCode", "country"].some((k) => k in cols);
  if (addressChanged) {
    cols.latitude = null;
    cols.longitude = null;
    cols.geocodedAt = null;
  }
  let row: Contact | undefined;
  try {
    [row] = await ctx.db
      .update(contacts)
      .set({ ...cols, updatedAt: new Date() })
      .where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id)))
      .returning();
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A contact with this email already exists");
    throw e;
  }
  if (!row) throw new AppError("NOT_FOUND", "Contact not found");
  if (addressChanged && needsGeocode(row)) await queueGeocode(ctx, workspaceId, [row.id]);
  await emitWebhookEvent(ctx, workspaceId, "contact.updated", toContactJson(row));
  return row;
}

/** DELETE /api/contacts/{id} (notes, activities and tag links cascade). @throws NOT_FOUND. */
export async function deleteContact(
  ctx: Pick<AppContext, "db" | "jobs">,
  workspaceId: string,
  id: number,
): Promise<void> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("NOT_FOUND", "Contact not found");
  const deleted = await ctx.db
    .delete(contacts)
    .where(and(eq(contacts.workspaceId, workspaceId), eq(contacts.id, id)))
    .returning({ id: contacts.id });
  if (deleted.length === 0) throw new AppError("NOT_FOUND", "Contact not found");
  await emitWebhookEvent(ctx, workspaceId, "contact.deleted", { id, deleted: true });
}

// ---------------------------------------------------------------------------------------------
// Bulk operations (spec section 7 "Bulk operations")
// ---------------------------------------------------------------------------------------------

/**
 * POST /api/contacts/bulk/operation over explicit `contactIds` or a whole `filter` result.
 * delete -> {deleted}; update_stage {lifecycle_stage} -> {updated}; update_status {lead_status}
 * -> {updated}; add_tag {tag_id} -> {tagged}; remove_tag {tag_id} -> {untagged}.
 * Ids that are not the workspace's are ignored. A `member` may delete at most one contact at a time
 * (issue 10 roles): deleting a filter's result or several ids needs owner or admin.
 * @throws BAD_REQUEST (missing data), NOT_FOUND 'Tag not found', FORBIDDEN (member bulk delete).
 */
export async function bulkOperation(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: BulkOperationInput,
  actor: { role: WorkspaceRole },
) {
  const b = parseInput(bulkOperationSchema, input);
  if (b.operation === "delete" && (!b.contactIds || b.contactIds.length > 1))
    assertCan(actor, "bulkDeleteContacts");
  const target: SQL = b.contactIds
    ? (and(
        eq(contacts.workspaceId, workspaceId),
        inArray(contacts.id, b.contactIds.length ? b.contactIds : [0]),
      ) as SQL)
    : contactWhere(workspaceId, b.filter);
  switch (b.operation) {
    case "delete": {
      // counted in SQL: "select all matching" can cover a million rows
      const [r] = await ctx.db.execute<{ n: number }>(
        sql`with d as (delete from ${contacts} where ${target} returning 1) select count(*)::int as n from d`,
      );
      return { deleted: Number(r?.n ?? 0) };
    }
    case "update_stage": {
      const stage = b.data?.lifecycle_stage;
      if (!stage) throw new AppError("BAD_REQUEST", "data.lifecycle_stage is required");
      const [r] = await ctx.db.execute<{ n: number }>(
        sql`with u as (update ${contacts} set lifecycle_stage = ${stage}, updated_at = now() where ${target} returning 1) select count(*)::int as n from u`,
      );
      return { updated: Number(r?.n ?? 0) };
    }
    case "update_status": {
      const status = b.data?.lead_status;
      if (!status) throw new AppError("BAD_REQUEST", "data.lead_status is required");
      const [r] = await ctx.db.execute<{ n: number }>(
        sql`with u as (update ${contacts} set lead_status = ${status}, updated_at = now() where ${target} returning 1) select count(*)::int as n from u`,
      );
      return { updated: Number(r?.n ?? 0) };
    }
    case "add_tag":
    case "remove_tag": {
      const tagId = b.data?.tag_id;
      if (!tagId) throw new AppError("BAD_REQUEST", "data.tag_id is required");
      const [tag] = await ctx.db
        .select({ id: tags.id })
        .from(tags)
        .where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, tagId)));
      if (!tag) throw new AppError("NOT_FOUND", "Tag not found");
      if (b.operation === "remove_tag") {
        const rows = await ctx.db
          .delete(contactTags)
          .where(
            and(
              eq(contactTags.tagId, tagId),
              sql`${contactTags.contactId} in (select ${contacts.id} from ${contacts} where ${target})`,
            ),
          )
          .returning({ id: contactTags.contactId });
        return { untagged: rows.length };
      }
      // one set-based statement; contacts already carrying the tag count as tagged
      const matched = await ctx.db.execute<{ n: string }>(sql`
        with target as (select ${contacts.id} as id from ${contacts} where ${target}),
        ins as (
          insert into contact_tags (contact_id, tag_id) select id, ${tagId} from target
          on conflict do nothing returning 1
        )
        select count(*)::text as n from target`);
      return { tagged: Number(matched[0]?.n ?? 0) };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Tags and lists (segments)
// ---------------------------------------------------------------------------------------------

/** GET /api/contacts/tags/all: `{id, name, color, contact_count}` by name. */
export async function listTags(ctx: Pick<AppContext, "db">, workspaceId: string) {
  const rows = await ctx.db
    .select({
      id: tags.id,
      name: tags.name,
      color: tags.color,
      contact_count: sql<number>`(select count(*)::int from contact_tags ct where ct.tag_id = ${tags.id})`,
    })
    .from(tags)
    .where(eq(tags.workspaceId, workspaceId))
    .orderBy(tags.name);
  return rows;
}

/** POST /api/contacts/tags: creates a tag. @throws CONFLICT 'A tag with this name already exists'. */
export async function createTag(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const t = parseInput(createTagSchema, input);
  try {
    const [row] = await ctx.db
      .insert(tags)
      .values({ workspaceId, name: t.name, color: t.color ?? DEFAULT_TAG_COLOR })
      .returning();
    if (!row) throw new AppError("INTERNAL", "Failed to create tag");
    return { id: row.id, name: row.name, color: row.color };
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A tag with this name already exists");
    throw e;
  }
}

/** GET /api/contacts/lists/all: saved segments `{id, name, filter, contact_count, created_at}`. */
export async function listSegments(ctx: Pick<AppContext, "db">, workspaceId: string) {
  const rows = await ctx.db
    .select()
    .from(segments)
    .where(eq(segments.workspaceId, workspaceId))
    .orderBy(segments.name);
  const out = [];
  for (const s of rows) {
    const [c] = await ctx.db.select({ n: count() }).from(contacts).where(contactWhere(workspaceId, s.filter));
    out.push({
      id: s.id,
      name: s.name,
      filter: s.filter,
      contact_count: c?.n ?? 0,
      created_at: s.createdAt.toISOString(),
    });
  }
  return out;
}

/** POST /api/contacts/lists: saves a segment (name + filter). @throws CONFLICT on a duplicate name. */
export async function createSegment(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const s = parseInput(createSegmentSchema, input);
  if (s.filter.tag_id !== undefined) {
    const [tag] = await ctx.db
      .select({ id: tags.id })
      .from(tags)
      .where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, s.filter.tag_id)));
    if (!tag) throw new AppError("NOT_FOUND", "Tag not found");
  }
  try {
    const [row] = await ctx.db
      .insert(segments)
      .values({ workspaceId, name: s.name, filter: s.filter })
      .returning();
    if (!row) throw new AppError("INTERNAL", "Failed to save list");
    return { id: row.id, name: row.name, filter: row.filter, created_at: row.createdAt.toISOString() };
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A list with this name already exists");
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Notes and messages
// ---------------------------------------------------------------------------------------------

/** POST /api/contacts/{id}/notes {note_text}: blank notes are rejected; records a note_added activity. */
export async function addNote(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  contactId: number,
  input: unknown,
  createdBy: string | null = null,
) {
  const n = parseInput(noteSchema, input);
  await getContact(ctx, workspaceId, contactId);
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(notes)
      .values({ workspaceId, contactId, noteText: n.note_text, createdBy })
      .returning();
    if (!row) throw new AppError("INTERNAL", "Failed to add note");
    await recordActivities(tx, [
      { workspaceId, contactId, activityType: "note_added", metadata: { note_id: row.id } },
    ]);
    return { id: row.id, note_text: row.noteText, created_at: row.createdAt.toISOString() };
  });
}

function providerFailure(e: unknown, what: string): never {
  if (e instanceof ProviderError) throw new AppError("BAD_GATEWAY", `${what}: ${e.message}`);
  throw e;
}

/**
 * POST /api/contacts/{id}/send-email {subject, body}: sends through the email provider, never to a
 * suppressed address (compliance suppression list) or a contact who opted out of email.
 * Records an email_sent activity. @throws BAD_REQUEST, NOT_FOUND, UNPROCESSABLE, BAD_GATEWAY.
 */
export async function sendEmailToContact(ctx: Ctx, workspaceId: string, contactId: number, input: unknown) {
  const m = parseInput(sendEmailSchema, input);
  const c = await getContact(ctx, workspaceId, contactId);
  if (!c.email) throw new AppError("UNPROCESSABLE", "This contact has no email address");
  if (await isSuppressed(ctx.db, workspaceId, "email", c.email))
    throw new AppError(
      "UNPROCESSABLE",
      "This email address is on your suppression list and cannot be emailed",
    );
  if (!c.emailOptIn) throw new AppError("UNPROCESSABLE", "This contact has opted out of email");
  // counts against the plan's monthly emails (issue 12); given back if the provider refuses it
  const reservation = await reserveUsage(ctx, workspaceId, "emails", 1);
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.email.send({
      to: c.email,
      subject: m.subject,
      text: m.body,
      workspaceId,
      stream: "transactional",
      metadata: { contact_id: String(c.id) },
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    providerFailure(e, "Failed to send email");
  }
  await recordActivities(ctx.db, [
    {
      workspaceId,
      contactId: c.id,
      activityType: "email_sent",
      metadata: { subject: m.subject, provider_message_id: result.providerMessageId },
    },
  ]);
  return { message_id: result.providerMessageId };
}

function reachableNumber(c: Contact, prefer: "mobile" | "phone"): string | null {
  const order = prefer === "mobile" ? [c.mobile, c.phone] : [c.phone, c.mobile];
  return order.find((n): n is string => !!n) ?? null;
}

/**
 * The E.164 number a single SMS (mobile first) or call (phone first) goes to.
 * @throws AppError UNPROCESSABLE when the contact has no usable number or the number is on the
 * user's suppression list for that channel.
 */
async function phoneRecipient(
  ctx: Ctx,
  workspaceId: string,
  c: Contact,
  channel: "sms" | "voice",
): Promise<string> {
  if (!c.phoneRaw && !c.mobileRaw && !c.phone && !c.mobile)
    throw new AppError("UNPROCESSABLE", "This contact has no phone number");
  const to = reachableNumber(c, channel === "sms" ? "mobile" : "phone");
  if (!to) throw new AppError("UNPROCESSABLE", "This contact's phone number is not a valid number");
  if (await isSuppressed(ctx.db, workspaceId, channel, to))
    throw new AppError(
      "UNPROCESSABLE",
      channel === "sms"
        ? "This number is on your suppression list (opted out of SMS)"
        : "This number is on your suppression list and cannot be called",
    );
  return to;
}

/**
 * POST /api/contacts/{id}/send-sms {message}: at most 160 characters (spec section 5), to the
 * mobile (else phone) in E.164; never to a number on the suppression list (STOP replies).
 * Opt-in is confirmed in the client (spec), not enforced here. Records sms_sent.
 */
export async function sendSmsToContact(ctx: Ctx, workspaceId: string, contactId: number, input: unknown) {
  const m = parseInput(sendSmsSchema, input);
  const c = await getContact(ctx, workspaceId, contactId);
  const to = await phoneRecipient(ctx, workspaceId, c, "sms");
  // counts against the plan's monthly smsMessages (issue 12); given back if the provider refuses it
  const reservation = await reserveUsage(ctx, workspaceId, "smsMessages", 1);
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.sms.send({
      to,
      body: m.message,
      workspaceId,
      metadata: { contact_id: c.id },
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    providerFailure(e, "Failed to send SMS");
  }
  await recordActivities(ctx.db, [
    {
      workspaceId,
      contactId: c.id,
      activityType: "sms_sent",
      metadata: { message: m.message, to, provider_message_id: result.providerMessageId },
    },
  ]);
  return { message_id: result.providerMessageId };
}

/**
 * POST /api/contacts/{id}/make-call {script}: an AI text-to-speech call through the voice provider
 * to the phone (else mobile), never to a number suppressed for voice. Records call_made.
 */
export async function makeCallToContact(ctx: Ctx, workspaceId: string, contactId: number, input: unknown) {
  const m = parseInput(makeCallSchema, input);
  const c = await getContact(ctx, workspaceId, contactId);
  const to = await phoneRecipient(ctx, workspaceId, c, "voice");
  // counts against the plan's monthly voiceCalls (issue 12); given back if the provider refuses it
  const reservation = await reserveUsage(ctx, workspaceId, "voiceCalls", 1);
  let result: { providerMessageId: string };
  try {
    result = await ctx.providers.voice.call({
      to,
      script: m.script,
      workspaceId,
      metadata: { contact_id: c.id },
    });
  } catch (e) {
    await releaseUsage(ctx, reservation);
    providerFailure(e, "Failed to make call");
  }
  await recordActivities(ctx.db, [
    {
      workspaceId,
      contactId: c.id,
      activityType: "call_made",
      metadata: { script: m.script, to, provider_message_id: result.providerMessageId },
    },
  ]);
  return { call_id: result.providerMessageId };
}

// ---------------------------------------------------------------------------------------------
// Map
// ---------------------------------------------------------------------------------------------

const EARTH_RADIUS_MILES = 3958.7613;

/** Contacts of the user that have coordinates (the map's markers), newest first, at most 5,000. */
export async function listLocatedContacts(ctx: Pick<AppContext, "db">, workspaceId: string) {
  const rows = await ctx.db
    .select()
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        sql`${contacts.latitude} is not null and ${contacts.longitude} is not null`,
      ),
    )
    .orderBy(desc(contacts.id))
    .limit(5000);
  return rows.map(toContactJson);
}

/**
 * POST /api/contacts/search/location {latitude, longitude, radius_miles}: contacts within the
 * great-circle (haversine) distance, nearest first, each with `distance_miles`. A bounding box
 * on (latitude, longitude) lets the (workspace_id, latitude, longitude) index prune before the exact test.
 */
export async function searchByLocation(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const q = parseInput(locationSearchSchema, input);
  const dLat = (q.radius_miles / EARTH_RADIUS_MILES) * (180 / Math.PI);
  const cosLat = Math.cos((q.latitude * Math.PI) / 180);
  const dLng = cosLat < 1e-6 ? 180 : Math.min(180, dLat / cosLat);
  const lat = sql`${q.latitude}::float8`;
  const lng = sql`${q.longitude}::float8`;
  const distance = sql<number>`(${EARTH_RADIUS_MILES}::float8 * 2 * asin(least(1, sqrt(
    power(sin(radians(${contacts.latitude} - ${lat}) / 2), 2) +
    cos(radians(${lat})) * cos(radians(${contacts.latitude})) * power(sin(radians(${contacts.longitude} - ${lng}) / 2), 2)
  ))))`;
  const rows = await ctx.db
    .select({ c: contacts, distance })
    .from(contacts)
    .where(
      and(
        eq(contacts.workspaceId, workspaceId),
        sql`${contacts.latitude} between ${q.latitude - dLat}::float8 and ${q.latitude + dLat}::float8`,
        dLng >= 180
          ? undefined
          : sql`${contacts.longitude} between ${q.longitude - dLng}::float8 and ${q.longitude + dLng}::float8`,
        sql`${distance} <= ${q.radius_miles}::float8`,
      ),
    )
    .orderBy(distance)
    .limit(5000);
  return rows.map((r) => ({ ...toContactJson(r.c), distance_miles: Math.round(r.distance * 100) / 100 }));
}

// ---------------------------------------------------------------------------------------------
// Import (JSON and streaming file) and export
// ---------------------------------------------------------------------------------------------

/**
 * The contact limit an import runs under (spec section 9, issue 12): how many new contacts the
 * workspace's plan still allows and the sentence rejected rows get; null when unlimited.
 */
export async function importContactLimit(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
): Promise<{ maxNew: number; reason: string } | null> {
  const a = await contactsAllowance(ctx, workspaceId, await countContacts(ctx, workspaceId));
  if (a.left === null || a.max === null) return null;
  return { maxNew: a.left, reason: contactsLimitReason(a.plan, a.max) };
}

/**
 * POST /api/contacts/import {contacts:[...], on_duplicate?}: validates and upserts the rows by email
 * (skip or update duplicates), then queues geocoding. Returns `{imported, created, updated, skipped,
 * errors (count), error_rows:[{line, reason}]}` where imported = created + updated.
 */
export async function importContactsJson(ctx: Ctx, workspaceId: string, input: unknown) {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new AppError("BAD_REQUEST", 'Send a JSON object: {"contacts": [{"first_name", "email", ...}]}');
  const body = parseInput(importJsonSchema, input);
  const r = await importRows(
    ctx.sql,
    workspaceId,
    body.contacts,
    body.on_duplicate,
    await importContactLimit(ctx, workspaceId),
  );
  if (r.created + r.updated > 0) {
    await ctx.jobs.send(geocodeContactsJob, { workspaceId }, { singletonKey: `geo:${workspaceId}` });
  }
  return {
    imported: r.created + r.updated,
    created: r.created,
    updated: r.updated,
    skipped: r.skipped,
    errors: r.errorCount,
    error_rows: r.errors.slice(0, 1000).map(({ line, reason }) => ({ line, reason })),
  };
}

const importMappingSchema = z
  .partialRecord(z.enum(IMPORT_FIELDS), z.number().int().min(0).max(10_000))
  .refine(
    (m) => new Set(Object.values(m)).size === Object.values(m).length,
    "Each column can be mapped to one field only",
  );

/** The import progress shape returned by the REST API and tRPC. */
export function toImportJson(i: ContactImport) {
  return {
    id: i.id,
    status: i.status,
    file_name: i.fileName,
    file_size: i.fileSize,
    bytes_processed: i.bytesProcessed,
    progress: i.fileSize > 0 ? Math.min(1, i.bytesProcessed / i.fileSize) : 1,
    rows_processed: i.rowsProcessed,
    imported: i.created + i.updated,
    created: i.created,
    updated: i.updated,
    skipped: i.skipped,
    errors: i.errorCount,
    error_rows: i.errors.slice(0, 100).map(({ line, reason }) => ({ line, reason })),
    failure_reason: i.failureReason,
    created_at: i.createdAt.toISOString(),
    finished_at: i.finishedAt?.toISOString() ?? null,
  };
}

/**
 * Registers an uploaded CSV (spooled to `file.path`), moves it to the storage provider and queues
 * `crm.import-contacts`.
 * Checks before queueing: not empty, text (not binary), a header row, a column for email (from
 * `mapping` or the header rules). @throws BAD_REQUEST (empty, bad mapping), UNSUPPORTED_MEDIA_TYPE
 * (binary), UNPROCESSABLE (no email column).
 */
export async function startFileImport(
  ctx: Ctx,
  workspaceId: string,
  file: { importId: string; path: string; name: string; size: number },
  opts: { mapping?: unknown; onDuplicate?: unknown; createdBy?: string | null },
) {
  const mapping = opts.mapping === undefined || opts.mapping === "" ? undefined : parseMapping(opts.mapping);
  const onDuplicate = opts.onDuplicate === "update" ? "update" : "skip";
  if (file.size === 0) throw new AppError("BAD_REQUEST", "The file is empty");
  const fd = await fs.promises.open(file.path, "r");
  const head = Buffer.alloc(65536);
  const { bytesRead } = await fd.read(head, 0, head.length, 0);
  await fd.close();
  const { encoding, bomLength } = sniffEncoding(head.subarray(0, bytesRead));
  const text = decodeWithEncoding(encoding, head.subarray(bomLength, bytesRead));
  const firstRows = Papa.parse<string[]>(text, { preview: 2, skipEmptyLines: "greedy" }).data;
  const headers = firstRows[0]?.map(String) ?? [];
  if (headers.length === 0 || headers.every((h) => !h.trim()))
    throw new AppError("BAD_REQUEST", "The file has no header row");
  const effective = mapping ?? matchHeaders(headers);
  for (const idx of Object.values(effective))
    if (idx !== undefined && idx >= headers.length)
      throw new AppError(
        "BAD_REQUEST",
        `The mapping points at column ${idx + 1}, but the file has ${headers.length} columns`,
      );
  if (effective.email === undefined)
    throw new AppError(
      "UNPROCESSABLE",
      `No email column found (columns: ${headers.slice(0, 10).join(", ").slice(0, 200)}). Every contact needs an email; map a column to Email.`,
    );
  // hand the file to the storage provider (local disk or S3) so whichever worker runs the job can read it
  await ctx.providers.storage.putFile(importStorageKey(file.importId), file.path, {
    contentType: "text/csv",
    move: true,
  });
  try {
    const [row] = await ctx.db
      .insert(contactImports)
      .values({
        id: file.importId,
        workspaceId,
        createdBy: opts.createdBy ?? null,
        fileName: file.name.slice(0, 200),
        fileSize: file.size,
        mapping: effective,
        onDuplicate,
      })
      .returning();
    if (!row) throw new AppError("INTERNAL", "Could not start the import");
    await ctx.jobs.send(importContactsJob, { importId: row.id }, { singletonKey: row.id });
    return getImport(ctx, workspaceId, row.id);
  } catch (e) {
    // no job will read the stored file: do not leave it in storage
    await ctx.providers.storage.delete(importStorageKey(file.importId)).catch(() => {});
    throw e;
  }
}

function parseMapping(raw: unknown): ColumnMapping {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new AppError("BAD_REQUEST", "mapping must be a JSON object of field -> column index");
    }
  }
  return parseInput(importMappingSchema, value) as ColumnMapping;
}

/** One import of the user with its progress. @throws NOT_FOUND 'Import not found'. */
export async function getImport(ctx: Pick<AppContext, "db">, workspaceId: string, importId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(importId)) throw new AppError("NOT_FOUND", "Import not found");
  const [row] = await ctx.db
    .select()
    .from(contactImports)
    .where(and(eq(contactImports.workspaceId, workspaceId), eq(contactImports.id, importId)));
  if (!row) throw new AppError("NOT_FOUND", "Import not found");
  return toImportJson(row);
}

/** The rejected rows of an import as CSV (line, reason, row), formula-safe. @throws NOT_FOUND. */
export async function importErrorsCsv(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  importId: string,
): Promise<string> {
  await getImport(ctx, workspaceId, importId);
  const [row] = await ctx.db
    .select({ errors: contactImports.errors })
    .from(contactImports)
    .where(and(eq(contactImports.workspaceId, workspaceId), eq(contactImports.id, importId)));
  return Papa.unparse({
    fields: ["line", "reason", "row"],
    data: (row?.errors ?? []).map((e) => [String(e.line), safeCell(e.reason), safeCell(e.raw ?? "")]),
  });
}

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
 * Streams the user's contacts matching the list filter (search, stage, status, tag) as CSV lines,
 * 2,000 rows per query (keyset on the unique id, newest first), every cell formula-safe (OWASP CSV injection).
 */
export async function* exportContactsCsv(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: ListContactsInput,
) {
  const q = parseInput(listContactsSchema, input);
  const filter: SegmentFilter = {
    search: q.search,
    lifecycle_stage: q.stage || undefined,
    lead_status: q.status || undefined,
    tag_id: q.tag,
  };
  yield `\uFEFF${Papa.unparse([EXPORT_COLUMNS as unknown as string[]])}\r\n`;
  // keyset on id alone (unique, and an integer survives the round trip through JS exactly; a
  // created_at key lost its microseconds in a JS Date and skipped rows sharing an import's time)
  let afterId: number | null = null;
  for (;;) {
    const rows: Contact[] = await ctx.db
      .select()
      .from(contacts)
      .where(and(contactWhere(workspaceId, filter), afterId === null ? undefined : lt(contacts.id, afterId)))
      .orderBy(...contactOrder(filter))
      .limit(2000);
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
      return EXPORT_COLUMNS.map((c) => safeCell(j[c]));
    });
    yield `${Papa.unparse(data, { newline: "\r\n" })}\r\n`;
    afterId = (rows[rows.length - 1] as Contact).id;
    if (rows.length < 2000) break;
  }
}

// ---------------------------------------------------------------------------------------------
// Business lead search -> contacts (issue 13)
// ---------------------------------------------------------------------------------------------

/** A business found by the lead search, as the leads feature hands it to the CRM. */
export interface BusinessContactInput {
  placeId: string;
  name: string;
  phone?: string | null;
  website?: string | null;
  email?: string | null;
  streetAddress?: string | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  leadScore?: number | null;
  facebookUrl?: string | null;
  instagramHandle?: string | null;
  linkedinUrl?: string | null;
}

/** "https://www.Acme.com/x" -> "acme.com" (null when not a URL). */
export function websiteDomain(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(/^[a-z]+:\/\//i.test(url) ? url : `https://${url}`);
    return u.hostname.toLowerCase().replace(/^www\./, "") || null;
  } catch {
    return null;
  }
}

const nameAddressKey = (name: string | null | undefined, street: string | null | undefined) =>
  name && street
    ? `${name.trim().toLowerCase()}|${street
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9]/g, "")}`
    : null;

/**
 * Contacts of the workspace matching businesses, keyed by the business's placeId. A business matches a
 * contact (in this order) by the place id it was created from (`custom_fields.place_id`), its email,
 * its E.164 phone, its website domain, then name (the contact's company) + street address.
 */
export async function matchBusinessContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  businesses: Pick<
    BusinessContactInput,
    "placeId" | "name" | "phone" | "website" | "email" | "streetAddress"
  >[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!businesses.length) return out;
  const placeIds = businesses.map((b) => b.placeId);
  const phones = businesses.map((b) => toE164(b.phone)).filter((p): p is string => !!p);
  const emails = businesses.map((b) => b.email?.trim().toLowerCase()).filter((e): e is string => !!e);
  const domains = businesses.map((b) => websiteDomain(b.website)).filter((d): d is string => !!d);
  const rows = await ctx.db.execute<{
    id: number;
    place_id: string | null;
    email: string | null;
    phone: string | null;
    website: string | null;
    company: string | null;
    street_address: string | null;
  }>(sql`
    select id, custom_fields->>'place_id' as place_id, lower(email) as email, phone, website, company, street_address
    from contacts
    where workspace_id = ${workspaceId} and (
      custom_fields->>'place_id' = any(array(select jsonb_array_elements_text(${JSON.stringify(placeIds)}::jsonb)))
      or lower(email) = any(array(select jsonb_array_elements_text(${JSON.stringify(emails)}::jsonb)))
      or phone = any(array(select jsonb_array_elements_text(${JSON.stringify(phones)}::jsonb)))
      or (website is not null and lower(regexp_replace(regexp_replace(website, '^[a-zA-Z]+://', ''), '^www\\.|[/:?#].*$', '', 'g')) = any(array(select jsonb_array_elements_text(${JSON.stringify(domains)}::jsonb))))
      or (company is not null and street_address is not null and lower(company) = any(array(select jsonb_array_elements_text(${JSON.stringify(businesses.map((b) => b.name.trim().toLowerCase()))}::jsonb))))
    )
    order by id`);
  const byPlace = new Map<string, number>();
  const byEmail = new Map<string, number>();
  const byPhone = new Map<string, number>();
  const byDomain = new Map<string, number>();
  const byNameAddr = new Map<string, number>();
  for (const r of rows) {
    const id = Number(r.id);
    if (r.place_id && !byPlace.has(r.place_id)) byPlace.set(r.place_id, id);
    if (r.email && !byEmail.has(r.email)) byEmail.set(r.email, id);
    if (r.phone && !byPhone.has(r.phone)) byPhone.set(r.phone, id);
    const d = websiteDomain(r.website);
    if (d && !byDomain.has(d)) byDomain.set(d, id);
    const k = nameAddressKey(r.company, r.street_address);
    if (k && !byNameAddr.has(k)) byNameAddr.set(k, id);
  }
  for (const b of businesses) {
    const e164 = toE164(b.phone);
    const d = websiteDomain(b.website);
    const k = nameAddressKey(b.name, b.streetAddress);
    const id =
      byPlace.get(b.placeId) ??
      (b.email ? byEmail.get(b.email.trim().toLowerCase()) : undefined) ??
      (e164 ? byPhone.get(e164) : undefined) ??
      (d ? byDomain.get(d) : undefined) ??
      (k ? byNameAddr.get(k) : undefined);
    if (id !== undefined) out.set(b.placeId, id);
  }
  return out;
}

/**
 * Adds businesses from the lead search to the workspace's contacts (issue 13): each is matched first
 * (see matchBusinessContacts; duplicates within the call collapse too). Matched contacts get their
 * empty phone, website, address and coordinates filled ("updated"; "skipped" when nothing was
 * missing); the rest are created with company = the business name, lead_source 'business_search',
 * lifecycle stage lead and custom_fields.place_id. `beforeCreate(n)` runs before anything is written
 * with the number of contacts to create (the caller's plan check: it may throw). With `tagName`, the
 * created and matched contacts get that tag (created when missing).
 */
export async function addBusinessContacts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  businesses: BusinessContactInput[],
  opts: { tagName?: string; beforeCreate?: (n: number) => Promise<void> | void } = {},
): Promise<{ created: number; updated: number; skipped: number; contactIds: number[] }> {
  const matched = await matchBusinessContacts(ctx, workspaceId, businesses);
  const seen = new Set<string>();
  const toCreate: BusinessContactInput[] = [];
  const toUpdate: { id: number; b: BusinessContactInput }[] = [];
  let skipped = 0;
  for (const b of businesses) {
    const keys = [
      `p:${b.placeId}`,
      b.email ? `e:${b.email.toLowerCase()}` : null,
      toE164(b.phone) ? `t:${toE164(b.phone)}` : null,
      websiteDomain(b.website) ? `d:${websiteDomain(b.website)}` : null,
    ].filter((k): k is string => !!k);
    if (keys.some((k) => seen.has(k))) {
      skipped++;
      continue;
    }
    for (const k of keys) seen.add(k);
    const id = matched.get(b.placeId);
    if (id !== undefined) toUpdate.push({ id, b });
    else toCreate.push(b);
  }
  await opts.beforeCreate?.(toCreate.length);
  const ids: number[] = [];
  return ctx.db.transaction(async (tx) => {
    let updated = 0;
    for (const { id, b } of toUpdate) {
      const p = normalisePhone(b.phone);
      const r = await tx.execute<{ id: number }>(sql`
        update contacts set
          phone = coalesce(phone, ${p.e164}), phone_raw = coalesce(phone_raw, ${p.raw}),
          website = coalesce(website, ${b.website ?? null}),
          street_address = coalesce(street_address, ${b.streetAddress ?? null}),
          city = coalesce(city, ${b.city ?? null}), state = coalesce(state, ${b.state ?? null}),
          postal_code = coalesce(postal_code, ${b.postalCode ?? null}),
          latitude = coalesce(latitude, ${b.latitude ?? null}), longitude = coalesce(longitude, ${b.longitude ?? null}),
          custom_fields = custom_fields || jsonb_build_object('place_id', coalesce(custom_fields->>'place_id', ${b.placeId}::text)),
          updated_at = now()
        where workspace_id = ${workspaceId} and id = ${id} and (
          (phone is null and ${p.e164}::text is not null) or (website is null and ${b.website ?? null}::text is not null)
          or (street_address is null and ${b.streetAddress ?? null}::text is not null)
          or (latitude is null and ${b.latitude ?? null}::float8 is not null)
          or custom_fields->>'place_id' is null)
        returning id`);
      if (r.length) updated++;
      else skipped++;
      ids.push(id);
    }
    if (toCreate.length) {
      const created = await tx
        .insert(contacts)
        .values(
          toCreate.map((b) => {
            const p = normalisePhone(b.phone);
            return {
              workspaceId,
              company: b.name,
              email: b.email?.toLowerCase() ?? null,
              phone: p.e164,
              phoneRaw: p.raw,
              website: b.website ?? null,
              streetAddress: b.streetAddress ?? null,
              city: b.city ?? null,
              state: b.state ?? null,
              postalCode: b.postalCode ?? null,
              country: "US",
              latitude: b.latitude ?? null,
              longitude: b.longitude ?? null,
              geocodedAt: b.latitude != null ? new Date() : null,
              leadSource: "business_search",
              leadScore: Math.max(0, Math.min(100, Math.round(b.leadScore ?? 0))),
              facebookUrl: b.facebookUrl ?? null,
              instagramHandle: b.instagramHandle ?? null,
              linkedinUrl: b.linkedinUrl ?? null,
              customFields: { place_id: b.placeId },
            };
          }),
        )
        .returning({ id: contacts.id });
      ids.push(...created.map((c) => c.id));
    }
    if (opts.tagName?.trim() && ids.length) {
      const name = opts.tagName.trim().slice(0, 50);
      await tx.execute(sql`
        insert into tags (workspace_id, name, color) values (${workspaceId}, ${name}, ${DEFAULT_TAG_COLOR})
        on conflict (workspace_id, lower(name)) do nothing`);
      await tx.execute(sql`
        insert into contact_tags (contact_id, tag_id)
        select c, (select id from tags where workspace_id = ${workspaceId} and lower(name) = lower(${name}))
        from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) as j(c0), lateral (select j.c0::bigint as c) x
        on conflict do nothing`);
    }
    return { created: toCreate.length, updated, skipped, contactIds: ids };
  });
}
