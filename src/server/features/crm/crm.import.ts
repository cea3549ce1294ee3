import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Readable } from "node:stream";
import Papa from "papaparse";
import type { Db, Sql } from "../../db/client";
import { openTransactionDb, type ReservedSql } from "../../db/reserved";
import { retryOnRace } from "../../db/retry";
import { LEAD_STATUSES, type LeadStatus, LIFECYCLE_STAGES, type LifecycleStage } from "../../db/schema";
import { isContactEmail, normaliseContactEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { invalidPhoneSentence, normalisePhone } from "../../lib/phone";
import { describeZodError, humanFieldLabel } from "../../lib/validate";
import { type ContactsLimit, contactsLeft } from "../billing/billing.service";
import {
  describeOptOut,
  type OptInChannel,
  type OptOutCause,
  optOutChannelsInUse,
  optOutsOf,
} from "../compliance/compliance.service";
import type { ImportEventListener } from "./crm.contact-events";
import { mergedCustomFieldCount } from "./crm.contacts";
import {
  type ColumnMapping,
  createDecoder,
  IMPORT_FIELDS,
  type ImportField,
  matchHeaders,
  sniffEncoding,
} from "./crm.csv";
import { IMPORT_FIELD_LABELS } from "./crm.headers";
import {
  CONTACT_COUNT_SQL,
  CONTACT_CREATION_LOCK_SQL,
  customFieldsMergeSql,
  selectCustomFieldsByEmail,
} from "./crm.queries";
import {
  CONTACT_TEXT_LIMITS,
  type CustomFieldsInput,
  customFieldsSchema,
  isTimeZone,
  isWebAddress,
  MAX_CUSTOM_FIELDS,
  TIME_ZONE_RULE,
  WEB_ADDRESS_FIELDS,
  WEB_ADDRESS_RULE,
} from "./crm.schemas";

/**
 * One rejected row: its CSV record number, blank rows counted, as a spreadsheet numbers the file's
 * rows (the header is line 1), and why. `kept` marks a row that was
 * imported anyway with a problem the user should see: an invalid phone (issue 14, kept as typed), a
 * field left empty because its value breaks the contact's rule (CLEARED_FIELDS), or (`kind:
 * 'encoding'`) a field of a CSV file's rows holding bytes its encoding could not read. `field` names the
 * field of a kept row's problem (phone, mobile, a CLEARED_FIELDS entry, or the import field whose
 * values were misread; absent on reports stored before it existed, which were all phones; 'encoding'
 * on encoding reports stored before they named their field).
 */
export interface ImportRowError {
  line: number;
  reason: string;
  raw?: string;
  kept?: boolean;
  field?: string;
  /**
   * 'encoding': the field's values hold bytes read as U+FFFD (one entry per field, naming its lines);
   * 'opted_out': the row's person opted out earlier, so its opt-in flags the file (or a new contact's
   * default) would have turned on stayed off (`field` the first such flag; ContactImporter
   * keepOptOutsOff)
   */
  kind?: "encoding" | "opted_out";
}

/** True for a kept report of bytes the file's encoding could not read (also those stored as field 'encoding'). */
export function isEncodingReport(e: Pick<ImportRowError, "kept" | "field" | "kind">): boolean {
  return !!e.kept && (e.kind === "encoding" || e.field === "encoding");
}

/**
 * The fields an import leaves empty, rather than rejecting the row, when their value breaks the rule
 * single-contact create/update enforce (crm.schemas isWebAddress, isTimeZone, CONTACT_TEXT_LIMITS): a
 * website, LinkedIn or Facebook URL that is not http(s) or a bare domain (`javascript:alert(1)`), a
 * time zone that is not an IANA name (`Mars/Base`), a text value longer than the contact's limit (a
 * 220-character job title, a 28-character postal code). The contact is imported without that value
 * (an update keeps the stored one) and the row is listed as kept with the field and the rule. Same
 * in CSV, JSON and v1 bulk imports. (A phone or mobile over its limit is left out too, reported as a
 * phone.)
 */
export const CLEARED_FIELDS = (
  Object.keys(CONTACT_TEXT_LIMITS) as (keyof typeof CONTACT_TEXT_LIMITS)[]
).filter(
  (k): k is Exclude<keyof typeof CONTACT_TEXT_LIMITS, "phone" | "mobile"> => k !== "phone" && k !== "mobile",
);

/** True for a kept row's report about its phone or mobile (also the reports stored without `field`). */
export function isPhoneReport(e: Pick<ImportRowError, "kept" | "field" | "kind">): boolean {
  return (
    !!e.kept &&
    !isEncodingReport(e) &&
    !isOptOutReport(e) &&
    (e.field === undefined || e.field === "phone" || e.field === "mobile")
  );
}

/**
 * True for a kept row's report that its person opted out earlier (kind 'opted_out'): the row was
 * imported with the opt-in flags they opted out of kept off.
 */
export function isOptOutReport(e: Pick<ImportRowError, "kept" | "kind">): boolean {
  return !!e.kept && e.kind === "opted_out";
}

/** True for a kept row's report about a field left empty (CLEARED_FIELDS). */
export function isClearedReport(e: Pick<ImportRowError, "kept" | "field" | "kind">): boolean {
  return (
    !!e.kept && !isEncodingReport(e) && (CLEARED_FIELDS as readonly (string | undefined)[]).includes(e.field)
  );
}

/** A problem of a row imported anyway (ImportRowError with `kept`): its field and the sentence. */
export interface RowWarning {
  field: ImportField;
  reason: string;
}

export interface ImportResult {
  /** rows read (header excluded) */
  rows: number;
  created: number;
  updated: number;
  /**
   * existing contacts left as they were: with on_duplicate skip every one; with update those whose
   * row would change nothing (every mapped value equal to the stored one)
   */
  skipped: number;
  errorCount: number;
  /** the first MAX_STORED_ERRORS rejected rows, and imported rows with an invalid phone (`kept`) */
  errors: ImportRowError[];
  /**
   * imported rows whose phone or mobile is not a valid number (lib/phone.ts): kept with the number
   * as typed, unreachable by SMS and calls, and listed in `errors` with `kept: true`
   */
  phoneInvalid?: number;
  /**
   * imported rows with a field left empty (CLEARED_FIELDS: a website that is not a web address, an
   * unknown time zone), each such field listed in `errors` with `kept: true` and its `field`
   */
  fieldsCleared?: number;
  /**
   * imported rows whose person opted out earlier (the suppression list, compliance optOutsOf): the
   * opt-in flags the file stated yes for, and a new contact's default email opt-in, stayed off; each
   * listed in `errors` with `kept: true` and `kind: 'opted_out'`. Only the person can opt back in.
   */
  optOutsKept?: number;
}

export type OnDuplicate = "skip" | "update";
export const MAX_STORED_ERRORS = 10_000;
const BATCH_ROWS = 10_000;
/** Rows validated between two turns of the event loop while a batch is being written. */
const YIELD_ROWS = 500;

/** Staging columns, in COPY order. */
const STAGE_COLS = [
  "first_name",
  "last_name",
  "email",
  "phone",
  "phone_raw",
  "mobile",
  "mobile_raw",
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
  "email_opt_in",
  "sms_opt_in",
  "call_opt_in",
  "preferred_language",
  "timezone",
  "linkedin_url",
  "twitter_handle",
  "facebook_url",
  "instagram_handle",
  // a JSON import's custom fields (jsonb text, null values = remove on update); null when none
  "custom_fields",
] as const;
type StageCol = (typeof STAGE_COLS)[number];
/** Staged columns with a type of their own (not text): an update sets them as staged (an empty one was filled from the stored contact first, KEEP_WHEN_EMPTY_COLS). */
const TYPED_COLS: readonly StageCol[] = [
  "lifecycle_stage",
  "lead_status",
  "lead_score",
  "email_opt_in",
  "sms_opt_in",
  "call_opt_in",
];
/**
 * The typed columns whose empty value on an update keeps the stored one (ContactImporter.write): the
 * consent flags and the lead's stage, status and score. Their insert defaults (email yes, SMS and calls
 * no; lead / new / 0) are for new contacts only.
 */
const KEEP_WHEN_EMPTY_COLS = TYPED_COLS;
const TEXT_COLS = STAGE_COLS.filter((c) => !TYPED_COLS.includes(c) && c !== "custom_fields");

/** Text columns copied as given (trimmed); email and phones have their own rules. */
const PLAIN_TEXT_COLS = TEXT_COLS.filter(
  (c) => !["email", "phone", "phone_raw", "mobile", "mobile_raw"].includes(c),
) as (StageCol & ImportField)[];
/** A staging row with every column null, copied per row. */
const NULL_ROW = Object.freeze(Object.fromEntries(STAGE_COLS.map((c) => [c, null]))) as Readonly<
  Record<StageCol, string | null>
>;

const STAGE_ALIASES: Record<string, LifecycleStage> = {
  marketingqualifiedlead: "prospect",
  salesqualifiedlead: "prospect",
  mql: "prospect",
  sql: "prospect",
  opportunity: "prospect",
  evangelist: "advocate",
  other: "lead",
};
const STATUS_ALIASES: Record<string, LeadStatus> = {
  open: "new",
  inprogress: "contacted",
  attemptedtocontact: "contacted",
  connected: "contacted",
  opendeal: "qualified",
  badtiming: "unqualified",
};
const TRUE = new Set(["true", "yes", "y", "1", "opted in", "subscribed"]);
const FALSE = new Set(["false", "no", "n", "0", "opted out", "unsubscribed"]);
function copyEscape(v: string | null): string {
  if (v === null) return "\\N";
  return v.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

/**
 * Validates one row (field -> raw text) into staging values, or returns the reason it is rejected.
 * Rules: email required and well-formed (spec section 5: rows without an email are dropped), kept
 * lower-cased and in Unicode NFC (lib/email normaliseContactEmail), phones to E.164 with the original
 * kept, lifecycle stage / lead status from the spec's values (HubSpot names mapped), lead score
 * 0-100, opt-ins yes/no/true/false/1/0. A website, LinkedIn or Facebook URL or time zone breaking the
 * contact's rule (crm.schemas isWebAddress, isTimeZone) is left empty and reported, the row imported
 * (CLEARED_FIELDS). `warnings`: the kept row's problems (an invalid phone first, at most one for the
 * phones; then each field left empty).
 */
export function validateImportRow(
  values: Partial<Record<ImportField, string>>,
  /** the workspace's default phone country (lib/phone.ts) */
  phoneCountry?: string,
  /** a JSON row's custom fields, already checked (customFieldsSchema) */
  customFields?: CustomFieldsInput,
): { row: Record<StageCol, string | null>; warnings?: RowWarning[] } | { reason: string } {
  const warnings: RowWarning[] = [];
  const v = (k: ImportField) => {
    const s = values[k];
    return s === undefined || s === null ? "" : String(s).trim();
  };
  // lower-cased and in Unicode NFC (lib/email): both forms of "josé@" are one contact, and the
  // file's second form is its duplicate
  const email = normaliseContactEmail(v("email"));
  if (!email) return { reason: "Missing email" };
  if (!isContactEmail(email)) return { reason: `Invalid email '${email.slice(0, 80)}'` };
  const row: Record<StageCol, string | null> = { ...NULL_ROW };
  // a value longer than the contact's limit (crm.schemas CONTACT_TEXT_LIMITS, what the edit form
  // accepts) is left out with a warning, the contact imported
  const tooLong = (c: keyof typeof CONTACT_TEXT_LIMITS, value: string, from = "") =>
    warnings.push({
      field: c,
      reason: `${humanFieldLabel(c)} '${value.slice(0, 80)}'${from} is longer than ${CONTACT_TEXT_LIMITS[c]} characters: contact imported without it`,
    });
  for (const c of PLAIN_TEXT_COLS) {
    const given = values[c];
    if (given === undefined || given === null || given === "") continue;
    const s = String(given).trim();
    const max = CONTACT_TEXT_LIMITS[c as keyof typeof CONTACT_TEXT_LIMITS];
    if (max !== undefined && s.length > max) tooLong(c as keyof typeof CONTACT_TEXT_LIMITS, s);
    else if (s) row[c] = s;
  }
  row.email = email;
  if (!row.first_name && !row.last_name) {
    // a full name: its first word is the first name, the rest the last name; a part too long for
    // the contact is left out and reported (it was cut silently: a row that swallowed lines)
    const parts = v("name").split(/\s+/).filter(Boolean);
    if (parts.length) {
      row.first_name = parts[0] as string;
      row.last_name = parts.slice(1).join(" ") || null;
      for (const c of ["first_name", "last_name"] as const) {
        const value = row[c];
        if (value && value.length > CONTACT_TEXT_LIMITS[c]) {
          row[c] = null;
          tooLong(c, value, " (from the name)");
        }
      }
    }
  }
  for (const k of ["phone", "mobile"] as const) {
    const raw = v(k);
    if (raw.length > CONTACT_TEXT_LIMITS[k]) {
      tooLong(k, raw);
      continue;
    }
    const p = normalisePhone(raw, phoneCountry);
    row[k] = p.e164;
    row[`${k}_raw`] = p.raw;
    if (p.raw && !p.e164 && !warnings.some((w) => w.field === "phone" || w.field === "mobile"))
      warnings.push({
        field: k,
        // the sentence alone: cutting the message at its first "." cut a number such as 229.077.5154
        reason: `${invalidPhoneSentence(k, p.raw)}: contact imported, but it cannot be texted or called until the number is fixed`,
      });
  }
  // the single-contact rules (crm.schemas): the value is left out, the contact imported
  const clear = (c: (typeof CLEARED_FIELDS)[number], rule: string) => {
    const value = row[c] as string;
    row[c] = null;
    warnings.push({
      field: c,
      reason: `${humanFieldLabel(c)} '${value.slice(0, 80)}' ${rule}: contact imported without it`,
    });
  };
  for (const c of WEB_ADDRESS_FIELDS) if (row[c] && !isWebAddress(row[c])) clear(c, WEB_ADDRESS_RULE);
  if (row.timezone && (row.timezone.length > 64 || !isTimeZone(row.timezone)))
    clear("timezone", TIME_ZONE_RULE);
  const stage = v("lifecycle_stage").toLowerCase();
  if (stage) {
    const key = stage.replace(/[^a-z]/g, "");
    const s = (LIFECYCLE_STAGES as readonly string[]).includes(key)
      ? (key as LifecycleStage)
      : STAGE_ALIASES[key];
    if (!s)
      return {
        reason: `Lifecycle stage '${stage.slice(0, 40)}' is not one of ${LIFECYCLE_STAGES.join(", ")}`,
      };
    row.lifecycle_stage = s;
  }
  const status = v("lead_status").toLowerCase();
  if (status) {
    const key = status.replace(/[^a-z]/g, "");
    const s = (LEAD_STATUSES as readonly string[]).includes(key) ? (key as LeadStatus) : STATUS_ALIASES[key];
    if (!s)
      return { reason: `Lead status '${status.slice(0, 40)}' is not one of ${LEAD_STATUSES.join(", ")}` };
    row.lead_status = s;
  }
  const score = v("lead_score");
  if (score) {
    const n = Number(score);
    if (!Number.isInteger(n) || n < 0 || n > 100)
      return { reason: `Lead score '${score.slice(0, 20)}' must be a whole number from 0 to 100` };
    row.lead_score = String(n);
  }
  for (const k of ["email_opt_in", "sms_opt_in", "call_opt_in"] as const) {
    const b = v(k).toLowerCase();
    if (!b) continue;
    if (TRUE.has(b)) row[k] = "t";
    else if (FALSE.has(b)) row[k] = "f";
    else return { reason: `${k} '${b.slice(0, 20)}' must be yes or no` };
  }
  if (customFields) row.custom_fields = JSON.stringify(customFields);
  return warnings.length ? { row, warnings } : { row };
}

/** One connection writing batches, with its staging table and the batch it writes. */
interface Writer {
  conn: ReservedSql;
  busy: Promise<void> | null;
  /** openTransactionDb(conn), made for the first batch with webhook events */
  db?: Db;
}

/** A drizzle handle on the writer's open batch transaction (for `events`), made once per writer. */
function batchDb(w: Writer): Db {
  w.db ??= openTransactionDb(w.conn);
  return w.db;
}

/**
 * Set-based contact import for one user: rows are validated in JS, COPY'd into a session temp
 * table in batches of 10,000, then upserted with one `INSERT ... SELECT ... ON CONFLICT
 * (workspace_id, lower(email))` per batch (DO NOTHING for `skip`, DO UPDATE of the mapped, non-empty
 * columns for `update`), the rows in email order (CONTACT_LOCK_ORDER), in a transaction of its own that
 * is run again on a deadlock (retryOnRace; with a plan limit it also holds the contact-creation lock,
 * see `contactLimit`). Created contacts carry the import's id (`import_id`), which their timeline
 * shows as the `imported` activity. Holds one reserved connection per writer (`opts.writers`)
 * until `close()`; an error of a batch written in the background is thrown by the next `add` or
 * `flush`.
 */
export class ContactImporter {
  /** one reserved connection per writer, each with its own staging table and the batch it writes */
  private writers: Writer[] = [];
  /** the first error of a batch written in the background, thrown by the next add/flush */
  private failure: unknown = null;
  private pending: string[] = [];
  private readonly seen = new Map<string, number>();
  readonly result: ImportResult = { rows: 0, created: 0, updated: 0, skipped: 0, errorCount: 0, errors: [] };
  /** stored in contacts.import_id of the created contacts: the contact_imports id, else a fresh one */
  private readonly importId: string;

  constructor(
    private readonly sql: Sql,
    private readonly workspaceId: string,
    private readonly opts: {
      onDuplicate: OnDuplicate;
      mappedFields: Set<ImportField>;
      source: string;
      importId?: string;
      /**
       * Leave the created contacts out of the search indexes: their words out of the search
       * dictionary (the insert trigger skips them) and themselves out of the trigram index
       * (`search_indexed` false). The caller runs `indexImportSearch` afterwards (the file
       * import's follow-up job); search finds them meanwhile (crm.queries contactWhere).
       */
      deferSearchIndex?: boolean;
      /**
       * Connections writing batches at the same time (default 1). A file import uses 2 so that
       * Postgres works on two batches on two cores while the next is validated. Safe because a
       * file never holds an email twice (later lines are rejected), so no two batches touch the
       * same contact, and the count triggers lock their rows in one order.
       */
      writers?: number;
      /**
       * The plan's contact limit (issue 12; importContactLimit): each batch is written in a
       * transaction that takes the workspace's contact-creation lock (CONTACT_CREATION_LOCK_SQL),
       * counts the workspace's contacts, and creates only as many new ones as the plan still allows
       * (billing contactsLeft); further new rows are rejected with `reason` (updates of existing
       * contacts still go through). Counting per batch under the lock sees what concurrent imports
       * and creates committed, so together they never pass the limit. Forces one writer, so the rows
       * refused are the file's last new ones.
       */
      contactLimit?: ContactsLimit | null;
      /** the workspace's default country for phone numbers without +country (lib/phone.ts) */
      phoneCountry?: string;
      /**
       * The contact.* webhook events (crm.contact-events importEventListener; undefined when nobody
       * listens): `stored` runs in each batch's transaction after its upsert, with the ids of the
       * contacts it created and updated, so the events commit with the batch (the webhooks outbox);
       * `committed` after the commit. Only when set does the upsert return ids. Runs on the writer
       * (a file import's next batch waits for a writer).
       */
      events?: ImportEventListener;
      /** the API key the created contacts come through (contacts.created_by_api_key_id: the v1 bulk upsert) */
      createdByApiKeyId?: string | null;
      /** the person who imports rows given in a request (contacts.created_by: the app's JSON import) */
      createdBy?: string | null;
      /**
       * Rows carry custom fields (a JSON import): created contacts get them without their null
       * values; with `update`, existing contacts get them merged into theirs (null removes a field),
       * never past MAX_CUSTOM_FIELDS (such a row is left as it was and counted as skipped: the
       * JSON import rejects those rows before, this guards a concurrent change).
       */
      customFields?: boolean;
    },
  ) {
    this.importId = opts.importId ?? randomUUID();
  }

  async open() {
    const n = this.opts.contactLimit ? 1 : Math.max(1, Math.min(4, this.opts.writers ?? 1));
    for (let i = 0; i < n; i++) {
      const conn = await this.sql.reserve();
      this.writers.push({ conn, busy: null });
      await conn.unsafe(
        `create temp table if not exists crm_import_stage (${STAGE_COLS.map((c) => `${c} ${c === "lead_score" ? "integer" : c.endsWith("_opt_in") ? "boolean" : c === "custom_fields" ? "jsonb" : "text"}`).join(", ")})`,
      );
      // the update's custom fields merge finds its staged row by email
      if (this.opts.customFields)
        await conn.unsafe("create index if not exists crm_import_stage_email on crm_import_stage (email)");
      await conn.unsafe("truncate crm_import_stage");
      if (this.opts.deferSearchIndex) await conn.unsafe("set pitchwise.defer_contact_words = 'on'");
    }
  }

  /** Waits for a writer with no batch in flight; rethrows a background batch's error. */
  private async idleWriter() {
    if (this.writers.length === 0) throw new Error("importer not open");
    for (;;) {
      if (this.failure) throw this.failure;
      const idle = this.writers.find((w) => !w.busy);
      if (idle) return idle;
      await Promise.race(this.writers.map((w) => w.busy));
    }
  }

  /** Starts writing `lines` (with their rows' pending warnings) on an idle writer (in the background). */
  private async dispatch(lines: string[], warned: ContactImporter["pendingWarnings"] = []) {
    const w = await this.idleWriter();
    w.busy = this.write(w, lines, warned).then(
      () => {
        w.busy = null;
      },
      (e) => {
        w.busy = null;
        this.failure ??= e;
      },
    );
  }

  /** Waits for every batch in flight; rethrows the first error. */
  private async drain() {
    await Promise.all(this.writers.map((w) => w.busy));
    if (this.failure) throw this.failure;
  }

  private reject(line: number, reason: string, raw?: string) {
    this.result.errorCount++;
    // the report is stored as jsonb, which cannot hold NUL: shown as U+FFFD
    if (this.result.errors.length < MAX_STORED_ERRORS)
      this.result.errors.push({
        line,
        reason: reason.replaceAll("\u0000", "\uFFFD"),
        raw: raw?.slice(0, 500).replaceAll("\u0000", "\uFFFD"),
      });
  }

  /**
   * Rows of the batch being gathered with a problem the user should see once they are written (an
   * invalid phone): listed as kept by `write` only if the upsert wrote them, never for a row the plan
   * limit took out or that was left as it was (an existing contact with on_duplicate skip).
   */
  private pendingWarnings: { email: string; line: number; warnings: RowWarning[]; raw?: string }[] = [];

  /**
   * Lists an imported row's problems the user should see (kept: true; not errors), one entry per
   * problem with its field; counts the row in phoneInvalid and/or fieldsCleared.
   */
  private warn(line: number, warnings: RowWarning[], raw?: string) {
    if (warnings.some((w) => w.field === "phone" || w.field === "mobile"))
      this.result.phoneInvalid = (this.result.phoneInvalid ?? 0) + 1;
    if (warnings.some((w) => isClearedReport({ kept: true, field: w.field })))
      this.result.fieldsCleared = (this.result.fieldsCleared ?? 0) + 1;
    for (const w of warnings)
      if (this.result.errors.length < MAX_STORED_ERRORS)
        this.result.errors.push({
          line,
          reason: w.reason.replaceAll("\u0000", "\uFFFD"),
          raw: raw?.slice(0, 500).replaceAll("\u0000", "\uFFFD"),
          kept: true,
          field: w.field,
        });
  }

  /**
   * Keeps off, in the staged batch, the opt-in flags of people who opted out (compliance optOutsOf:
   * the workspace's suppression list and the sending number's STOP, as the send paths decide): a
   * flag the file states yes for, and a new contact's default email opt-in, is staged false when the
   * row's email (email) or one of its numbers (SMS, calls; the file's, else the stored contact's) is
   * opted out. Rows that will not be written are not looked at (with `skip`, existing contacts).
   * Set-based: a probe of whether anyone in the workspace opted out of email or a number did
   * (optOutChannelsInUse; nothing more when not), then one select of the batch's candidate rows,
   * optOutsOf's two lookups, one update of the stage when any. Runs in the batch's transaction, after the plan limit's cut. Returns the rows
   * kept off with the causes by channel.
   */
  private async keepOptOutsOff(
    w: Writer,
  ): Promise<{ email: string; causes: Partial<Record<OptInChannel, OptOutCause>> }[]> {
    const conn = w.conn;
    // a workspace nobody opted out of (the usual case) costs one probe, not a look at every row
    const inUse = await optOutChannelsInUse(batchDb(w), this.workspaceId);
    if (!inUse.email && !inUse.phones) return [];
    const asks = [
      ...(inUse.email ? ["coalesce(s.email_opt_in, c.id is null)"] : []),
      ...(inUse.phones ? ["s.sms_opt_in", "s.call_opt_in"] : []),
    ];
    const rows = await conn.unsafe(
      `select s.email, coalesce(s.phone, c.phone) as phone, coalesce(s.mobile, c.mobile) as mobile,
              ${inUse.email ? "coalesce(s.email_opt_in, c.id is null)" : "false"} as e,
              ${inUse.phones ? "coalesce(s.sms_opt_in, false)" : "false"} as m,
              ${inUse.phones ? "coalesce(s.call_opt_in, false)" : "false"} as v
         from crm_import_stage s
         left join contacts c on c.workspace_id = $1::uuid and lower(c.email) = lower(s.email)
        where (${asks.join(" or ")})
          ${this.opts.onDuplicate === "skip" ? "and c.id is null" : ""}`,
      [this.workspaceId],
    );
    if (rows.length === 0) return [];
    const found = await optOutsOf(
      batchDb(w),
      this.workspaceId,
      rows.map((r) => ({
        email: r.e ? String(r.email) : null,
        numbers: r.m || r.v ? [r.phone as string | null, r.mobile as string | null] : [],
      })),
    );
    const kept: { email: string; causes: Partial<Record<OptInChannel, OptOutCause>> }[] = [];
    const off: Record<OptInChannel, string[]> = { email: [], sms: [], call: [] };
    rows.forEach((r, i) => {
      const f = found[i] ?? {};
      const causes: Partial<Record<OptInChannel, OptOutCause>> = {};
      if (r.e && f.email) causes.email = f.email;
      if (r.m && f.sms) causes.sms = f.sms;
      if (r.v && f.call) causes.call = f.call;
      const channels = Object.keys(causes) as OptInChannel[];
      if (channels.length === 0) return;
      for (const c of channels) off[c].push(String(r.email));
      kept.push({ email: String(r.email), causes });
    });
    if (kept.length)
      await conn.unsafe(
        `update crm_import_stage s
            set email_opt_in = case when s.email = any($1::text[]) then false else s.email_opt_in end,
                sms_opt_in = case when s.email = any($2::text[]) then false else s.sms_opt_in end,
                call_opt_in = case when s.email = any($3::text[]) then false else s.call_opt_in end
          where s.email = any($1::text[]) or s.email = any($2::text[]) or s.email = any($3::text[])`,
        [off.email, off.sms, off.call],
      );
    return kept;
  }

  /** Lists a written row whose opt-ins stayed off (keepOptOutsOff) as kept, and counts it in optOutsKept. */
  private keptOptOut(email: string, causes: Partial<Record<OptInChannel, OptOutCause>>) {
    this.result.optOutsKept = (this.result.optOutsKept ?? 0) + 1;
    if (this.result.errors.length >= MAX_STORED_ERRORS) return;
    const channels = (["email", "sms", "call"] as const).filter((c) => causes[c]);
    const words = { email: "email", sms: "SMS", call: "call" } as const;
    const how = channels
      .map((c) => `${words[c]}: ${describeOptOut(causes[c]!.reason, causes[c]!.source)}`)
      .join("; ");
    const flags = channels.map((c) => words[c]);
    const list = flags.length > 1 ? `${flags.slice(0, -1).join(", ")} and ${flags.at(-1)}` : flags[0];
    this.result.errors.push({
      line: this.seen.get(email) ?? 0,
      reason: `${email} opted out earlier (${how}): ${list} opt-in ${flags.length > 1 ? "stay" : "stays"} off. Only they can opt back in.`,
      kept: true,
      field: `${channels[0]}_opt_in`,
      kind: "opted_out",
    });
  }

  /** Counts a row the reader could not read (e.g. an oversized record) as read and rejected. */
  rejectRow(line: number, reason: string) {
    this.result.rows++;
    this.reject(line, reason);
  }

  /** Adds rows; flushes a batch to Postgres every 10,000 accepted rows. */
  async add(
    rows: {
      line: number;
      values: Partial<Record<ImportField, string>>;
      /** the row as read, for the error report; or its cells, joined only if the row is rejected */
      raw?: string;
      cells?: string[];
      /** a JSON row's custom fields (with `customFields` set on the importer) */
      custom?: CustomFieldsInput;
    }[],
  ) {
    let sinceYield = 0;
    for (const r of rows) {
      // give the event loop a turn now and then: the batch being written needs it to send its
      // next statement (truncate -> COPY -> upsert) while this one is validated
      if (++sinceYield === YIELD_ROWS) {
        sinceYield = 0;
        if (this.writers.some((w) => w.busy)) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      this.result.rows++;
      const out = validateImportRow(r.values, this.opts.phoneCountry, r.custom);
      if ("reason" in out) {
        this.reject(r.line, out.reason, r.raw ?? r.cells?.join(","));
        continue;
      }
      const email = out.row.email as string;
      const first = this.seen.get(email);
      if (first !== undefined) {
        this.reject(
          r.line,
          `Duplicate email ${email}, already on line ${first}`,
          r.raw ?? r.cells?.join(","),
        );
        continue;
      }
      const copyLine = STAGE_COLS.map((c) => copyEscape(out.row[c])).join("\t");
      // Postgres text cannot hold NUL; one such cell would fail the whole batch
      if (copyLine.includes("\u0000")) {
        this.reject(r.line, "The row contains a NUL character (binary data)", r.raw ?? r.cells?.join(","));
        continue;
      }
      this.seen.set(email, r.line);
      this.pending.push(copyLine);
      if (out.warnings)
        this.pendingWarnings.push({
          email,
          line: r.line,
          warnings: out.warnings,
          raw: r.raw ?? r.cells?.join(","),
        });
      if (this.pending.length >= BATCH_ROWS) {
        // overlap: validate the next batch in JS while Postgres writes this one
        const lines = this.pending;
        const warned = this.pendingWarnings;
        this.pending = [];
        this.pendingWarnings = [];
        await this.dispatch(lines, warned);
      }
    }
  }

  /** Writes what is pending, then waits for every batch in flight. */
  async flush() {
    const lines = this.pending;
    const warned = this.pendingWarnings;
    this.pending = [];
    this.pendingWarnings = [];
    if (lines.length) await this.dispatch(lines, warned);
    await this.drain();
  }

  /** COPY + upsert of one batch; its warned rows are listed (kept) only if the upsert wrote them. */
  private async write(w: Writer, lines: string[], warned: ContactImporter["pendingWarnings"] = []) {
    if (lines.length === 0) return;
    const conn = w.conn;
    const events = this.opts.events;
    await conn.unsafe("truncate crm_import_stage");
    const writable = await conn
      .unsafe(`copy crm_import_stage (${STAGE_COLS.join(", ")}) from stdin`)
      .writable();
    await new Promise<void>((resolve, reject) => {
      writable.on("error", reject);
      writable.on("finish", resolve);
      writable.end(`${lines.join("\n")}\n`);
    });
    const cols = STAGE_COLS.map((c) => {
      if (c === "lifecycle_stage") return "coalesce(s.lifecycle_stage, 'lead')";
      if (c === "lead_status") return "coalesce(s.lead_status, 'new')";
      if (c === "lead_score") return "coalesce(s.lead_score, 0)";
      if (c === "email_opt_in") return "coalesce(s.email_opt_in, true)";
      if (c === "sms_opt_in") return "coalesce(s.sms_opt_in, false)";
      if (c === "call_opt_in") return "coalesce(s.call_opt_in, false)";
      if (c === "lead_source") return `coalesce(s.lead_source, '${this.opts.source.replace(/'/g, "''")}')`;
      if (c === "custom_fields") return "jsonb_strip_nulls(coalesce(s.custom_fields, '{}'::jsonb))";
      return `s.${c}`;
    });
    let conflict = "do nothing";
    if (this.opts.onDuplicate === "update") {
      const mapped = this.opts.mappedFields;
      const setCols = STAGE_COLS.filter((c) => {
        if (c === "email" || c === "custom_fields") return false;
        const field = (c.endsWith("_raw") ? c.slice(0, -4) : c) as ImportField;
        return mapped.has(field) || ((c === "first_name" || c === "last_name") && mapped.has("name"));
      });
      const values = setCols.map((c) =>
        TYPED_COLS.includes(c) ? `excluded.${c}` : `coalesce(excluded.${c}, contacts.${c})`,
      );
      // custom fields merge into the stored ones: the staged object still holds its nulls (removals),
      // which the proposed row (`excluded`) lost to jsonb_strip_nulls; names compared
      // case-insensitively (a row's `tier` replaces a stored `Tier`)
      const merged = customFieldsMergeSql(
        "contacts.custom_fields",
        "coalesce((select s2.custom_fields from crm_import_stage s2 where s2.email = excluded.email), '{}'::jsonb)",
      );
      if (this.opts.customFields) {
        setCols.push("custom_fields");
        values.push(merged);
      }
      const sets = setCols.map((c, i) => `${c} = ${values[i]}`);
      // a row that would change nothing leaves the contact as it is (no write, updated_at kept, no
      // contact.updated event) and is counted as skipped, not updated: a nightly sync of 1,000 unchanged
      // contacts through the v1 bulk upsert said "updated: 1000" and sent 1,000 webhook events
      const changes = setCols.length
        ? `(${setCols.map((c) => `contacts.${c}`).join(", ")}) is distinct from (${values.join(", ")})`
        : "false";
      conflict = `do update set ${[...sets, "updated_at = now()"].join(", ")} where ${changes}`;
      if (this.opts.customFields)
        conflict += ` and (select count(*) from jsonb_object_keys(${merged})) <= ${MAX_CUSTOM_FIELDS}`;
    }
    // an update's row that leaves an opt-in, the lifecycle stage, the lead status or the lead score
    // empty (an empty cell; a JSON row without the key, or with null, that other rows have) keeps the
    // contact's stored value: the insert's defaults (email yes, SMS and calls no; lead / new / 0) are
    // for new contacts only, never a silent re-opt-in of someone who opted out or a reset of a lead
    const keepCols = KEEP_WHEN_EMPTY_COLS.filter((c) => this.opts.mappedFields.has(c as ImportField));
    const keepStored =
      this.opts.onDuplicate === "update" && keepCols.length
        ? `update crm_import_stage s set ${keepCols.map((c) => `${c} = coalesce(s.${c}, c.${c})`).join(", ")}
           from contacts c
           where c.workspace_id = $1::uuid and lower(c.email) = lower(s.email)
             and (${keepCols.map((c) => `s.${c} is null`).join(" or ")})`
        : null;
    // with a listener (events) the ids too, as two arrays in the one result row
    const ids = events
      ? `, coalesce(array_agg(id) filter (where inserted), '{}') as created_ids,
         coalesce(array_agg(id) filter (where not inserted), '{}') as updated_ids`
      : "";
    // which of the warned rows' emails were written (inserted or updated; not cut, not left as they were):
    // a join, not `= any(array)` per written row (quadratic: a 10,000-row batch of invalid phones)
    const warnedEmails = warned.map((w) => w.email.toLowerCase());
    // In update mode a row that changed nothing is not in `ins` but matched its contact: its refused
    // values (a field left empty, an invalid phone) are still reported, so the rows still staged (every
    // row the plan limit did not take out) are the ones written or matched
    const writtenFrom = this.opts.onDuplicate === "update" ? "crm_import_stage" : "ins";
    const written = warned.length
      ? `, (select coalesce(array_agg(w.e), '{}') from unnest($3::text[]) w(e) join (select lower(email) as e from ${writtenFrom}) i using (e)) as warned_written`
      : "";
    // the API key new contacts come through (the v1 bulk upsert; set on insert only): the last parameter
    const upsertParams: (string | string[])[] = warned.length
      ? [this.workspaceId, this.importId, warnedEmails]
      : [this.workspaceId, this.importId];
    const apiKeyId = this.opts.createdByApiKeyId
      ? `$${upsertParams.push(this.opts.createdByApiKeyId)}::uuid`
      : "null::uuid";
    // and the person who imported them (a JSON import in the app; a file's importer is its import's)
    const createdBy = this.opts.createdBy ? `$${upsertParams.push(this.opts.createdBy)}::uuid` : "null::uuid";
    // the contact's "imported" timeline entry is its import_id (set on insert only), not a row in
    // activities per contact. The rows go in by their conflict key in CONTACT_LOCK_ORDER (crm.queries):
    // an upsert meeting another's (or a bulk update's) contacts waits for it instead of deadlocking.
    const upsert = `with ins as (
         insert into contacts (workspace_id, import_id, created_by_api_key_id, created_by, search_indexed, ${STAGE_COLS.join(", ")})
         select $1::uuid, $2::uuid, ${apiKeyId}, ${createdBy}, ${this.opts.deferSearchIndex ? "false" : "true"}, ${cols.join(", ")} from crm_import_stage s
         order by lower(s.email) collate "C"
         on conflict (workspace_id, lower(email)) ${conflict}
         returning (xmax = 0) as inserted${events ? ", id" : ""}${warned.length ? ", email" : ""}
       )
       select count(*) filter (where inserted)::int as created, count(*) filter (where not inserted)::int as updated${ids}${written} from ins`;
    const limit = this.opts.contactLimit;
    // one transaction per batch (the staged rows stay as they were if it rolls back), run again on a
    // deadlock: with a limit, the contact-creation lock, the count, the new rows past what is left
    // taken out of the stage, and the upsert; the lock is held to the commit. With a listener, the
    // batch's webhook events are stored in it too (in savepoints: a webhook-table error is logged and
    // the batch still commits), so a process that stops after the commit has not lost them
    const { res, removed, emitted, keptOff } = await retryOnRace(async () => {
      await conn.unsafe("begin");
      try {
        let removed: string[] = [];
        if (limit) {
          await conn.unsafe(CONTACT_CREATION_LOCK_SQL, [this.workspaceId]);
          const [count] = await conn.unsafe(CONTACT_COUNT_SQL, [this.workspaceId]);
          const left = contactsLeft(limit, Number(count?.n ?? 0)) ?? 0;
          const cut = await conn.unsafe(
            `with fresh as (
               select s.ctid as id, row_number() over (order by s.ctid) as rn from crm_import_stage s
               where not exists (select 1 from contacts c where c.workspace_id = $1::uuid and lower(c.email) = lower(s.email))
             )
             delete from crm_import_stage s using fresh f where s.ctid = f.id and f.rn > $2 returning s.email`,
            [this.workspaceId, left],
          );
          removed = cut.map((r) => String(r.email));
        }
        if (keepStored) await conn.unsafe(keepStored, [this.workspaceId]);
        const keptOff = await this.keepOptOutsOff(w);
        const [res] = await conn.unsafe(upsert, upsertParams);
        const emitted = events
          ? await events.stored(batchDb(w), {
              created: ((res?.created_ids ?? []) as (string | number)[]).map(Number),
              updated: ((res?.updated_ids ?? []) as (string | number)[]).map(Number),
            })
          : null;
        // a statement that failed in the batch (its error caught by a callee that carried on) has
        // aborted the transaction, and Postgres answers the COMMIT with ROLLBACK: the batch is not
        // written, so it must not be counted as written (postgres.js `begin` rethrows such an error
        // for pool transactions; a reserved connection has no `begin`, hence this hand-run one)
        const done = await conn.unsafe("commit");
        if (done.command !== "COMMIT")
          throw new Error(
            `An import batch of ${lines.length} rows was rolled back by the database (an error inside its transaction); nothing of it was written`,
          );
        return { res, removed, emitted, keptOff };
      } catch (e) {
        await conn.unsafe("rollback").catch(() => {});
        throw e;
      }
    });
    for (const email of removed)
      this.reject(this.seen.get(email) ?? 0, limit?.reason ?? "Over the plan's contact limit", email);
    for (const k of keptOff) this.keptOptOut(k.email, k.causes);
    const writtenWarned = new Set(((res?.warned_written ?? []) as string[]).map(String));
    for (const w of warned)
      if (writtenWarned.has(w.email.toLowerCase())) this.warn(w.line, w.warnings, w.raw);
    const created = Number(res?.created ?? 0);
    const updated = Number(res?.updated ?? 0);
    this.result.created += created;
    this.result.updated += updated;
    this.result.skipped += lines.length - removed.length - created - updated;
    // the deliveries' jobs, once the events are visible (a stop before this: the stranded sweep)
    if (events && emitted) await events.committed(emitted);
  }

  async close() {
    await Promise.all(this.writers.map((w) => w.busy));
    const writers = this.writers;
    this.writers = [];
    for (const { conn } of writers) {
      try {
        await conn.unsafe("drop table if exists crm_import_stage");
        if (this.opts.deferSearchIndex) await conn.unsafe("reset pitchwise.defer_contact_words");
      } catch {
        // the connection goes back to the pool either way
      } finally {
        conn.release();
      }
    }
  }

  /** Flushes and closes; returns the totals (the listed rows in line order). */
  async finish(): Promise<ImportResult> {
    try {
      await this.flush();
    } finally {
      await this.close();
    }
    // kept rows are listed when their batch was written, after that batch's rejected rows: by line
    this.result.errors.sort((a, b) => a.line - b.line);
    return this.result;
  }
}

/**
 * The documented JSON import (`POST /api/contacts/import {contacts:[...]}`): each row is an object
 * keyed by contact field (first_name, last_name, email, phone, company, city, state, ... or name),
 * plus `custom_fields` (customFieldsSchema: stored on a new contact, merged into an existing one with
 * `update`; a row whose merge would pass MAX_CUSTOM_FIELDS is rejected with a reason).
 * Non-text values (objects, arrays) reject the row. Line numbers are 1-based row positions.
 */
export async function importRows(
  sql: Sql,
  workspaceId: string,
  rows: Record<string, unknown>[],
  onDuplicate: OnDuplicate,
  /** the plan's contact limit (importContactLimit; checked per batch under the lock), null = unlimited */
  contactLimit: ContactsLimit | null = null,
  /** the workspace's default country for phone numbers without +country (lib/phone.ts) */
  phoneCountry?: string,
  /** the contact.* webhook events, stored in each batch's transaction (ContactImporter's `events`) */
  events?: ImportEventListener,
  /**
   * who the rows come from, which the contacts they create record: the API key (`apiKeyId`, the v1
   * bulk upsert: contacts.created_by_api_key_id) or the person (`userId`, the app's JSON import:
   * contacts.created_by); updated contacts keep theirs
   */
  by: { userId?: string | null; apiKeyId?: string | null } = {},
): Promise<ImportResult> {
  const mapped = new Set<ImportField>();
  const prepared: {
    line: number;
    values: Partial<Record<ImportField, string>>;
    custom?: CustomFieldsInput;
  }[] = [];
  const wrongType: { line: number; reason: string }[] = [];
  rows.forEach((row, i) => {
    const values: Partial<Record<ImportField, string>> = {};
    let custom: CustomFieldsInput | undefined;
    let bad: string | null = null;
    for (const [k, val] of Object.entries(row ?? {})) {
      const key = k.trim().toLowerCase() as ImportField;
      if (key === ("custom_fields" as string) && val !== null && val !== undefined) {
        const parsed = customFieldsSchema.safeParse(val);
        if (parsed.success) custom = parsed.data;
        else bad = `custom_fields: ${describeZodError(parsed.error)}`;
        continue;
      }
      if (!(IMPORT_FIELDS as readonly string[]).includes(key)) continue;
      if (val === null || val === undefined) continue;
      if (typeof val === "string" || typeof val === "number" || typeof val === "boolean") {
        values[key] = String(val);
        mapped.add(key);
      } else bad = `${key} must be text, not ${Array.isArray(val) ? "a list" : typeof val}`;
    }
    if (bad) wrongType.push({ line: i + 1, reason: bad });
    else prepared.push({ line: i + 1, values, ...(custom ? { custom } : {}) });
  });
  const customFields = prepared.some((r) => r.custom);
  if (customFields && onDuplicate === "update") {
    // an existing contact's custom fields plus the row's must stay within MAX_CUSTOM_FIELDS
    const emailOf = (r: (typeof prepared)[number]) =>
      String(r.values.email ?? "")
        .trim()
        .toLowerCase();
    const stored = await selectCustomFieldsByEmail(
      sql,
      workspaceId,
      [...new Set(prepared.filter((r) => r.custom).map(emailOf))].filter(Boolean),
    );
    for (let i = prepared.length - 1; i >= 0; i--) {
      const r = prepared[i]!;
      const current = r.custom ? stored.get(emailOf(r)) : undefined;
      if (!current || !r.custom) continue;
      const n = mergedCustomFieldCount(current, r.custom);
      if (n > MAX_CUSTOM_FIELDS) {
        wrongType.push({
          line: r.line,
          reason: `custom_fields: a contact may have at most ${MAX_CUSTOM_FIELDS} custom fields; this would make ${n}`,
        });
        prepared.splice(i, 1);
      }
    }
  }
  const importer = new ContactImporter(sql, workspaceId, {
    onDuplicate,
    mappedFields: mapped,
    source: "import",
    contactLimit,
    phoneCountry,
    events,
    customFields,
    createdByApiKeyId: by.apiKeyId ?? null,
    createdBy: by.userId ?? null,
  });
  await importer.open();
  try {
    await importer.add(prepared);
    const result = await importer.finish();
    result.rows += wrongType.length;
    result.errorCount += wrongType.length;
    result.errors = [...result.errors, ...wrongType]
      .sort((a, b) => a.line - b.line)
      .slice(0, MAX_STORED_ERRORS);
    return result;
  } catch (e) {
    await importer.close();
    throw e;
  }
}

/** Longest CSV field (characters) an import reads; a longer one rejects its row. */
export const MAX_FIELD_CHARS = 64 * 1024;
/** Longest CSV record (characters, all fields and delimiters) an import reads; a longer one rejects its row. */
export const MAX_ROW_CHARS = 256 * 1024;
/**
 * Stands in for a record the limiter dropped: one cell starting with NUL (a real row holding NUL
 * is rejected anyway), then the kind (UnreadKind) and, for a broken quote, `:` and a URI-encoded
 * excerpt of the field (so that it holds no delimiter, quote or line end).
 */
const UNREAD_MARK = "\u0000pitchwise-unread:";

/**
 * Why the limiter dropped a record: a field over the field limit, a record over the row limit, a
 * quoted field with a quote in the middle (`"Bobby" Jones`), a quoted field never closed.
 */
type UnreadKind = "field" | "row" | "quote" | "unclosed";

/** The line ends papaparse accepts as its `newline` option. */
export type CsvNewline = "\n" | "\r\n" | "\r";

/**
 * Keeps a CSV text stream's records bounded and well formed before papaparse sees them, so that
 * import memory and time stay linear whatever the file: papaparse holds a record until it ends
 * (and parses it again with every chunk), so one 95 MB field cost gigabytes and minutes.
 *
 * The limiter reads quotes and line ends exactly as papaparse does with the same `delimiter` and
 * `newline` (which the caller passes to papaparse too): a record ends at `newline` only (in a
 * `\n` file a lone CR is field text, as papaparse reads it); a field starting with `"` runs to a
 * `"` followed by optional white space and then the delimiter, the line end or the end of the
 * file; `""` inside is a quote. Where papaparse would read on past a broken quote (InvalidQuotes,
 * MissingQuotes), swallowing the following lines into one field, the limiter drops the record
 * instead, so papaparse only ever sees well-formed records of bounded size:
 * - a field or record over `maxField` / `maxRow` characters outside quotes: the record is
 *   replaced by one UNREAD_MARK line and the rest of it skipped as it streams (to its end);
 * - a quoted field that is broken: a quote in it followed by anything else (`"Bobby" Jones`), no
 *   closing quote before the end of the file, or longer than `maxField` (or its record longer than
 *   `maxRow`): the record is replaced by one UNREAD_MARK line and reading resumes on the line
 *   after the one where its opening quote stands (the rest of that line when the quote breaks on
 *   it), so the rows that a stray quote would have swallowed are read as rows. The text read again
 *   is at most `maxRow` characters per dropped record.
 * Holds at most one record (<= maxRow characters). Records within the rules pass through
 * unchanged, and every dropped record is one marker line, so record numbers stay the file's.
 * `push(text)` returns the text that is safe to parse; `end()` the rest.
 */
export function createRecordLimiter(
  delimiter: string,
  opts: { maxField?: number; maxRow?: number; newline?: CsvNewline } = {},
): { push(text: string): string; end(): string } {
  const maxField = opts.maxField ?? MAX_FIELD_CHARS;
  const maxRow = opts.maxRow ?? MAX_ROW_CHARS;
  const newline = opts.newline ?? "\n";
  const delim = delimiter.charCodeAt(0);
  const QUOTE = 34;
  const CR = 13;
  const LF = 10;
  const endCode = newline === "\r" ? CR : LF;
  const crlf = newline === "\r\n";
  const SPACE = /\s/;
  let held = ""; // the current record's text so far (from earlier chunks), when not skipping
  let rowLen = 0;
  let fieldLen = 0;
  let inQuotes = false;
  let closing = false; // inside quotes, a quote seen: closing, or the first of ""
  let closingSpaces = false; // ... followed by white space only so far (papaparse's extraSpaces)
  let quoteStart = 0; // record position of the open quoted field's opening quote
  let openNl = -1; // record position just after the first line end inside that field, or -1
  let skipping = false; // dropping the rest of an oversized record, to its end
  let skipLine = false; // dropping the rest of a physical line (a broken quote on its first line)
  let prev = LF; // the previous character (a CRLF line end is an LF after a CR)
  const mark = (kind: UnreadKind, excerpt = "") =>
    `${UNREAD_MARK}${kind}${excerpt ? `:${encodeURIComponent(excerpt)}` : ""}${newline}`;
  const excerptOf = (rec: string, at: number) =>
    rec
      .slice(Math.max(quoteStart, at - 40), at + 20)
      .replace(/[\r\n]+/g, " ")
      .trim();
  const resetRecord = () => {
    rowLen = 0;
    fieldLen = 0;
    inQuotes = false;
    closing = false;
    closingSpaces = false;
    openNl = -1;
  };

  /** Reads `text` (see createRecordLimiter); the unfinished record goes to `held`. */
  function run(text: string): string {
    let out = "";
    // texts to read, last first: a broken quoted field's lines are read again before the rest
    const stack: { s: string; from: number }[] = [{ s: text, from: 0 }];
    // the reading position, shared with breakQuoted (declared once: a closure made per character
    // cost ~5 s on a 17 MB file, bench:crm import 1.85x -> 3.30x raw COPY)
    let s = "";
    let i = 0;
    let recordStart = 0; // start of the current record within `s` (when not skipping)
    let broke = false;
    let isEnd = false;
    /** Drops the record with a broken quoted field (or over a limit inside quotes) at `i`. */
    const breakQuoted = (kind: UnreadKind) => {
      if (skipping) {
        // the record was dropped already: skip to the end of this line
        skipping = false;
        skipLine = !isEnd;
        resetRecord();
        recordStart = i + 1;
        return;
      }
      const rec = held + s.slice(recordStart, i + 1);
      const at = held.length + i - recordStart;
      out += mark(kind, kind === "quote" ? excerptOf(rec, at) : "");
      held = "";
      const from = openNl;
      resetRecord();
      if (from >= 0 && from < rec.length) {
        // read the lines after the opening quote's line again, then the rest of `s`
        stack.push({ s, from: i + 1 }, { s: rec.slice(from), from: 0 });
        prev = newline.charCodeAt(newline.length - 1);
        broke = true;
      } else if (from >= 0 || isEnd) {
        recordStart = i + 1; // the broken field's line ended right here
      } else {
        skipLine = true;
      }
    };
    for (let frame = stack.pop(); frame; frame = stack.pop()) {
      s = frame.s;
      recordStart = frame.from;
      broke = false;
      for (i = frame.from; i < s.length && !broke; i++) {
        const c = s.charCodeAt(i);
        isEnd = crlf ? c === LF && prev === CR : c === endCode;
        prev = c;
        if (skipLine) {
          if (isEnd) {
            skipLine = false;
            recordStart = i + 1;
            resetRecord();
          }
          continue;
        }
        if (inQuotes) {
          if (closing) {
            if (c === QUOTE && !closingSpaces) {
              closing = false; // "" inside a quoted field
              fieldLen++;
              rowLen++;
              continue;
            }
            if (c === delim) {
              inQuotes = false;
              closing = false;
              fieldLen = 0;
              rowLen++;
              continue;
            }
            if (!isEnd) {
              if (SPACE.test(s[i] as string)) {
                closingSpaces = true;
                rowLen++;
                continue;
              }
              breakQuoted("quote");
              continue;
            }
            inQuotes = false;
            closing = false;
            // c ends the record: read below
          } else {
            if (c === QUOTE) {
              closing = true;
              closingSpaces = false;
              rowLen++;
              continue;
            }
            if (isEnd && openNl < 0 && !skipping) openNl = held.length + i + 1 - recordStart;
            fieldLen++;
            rowLen++;
            if (fieldLen > maxField || rowLen > maxRow) {
              if (!skipping) breakQuoted(fieldLen > maxField ? "field" : "row");
            }
            continue;
          }
        }
        if (isEnd) {
          if (skipping) skipping = false;
          else {
            out += held + s.slice(recordStart, i + 1);
            held = "";
          }
          recordStart = i + 1;
          resetRecord();
          continue;
        }
        rowLen++;
        if (c === delim) fieldLen = 0;
        else if (c === QUOTE && fieldLen === 0) {
          inQuotes = true;
          quoteStart = held.length + i - recordStart;
          openNl = -1;
        } else fieldLen++;
        if (!skipping && (fieldLen > maxField || rowLen > maxRow)) {
          out += mark(fieldLen > maxField ? "field" : "row");
          held = "";
          skipping = true;
        }
      }
      if (!broke && !skipping && !skipLine) held += s.slice(recordStart);
    }
    return out;
  }

  return {
    push: run,
    end() {
      let out = "";
      for (;;) {
        if (skipping || skipLine || !inQuotes || closing) {
          // a closing quote and white space at the end of the file: papaparse wants the quote last
          const rest =
            skipping || skipLine ? "" : inQuotes && closing && closingSpaces ? held.trimEnd() : held;
          held = "";
          skipping = false;
          skipLine = false;
          resetRecord();
          return out + rest;
        }
        // a quoted field still open at the end of the file: dropped, its later lines read again
        const rec = held;
        held = "";
        out += mark("unclosed", excerptOf(rec, quoteStart + 40));
        const from = openNl;
        resetRecord();
        if (from < 0 || from >= rec.length) return out;
        prev = newline.charCodeAt(newline.length - 1);
        out += run(rec.slice(from));
      }
    },
  };
}

/** The reason a record the limiter dropped is rejected, or null for an ordinary record. */
function unreadReason(cells: string[], delimiter: string): string | null {
  const first = cells[0];
  if (cells.length !== 1 || !first?.startsWith(UNREAD_MARK)) return null;
  const [kind, excerpt] = first.slice(UNREAD_MARK.length).split(":") as [UnreadKind, string | undefined];
  const shown = excerpt ? ` (${decodeURIComponent(excerpt)})` : "";
  const sep = delimiter === "\t" ? "tab" : delimiter === "," ? "comma" : `'${delimiter}'`;
  switch (kind) {
    case "field":
      return `A field is longer than ${MAX_FIELD_CHARS.toLocaleString("en-US")} characters; the row was not read`;
    case "row":
      return `The row is longer than ${MAX_ROW_CHARS.toLocaleString("en-US")} characters; it was not read`;
    case "quote":
      return `The row has a quote in the middle of a field${shown}: a field that starts with a quote must end with a quote followed by a ${sep} or the end of the line, and a quote inside it must be doubled (""). The row was not read; the lines after it were read as rows`;
    default:
      return `The row has a field that starts with a quote and is never closed${shown}. The row was not read; the lines after it were read as rows`;
  }
}

/** Occurrences of `part` in `s`. */
function countOf(s: string, part: string): number {
  let n = 0;
  for (let i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + part.length)) n++;
  return n;
}

/**
 * Votes of `b` for UTF-8: its well-formed multi-byte UTF-8 sequences (`valid`) and its non-ASCII
 * bytes that start none (`invalid`); a sequence cut by the end of `b` counts for neither.
 * `nonAscii`: b holds a byte over 0x7F. The import reads a file as UTF-8 when valid >= invalid
 * (isolated bad bytes in a UTF-8 file), else as Windows-1252 (whose accented letters are invalid UTF-8).
 */
export function utf8Votes(b: Buffer): { valid: number; invalid: number; nonAscii: boolean } {
  let valid = 0;
  let invalid = 0;
  let nonAscii = false;
  for (let i = 0; i < b.length; ) {
    const x = b[i] as number;
    if (x < 0x80) {
      i++;
      continue;
    }
    nonAscii = true;
    const n = x >= 0xc2 && x <= 0xdf ? 1 : x >= 0xe0 && x <= 0xef ? 2 : x >= 0xf0 && x <= 0xf4 ? 3 : 0;
    if (n && i + n >= b.length) break;
    let ok = n > 0;
    for (let k = 1; ok && k <= n; k++) ok = ((b[i + k] as number) & 0xc0) === 0x80;
    if (ok) {
      valid++;
      i += n + 1;
    } else {
      invalid++;
      i++;
    }
  }
  return { valid, invalid, nonAscii };
}

/**
 * Streams a CSV file from disk into `importer`: sniffs the encoding (BOM, UTF-16, UTF-8, else
 * Latin-1), parses with papaparse (quotes, embedded delimiters and newlines, CRLF; the delimiter
 * , ; TAB or | and the line end are guessed from the first rows and fixed for the file), behind
 * createRecordLimiter (a row with an over-long field or a broken quote is rejected with its line and
 * reason, the rows after it read; papaparse's own errors reject their row too), maps columns with
 * `mapping` or the header rules, and reports progress
 * (bytes read) after every batch. The header row is line 1.
 * @throws AppError UNSUPPORTED_MEDIA_TYPE when the file is binary.
 */
export async function streamCsvFile(
  filePath: string,
  makeImporter: (mapping: ColumnMapping) => ContactImporter,
  opts: { mapping?: ColumnMapping; onProgress?: (bytes: number, result: ImportResult) => Promise<void> } = {},
): Promise<ImportResult> {
  const fd = await fs.promises.open(filePath, "r");
  const head = Buffer.alloc(65536);
  const { bytesRead } = await fd.read(head, 0, head.length, 0);
  await fd.close();
  const sniffed = sniffEncoding(head.subarray(0, bytesRead));
  const { bomLength } = sniffed;
  // UTF-8 or Windows-1252 (no BOM, not UTF-16): decided by the first bytes that are not ASCII
  // (utf8Votes; until then both read the same), so a stray byte in a UTF-8 file or a Windows-1252
  // file whose first 64 KB are ASCII is read in the right encoding
  let encoding = sniffed.encoding;
  let decided = bomLength > 0 || encoding.startsWith("utf-16");
  if (!decided) {
    const v = utf8Votes(head.subarray(0, bytesRead));
    if (v.nonAscii) {
      encoding = v.valid >= v.invalid ? "utf-8" : "windows-1252";
      decided = true;
    }
  }
  // the delimiter and line end papaparse would guess from the first rows, fixed for the whole file
  // so that the record limiter and the parser agree on where fields and records end
  const guess = Papa.parse<string[]>(createDecoder(encoding)(head.subarray(bomLength, bytesRead)), {
    preview: 10,
  }).meta;
  const delimiter = guess.delimiter || ",";
  const newline: CsvNewline = (["\r\n", "\n", "\r"] as const).find((n) => n === guess.linebreak) ?? "\n";
  let decode = decided ? createDecoder(encoding) : null;
  // bytes the encoding could not read (U+FFFD beyond the file's own): for each imported field, the
  // rows whose value of it holds U+FFFD are named (the first 1,000 lines per field, and how many)
  let unreadable = false;
  const unreadableLines = new Map<ImportField, { lines: number[]; count: number }>();
  const decodeChunk = (chunk: Buffer) => {
    if (!decode) {
      const v = utf8Votes(chunk);
      if (!v.nonAscii) return chunk.toString("latin1");
      encoding = v.valid >= v.invalid ? "utf-8" : "windows-1252";
      decode = createDecoder(encoding);
    }
    const out = decode(chunk);
    if (!unreadable && encoding === "utf-8" && out.includes("\uFFFD"))
      unreadable = countOf(out, "\uFFFD") > countOf(chunk.toString("latin1"), "\u00EF\u00BF\u00BD");
    return out;
  };
  const limiter = createRecordLimiter(delimiter, { newline });
  let bytes = bomLength;
  const file = fs.createReadStream(filePath, { start: bomLength, highWaterMark: 1024 * 1024 });
  async function* text() {
    for await (const chunk of file) {
      bytes += (chunk as Buffer).length;
      const s = limiter.push(decodeChunk(chunk as Buffer));
      if (s) yield s;
    }
    const tail = limiter.push(decode ? decode(null) : "") + limiter.end();
    if (tail) yield tail;
  }
  let importer: ContactImporter | null = null;
  let line = 0;
  let headers: string[] | null = null;
  let mapping: ColumnMapping = {};
  let entries: [ImportField, number][] = [];
  let failed: unknown = null;
  try {
    await new Promise<void>((resolve, reject) => {
      Papa.parse<string[]>(Readable.from(text(), { objectMode: true }) as unknown as NodeJS.ReadableStream, {
        // blank rows are read (and skipped below) so that they are counted: a reported line is the
        // row a spreadsheet shows (with "greedy" a row under a blank line was reported one too early)
        skipEmptyLines: false,
        delimiter,
        newline,
        chunk(results, parser) {
          parser.pause();
          (async () => {
            const batch: { line: number; values: Partial<Record<ImportField, string>>; cells: string[] }[] =
              [];
            // what papaparse could not read (the limiter passes it well-formed records only, so
            // this is a safety net): such a row is rejected with papaparse's reason, never imported
            const parseErrors = new Map<number, string>();
            for (const e of results.errors)
              if (typeof e.row === "number" && !parseErrors.has(e.row))
                parseErrors.set(e.row, `The row could not be read (${e.message}); it was not imported`);
            for (const [index, cells] of results.data.entries()) {
              line++;
              if (cells.every((c) => !String(c).trim())) continue; // a blank row, as "greedy" skipped
              const unread = unreadReason(cells, delimiter) ?? parseErrors.get(index) ?? null;
              if (unread && !headers)
                throw new AppError("BAD_REQUEST", `The header row cannot be read: ${unread.toLowerCase()}`);
              if (unread) {
                if (importer && batch.length) await importer.add(batch.splice(0));
                importer?.rejectRow(line, unread);
                continue;
              }
              if (!headers) {
                headers = cells.map((c) => String(c));
                mapping =
                  opts.mapping && Object.keys(opts.mapping).length ? opts.mapping : matchHeaders(headers);
                entries = Object.entries(mapping).filter(([, i]) => typeof i === "number" && i >= 0) as [
                  ImportField,
                  number,
                ][];
                importer = makeImporter(mapping);
                await importer.open();
                continue;
              }
              const values: Partial<Record<ImportField, string>> = {};
              for (const [field, idx] of entries) {
                const cell = cells[idx];
                if (cell === undefined) continue;
                values[field] = cell;
                if (unreadable && cell.includes("\uFFFD")) {
                  const seen = unreadableLines.get(field) ?? { lines: [], count: 0 };
                  if (seen.lines.length < 1000) seen.lines.push(line);
                  seen.count++;
                  unreadableLines.set(field, seen);
                }
              }
              batch.push({ line, values, cells });
            }
            if (importer && batch.length) await importer.add(batch);
            if (importer && opts.onProgress) await opts.onProgress(bytes, importer.result);
          })().then(
            () => parser.resume(),
            (e) => {
              failed = e;
              parser.abort();
              reject(e);
            },
          );
        },
        complete: () => (failed ? reject(failed) : resolve()),
        error: (e: Error) => reject(e),
      });
    });
    if (!importer) return { rows: 0, created: 0, updated: 0, skipped: 0, errorCount: 0, errors: [] };
    const result = await (importer as ContactImporter).finish();
    const encodingName = encoding === "utf-8" ? "UTF-8" : encoding;
    for (const field of entries.map(([f]) => f)) {
      const seen = unreadableLines.get(field);
      if (!seen) continue;
      const lines = `${seen.count === 1 ? "line" : "lines"} ${seen.lines.slice(0, 50).join(", ")}${seen.count > 50 ? ` and ${(seen.count - 50).toLocaleString("en-US")} more` : ""}`;
      result.errors.push({
        line: seen.lines[0] as number,
        reason: `${IMPORT_FIELD_LABELS[field]}: some bytes are not valid ${encodingName} and were read as \uFFFD, on ${lines}: contacts imported as read; check them, or save the file as UTF-8 and import it again`,
        kept: true,
        field,
        kind: "encoding",
      });
    }
    if (opts.onProgress) await opts.onProgress(bytes, result);
    return result;
  } catch (e) {
    if (importer) await (importer as ContactImporter).close();
    throw e;
  }
}

/** Rows per UPDATE of the search catch-up (one short transaction each). */
export const SEARCH_INDEX_CHUNK = 10_000;

/**
 * The follow-up of a file import that ran with `deferSearchIndex`: adds the words of the contacts
 * import `importId` created (names and companies) to the user's search dictionary `contact_words`
 * in one set-based statement, then puts the user's contacts that are not in the trigram index yet
 * (`search_indexed` false: this import's, and any an interrupted import left) into it, in
 * transactions of SEARCH_INDEX_CHUNK rows so that no long transaction holds them.
 * Returns `{ words, indexed }`: new dictionary words and contacts indexed.
 */
export async function indexImportSearch(
  sql: Sql,
  workspaceId: string,
  importId: string,
): Promise<{ words: number; indexed: number }> {
  const res = await sql`
    insert into contact_words (workspace_id, word)
    select distinct c.workspace_id, w
    from contacts c,
      regexp_split_to_table(lower(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '') || ' ' || coalesce(c.company, '')), '[^[:alnum:]]+') w
    where c.workspace_id = ${workspaceId} and c.import_id = ${importId}
      and length(w) between 3 and 40 and w ~ '[[:alpha:]]'
    order by 1, 2
    on conflict do nothing`;
  // two connections take chunks side by side (SKIP LOCKED: never the same rows); each stops when it
  // finds less than a full chunk free
  const worker = async () => {
    let n = 0;
    for (;;) {
      const chunk = await sql`
        update contacts set search_indexed = true
        where id in (
          select id from contacts where workspace_id = ${workspaceId} and not search_indexed
          order by id limit ${SEARCH_INDEX_CHUNK}
          for update skip locked
        )`;
      n += chunk.count;
      if (chunk.count < SEARCH_INDEX_CHUNK) return n;
    }
  };
  const counts = await Promise.all([worker(), worker()]);
  return { words: res.count, indexed: counts[0] + counts[1] };
}
