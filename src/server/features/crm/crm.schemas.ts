import { z } from "zod";
import { LEAD_STATUSES, LIFECYCLE_STAGES, type SegmentFilter } from "../../db/schema";
import { isContactEmail } from "../../lib/email";
import { limitParam, pageParam, queryInt, recordId } from "../../lib/validate";
import { isTimeZone } from "../compliance/quiet-hours";

const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .transform((s) => s.trim())
    .nullish();

/** Optional boolean that also accepts "true"/"false"/"yes"/"no"/"1"/"0" (forms and CSVs). */
const looseBool = z.preprocess((v) => {
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (["true", "yes", "y", "1"].includes(s)) return true;
    if (["false", "no", "n", "0"].includes(s)) return false;
  }
  return v;
}, z.boolean().optional());

/**
 * True when Intl knows `zone` as a time zone (IANA names such as "America/Chicago"): quiet hours'
 * own check (compliance quiet-hours), whose cached per-zone formatter keeps an import's rows cheap.
 */
export { isTimeZone };

/** What a contact's time zone must be (the rule's sentence, after the field's name). */
export const TIME_ZONE_RULE = "must be a time zone name such as America/Chicago (IANA time zone database)";

/**
 * A contact's time zone: an IANA name Intl knows, or blank. Quiet hours read it first (compliance
 * quiet-hours resolveTimeZone); an unknown name ("Mars/Base") was stored and then silently ignored.
 * The CSV and JSON imports apply the same rule (isTimeZone) in crm.import validateImportRow.
 */
const timeZoneText = text(64).refine((s) => !s || isTimeZone(s), TIME_ZONE_RULE);

/**
 * True for a web address a contact may hold: blank, a bare domain ("example.com/about") or an
 * http(s) URL, whose host is a domain name with a dot (WHATWG URL parsing) and which holds no
 * whitespace. Any other scheme (javascript:, data:, vbscript:, file:) is refused: the value is shown
 * to people and sent to other systems (exports, webhooks, the API) where it may become a link. Text
 * that is no address at all ("not a url", "n/a") is refused too: it was stored and shown as a link.
 */
export function isWebAddress(s: string): boolean {
  if (!s) return true;
  if (/\s/.test(s)) return false;
  const scheme = /^[a-z][a-z0-9+-]*:/i.test(s);
  if (scheme && !/^https?:\/\//i.test(s)) return false;
  try {
    const host = new URL(scheme ? s : `https://${s}`).hostname;
    return /^[^.]+(\.[^.]+)+$/.test(host.replace(/\.$/, ""));
  } catch {
    return false;
  }
}

/** What a contact's website, LinkedIn and Facebook URLs must be (the rule's sentence, after the field's name). */
export const WEB_ADDRESS_RULE =
  "must be a web address starting with https:// or http:// (or a domain such as example.com)";

/** The contact fields holding a web address (isWebAddress), here and in the imports. */
export const WEB_ADDRESS_FIELDS = ["website", "linkedin_url", "facebook_url"] as const;

/** A web address field (isWebAddress) of at most `max` characters. */
const webAddress = (max: number) => text(max).refine((s) => !s || isWebAddress(s), WEB_ADDRESS_RULE);

/** A score (0-100): a JSON number or decimal digits, never true, [70] or "" (z.coerce took those as 1, 70 and 0). */
const score = queryInt(
  z.number({ error: "must be a whole number from 0 to 100" }).int("must be a whole number").min(0).max(100),
).optional();

/** A custom field's value as stored (contacts.custom_fields jsonb): text, a number or true/false. */
export type CustomFieldValue = string | number | boolean;
/** At most this many custom fields per contact (after a merge: PATCH, bulk upsert). */
export const MAX_CUSTOM_FIELDS = 50;
/** Longest custom field name (characters): a letter, then letters, digits and underscores. */
export const MAX_CUSTOM_FIELD_KEY = 64;
/** Longest custom field text value (characters). */
export const MAX_CUSTOM_FIELD_TEXT = 500;
const CUSTOM_KEY_RE = new RegExp(`^[A-Za-z][A-Za-z0-9_]{0,${MAX_CUSTOM_FIELD_KEY - 1}}$`);
const CUSTOM_KEY_RULE = `start with a letter and hold only letters, digits and underscores (at most ${MAX_CUSTOM_FIELD_KEY} characters)`;

/**
 * The custom field names of `keys` that share their lower-cased form with another (`Tier`, `tier`),
 * grouped: `[["Tier", "tier"]]`; empty when no two differ only in case. A contact holds one field per
 * name whatever its case (as HubSpot's and GoHighLevel's custom field keys), since merge tags look
 * custom fields up case-insensitively (`{{tier}}`).
 */
export function customFieldCaseCollisions(keys: Iterable<string>): string[][] {
  const byLower = new Map<string, string[]>();
  for (const k of keys) {
    const group = byLower.get(k.toLowerCase());
    if (group) group.push(k);
    else byLower.set(k.toLowerCase(), [k]);
  }
  return [...byLower.values()].filter((g) => g.length > 1);
}

/**
 * A contact's custom fields as written (spec section 3: Contact custom_fields): an object of field
 * names (CUSTOM_KEY_RE: usable as merge tags, `{{industry}}`) to text (at most 500 characters), a
 * number or true/false; null removes that field on an update (and is dropped on create). Names are
 * case-insensitive: two names of one object that differ only in case (`Tier`, `tier`) are refused,
 * naming them, and on an update a name replaces the stored field of the same name in any case
 * (crm.queries CUSTOM_FIELDS_MERGE). At most MAX_CUSTOM_FIELDS names per request; the merged result
 * is checked by the service.
 */
export const customFieldsSchema = z
  .record(
    z.string().regex(CUSTOM_KEY_RE, {
      error: (iss) =>
        `Custom field name ${typeof iss.input === "string" ? `'${iss.input.slice(0, 70)}' ` : ""}must ${CUSTOM_KEY_RULE}`,
    }),
    z.union(
      [
        z
          .string()
          .max(
            MAX_CUSTOM_FIELD_TEXT,
            `custom field values must be at most ${MAX_CUSTOM_FIELD_TEXT} characters`,
          ),
        z.number(),
        z.boolean(),
        z.null(),
      ],
      { error: "custom field values must be text, a number, true/false or null" },
    ),
    {
      error: (iss) =>
        iss.code === "invalid_type" ? "custom_fields must be an object of field names to values" : undefined,
    },
  )
  .refine((o) => Object.keys(o).length <= MAX_CUSTOM_FIELDS, {
    message: `custom_fields may hold at most ${MAX_CUSTOM_FIELDS} fields`,
  })
  .superRefine((o, ctx) => {
    const [first] = customFieldCaseCollisions(Object.keys(o));
    if (first)
      ctx.addIssue({
        code: "custom",
        message: `Custom field names ${first.map((k) => `'${k}'`).join(" and ")} differ only in case; a contact has one field per name whatever its case. Send one of them.`,
      });
  })
  .describe(
    `custom fields: names (which ${CUSTOM_KEY_RULE}) to text (at most ${MAX_CUSTOM_FIELD_TEXT} characters), ` +
      `numbers or true/false, at most ${MAX_CUSTOM_FIELDS} per contact; on an update the given ` +
      "fields are set and the others kept, null removes one; names are case-insensitive (two differing " +
      "only in case are refused; `tier` replaces a stored `Tier`)",
  );
export type CustomFieldsInput = z.output<typeof customFieldsSchema>;

/** Custom fields without their null (removed) entries. */
export function withoutNullFields(f: CustomFieldsInput): Record<string, CustomFieldValue> {
  const out: Record<string, CustomFieldValue> = {};
  for (const [k, v] of Object.entries(f)) if (v !== null) out[k] = v;
  return out;
}

/**
 * Longest value (characters) of each text field of a contact: what create/update accept
 * (contactFieldsSchema) and what the CSV and JSON imports keep (crm.import validateImportRow leaves a
 * longer value out with a warning), so that an imported contact can always be saved by the edit
 * form. One source of truth: change a limit here.
 */
export const CONTACT_TEXT_LIMITS = {
  first_name: 100,
  last_name: 100,
  phone: 40,
  mobile: 40,
  company: 200,
  job_title: 200,
  website: 500,
  street_address: 300,
  city: 100,
  state: 100,
  postal_code: 20,
  country: 100,
  lead_source: 100,
  preferred_language: 50,
  timezone: 64,
  linkedin_url: 500,
  twitter_handle: 100,
  facebook_url: 500,
  instagram_handle: 100,
} as const;
const L = CONTACT_TEXT_LIMITS;

/** Every editable Contact field (spec section 3: Contact), snake_case as in the REST API. */
export const contactFieldsSchema = z.object({
  first_name: text(L.first_name),
  last_name: text(L.last_name),
  // lower-cased and in Unicode NFC, the form contacts' emails are stored in, and the addresses an
  // import accepts (lib/email isContactEmail): a contact an import stored can be saved from its form
  email: z
    .string()
    .trim()
    .normalize("NFC")
    .max(254)
    .transform((s) => s.toLowerCase())
    .pipe(z.string().refine((s) => s === "" || isContactEmail(s), "Please enter a valid email address"))
    .nullish(),
  phone: text(L.phone),
  mobile: text(L.mobile),
  company: text(L.company),
  job_title: text(L.job_title),
  website: webAddress(L.website),
  street_address: text(L.street_address),
  city: text(L.city),
  state: text(L.state),
  postal_code: text(L.postal_code),
  country: text(L.country),
  lifecycle_stage: z
    .enum(LIFECYCLE_STAGES, { error: `must be one of ${LIFECYCLE_STAGES.join(", ")}` })
    .optional(),
  lead_status: z.enum(LEAD_STATUSES, { error: `must be one of ${LEAD_STATUSES.join(", ")}` }).optional(),
  lead_source: text(L.lead_source),
  lead_score: score,
  engagement_score: score,
  email_opt_in: looseBool,
  sms_opt_in: looseBool,
  call_opt_in: looseBool,
  preferred_language: text(L.preferred_language),
  timezone: timeZoneText,
  linkedin_url: webAddress(L.linkedin_url),
  twitter_handle: text(L.twitter_handle),
  facebook_url: webAddress(L.facebook_url),
  instagram_handle: text(L.instagram_handle),
  custom_fields: customFieldsSchema.optional(),
});
export type ContactFields = z.output<typeof contactFieldsSchema>;
export const CONTACT_FIELD_NAMES = Object.keys(contactFieldsSchema.shape) as (keyof ContactFields)[];

/**
 * POST /api/contacts: first name and email required (spec section 5, Add Contact). Closed, as
 * updateContactSchema: an unknown field (`customFields`, `stage`) is a 400 naming it.
 */
export const createContactSchema = contactFieldsSchema
  .extend({
    first_name: z
      .string({ error: (iss) => (iss.input == null ? "First name is required" : "First name must be text") })
      .trim()
      .min(1, "First name is required")
      .max(100, "First name must be at most 100 characters"),
    email: z
      .string({ error: (iss) => (iss.input == null ? "Email is required" : "Email must be text") })
      .trim()
      .toLowerCase()
      .normalize("NFC")
      .min(1, "Email is required")
      .max(254, "Email must be at most 254 characters")
      .pipe(z.string().refine(isContactEmail, "Please enter a valid email address")),
  })
  .strict();

/**
 * PUT /api/contacts/{id} (and tRPC crm.update's data): any subset of the fields. Closed: an unknown
 * field (`stage`, `lifecycleStage`) is a 400 naming it ("This field is not accepted here: stage"),
 * never a 200 that changed nothing.
 */
export const updateContactSchema = contactFieldsSchema.strict();

/**
 * A contact's id in a tRPC input: a number or decimal digits (lib/validate recordId); a number no
 * contact can have (0, 99999999999999999999) is "Contact not found", as for any unknown id.
 */
export const contactIdSchema = recordId("Contact id");

/**
 * An optional tag filter read from a query string: a tag's id (a positive safe integer) as decimal
 * digits (queryInt) or, from a typed caller, a number. `param` is the parameter's name as the route
 * spells it (GET /api/contacts `tag`, GET /api/v1/contacts `tag_id`) and starts every message, e.g.
 * "tag_id must be a tag's id, written in digits (such as 12)".
 */
export function tagIdParam(param: string) {
  return queryInt(
    z
      .number({ error: `${param} must be a tag's id, written in digits (such as 12)` })
      .int(`${param} must be a whole number`)
      .positive(`${param} must be a tag's id`)
      .max(Number.MAX_SAFE_INTEGER, `${param} must be a tag's id`)
      .optional(),
  );
}

/**
 * GET /api/contacts query (spec section 7), also the CSV export's and tRPC `crm.list`'s input.
 * `limit` 50 default, 200 max. `page`, `limit` and `tag` given as text (a query string) must be
 * decimal digits (queryInt: `limit=1e2` or `page=0x10` is a 400 naming the parameter, not 100 or 16);
 * tRPC callers send numbers. The one leniency is the spec-era client's: an empty `stage=` or
 * `status=` (a filter form left on "all") means no filter.
 */
export const listContactsSchema = z.object({
  search: z.string().max(200).optional(),
  stage: z.enum(LIFECYCLE_STAGES).or(z.literal("")).optional(),
  status: z.enum(LEAD_STATUSES).or(z.literal("")).optional(),
  tag: tagIdParam("tag"),
  page: pageParam(1_000_000),
  limit: limitParam(),
});
export type ListContactsInput = z.input<typeof listContactsSchema>;
/**
 * GET /api/contacts' query string, closed: a parameter not in listContactsSchema (`?lifecycle_stage=`
 * where the screen's name is `stage`) is a 400 naming it ("This field is not accepted here:
 * lifecycle_stage"), never a filter silently ignored. The CSV export (GET /api/contacts/export.csv) and
 * tRPC `crm.list` (every key optional) are closed the same way.
 */
export const listContactsQuerySchema = listContactsSchema.strict();

/**
 * How a campaign reaches a contact: "email" (its email address) or "phone" (a text, call or ringless
 * voicemail to its phone or mobile). crm.queries reachableWhere says who is reachable.
 */
export const contactReachSchema = z.enum(["email", "phone"]);
export type ContactReach = z.infer<typeof contactReachSchema>;

/**
 * A contacts-list filter: a segment's filter, plus, for a campaign builder's contact picker (its
 * list and its "select all N matching" audience), `reachable`: only the contacts that channel can
 * reach (crm.queries reachableWhere). Never stored: saved segments hold a SegmentFilter
 * (segmentFilterSchema refuses the key).
 */
export type ListFilter = SegmentFilter & { reachable?: ContactReach };

/**
 * tRPC `crm.list`'s input: listContactsQuerySchema, every key optional, plus `reachable`, with which
 * a campaign builder's contact picker lists only the contacts that channel can reach (crm.search
 * listContacts). Closed like the query string; GET /api/contacts has no such key.
 */
export const listContactsTrpcSchema = listContactsQuerySchema.partial().extend({
  reachable: contactReachSchema.optional(),
});

/**
 * A segment's filter (saved segments, bulk operations over "all N matching", API v1 audiences):
 * `{search?, lifecycle_stage?, lead_status?, tag_id?}`, every condition ANDed, `{}` = every contact.
 * Closed: an unknown key is a 400 naming it ("This field is not accepted here: filter.stage"). Were it
 * dropped, `{"stage": "customer"}` (the list screen's and campaign audiences' name) would read as `{}`
 * and a bulk delete or a saved segment would reach every contact of the workspace.
 */
export const segmentFilterSchema = z
  .object({
    search: z.string().max(200).optional(),
    lifecycle_stage: z.enum(LIFECYCLE_STAGES).optional(),
    lead_status: z.enum(LEAD_STATUSES).optional(),
    tag_id: z.number().int().positive().optional(),
  })
  .strict();

/**
 * An id in a request body: a JSON number or decimal digits (lib/validate queryInt), never true, [2]
 * or " 3 ", which z.coerce took as 1, 2 and 3 and so acted on contacts nobody named.
 */
const bodyId = (sentence: string) =>
  queryInt(
    z.number({ error: sentence }).int(sentence).positive(sentence).max(Number.MAX_SAFE_INTEGER, sentence),
  );

/**
 * POST /api/contacts/bulk/operation (spec section 7 "Bulk operations"): `contactIds` or `filter`
 * (+ `excludeIds`), never both. Closed, `data` too: an unknown key (`exclude_ids`, `data.stage`) is a
 * 400 naming it, not a part of the request silently dropped.
 */
export const bulkOperationSchema = z
  .strictObject({
    contactIds: z
      .array(bodyId("contactIds must be a list of contact ids"), {
        error: "contactIds must be a list of contact ids",
      })
      .max(100_000, "At most 100,000 contacts at a time")
      .optional(),
    /** bulk over a whole filter result instead of explicit ids ("select all N matching") */
    filter: segmentFilterSchema.optional(),
    /** with `filter`: contacts left out of it (unticked after "select all N matching") */
    excludeIds: z
      .array(bodyId("excludeIds must be a list of contact ids"), {
        error: "excludeIds must be a list of contact ids",
      })
      .max(100_000, "At most 100,000 excluded contacts")
      .optional(),
    operation: z.enum(["delete", "update_stage", "update_status", "add_tag", "remove_tag"], {
      error: "operation must be one of delete, update_stage, update_status, add_tag, remove_tag",
    }),
    data: z
      .strictObject({
        lifecycle_stage: z.enum(LIFECYCLE_STAGES).optional(),
        lead_status: z.enum(LEAD_STATUSES).optional(),
        tag_id: bodyId("tag_id must be a whole number (the tag's id)").optional(),
      })
      .optional(),
  })
  .refine((b) => b.contactIds !== undefined || b.filter !== undefined, {
    message: "contactIds or filter is required",
    path: ["contactIds"],
  })
  .refine((b) => b.contactIds === undefined || b.filter === undefined, {
    message: "Give contactIds or filter, not both",
    path: ["filter"],
  })
  .refine((b) => !(b.excludeIds?.length && b.filter === undefined), {
    message: "excludeIds goes with filter; leave excluded contacts out of contactIds instead",
    path: ["excludeIds"],
  });
export type BulkOperationInput = z.input<typeof bulkOperationSchema>;

/**
 * A note's body: POST /api/contacts/{id}/notes and PUT /api/contacts/{id}/notes/{noteId} (tRPC
 * crm.addNote and crm.editNote, /api/v1 notes). Closed, as the contact bodies: an unknown key
 * (`text`, `note`) is a 400 naming it ("This field is not accepted here: text"), never dropped.
 */
export const noteSchema = z.strictObject({
  note_text: z
    .string({ error: "Note text is required" })
    .trim()
    .min(1, "Note text is required")
    .max(10_000, "Note must be at most 10,000 characters"),
});

export const sendEmailSchema = z.object({
  subject: z
    .string({ error: "Please fill in subject and message" })
    .trim()
    .min(1, "Please fill in subject and message")
    .max(300, "Subject must be at most 300 characters"),
  body: z
    .string({ error: "Please fill in subject and message" })
    .trim()
    .min(1, "Please fill in subject and message")
    .max(100_000, "Message must be at most 100,000 characters"),
});

export const sendSmsSchema = z.object({
  message: z
    .string({ error: "Please enter a message" })
    .trim()
    .min(1, "Please enter a message")
    .max(160, "Message must be at most 160 characters"),
});

/** The contact page's "do not call" switch (crm.messages setDoNotCall). */
export const doNotCallSchema = z.object({
  do_not_call: z.boolean({ error: "do_not_call must be true or false" }),
});

/** The most characters a call script may hold, as typed and once its merge tags are filled in (crm.messages). */
export const CALL_SCRIPT_MAX_CHARACTERS = 5000;

export const makeCallSchema = z.object({
  script: z
    .string({ error: "Please enter a script for the call" })
    .trim()
    .min(1, "Please enter a script for the call")
    .max(CALL_SCRIPT_MAX_CHARACTERS, "The call script must be at most 5,000 characters"),
});

/** POST /api/contacts/search/location; radius in miles (spec: 1 to 500). */
export const locationSearchSchema = z.object({
  latitude: z.coerce
    .number({ error: "Latitude must be a number" })
    .min(-90, "Latitude must be between -90 and 90")
    .max(90, "Latitude must be between -90 and 90"),
  longitude: z.coerce
    .number({ error: "Longitude must be a number" })
    .min(-180, "Longitude must be between -180 and 180")
    .max(180, "Longitude must be between -180 and 180"),
  radius_miles: z.coerce
    .number()
    .positive("Radius must be more than 0 miles")
    .max(500, "Radius must be at most 500 miles")
    .default(50),
});

/** POST /api/contacts/tags {name, color?}. Closed: an unknown key (`colour`) is a 400 naming it. */
export const createTagSchema = z.strictObject({
  name: z
    .string({ error: "Tag name is required" })
    .trim()
    .min(1, "Tag name is required")
    .max(50, "Tag name must be at most 50 characters"),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "color must be a hex colour like #6366f1")
    .optional(),
});

const segmentName = z
  .string({ error: "List name is required" })
  .trim()
  .min(1, "List name is required")
  .max(100, "List name must be at most 100 characters");

/**
 * POST /api/contacts/lists {name, filter?} (no filter: every contact). Closed: an unknown key is a
 * 400 naming it; `{name, filters: {...}}` was saved as a list of every contact.
 */
export const createSegmentSchema = z.strictObject({
  name: segmentName,
  filter: segmentFilterSchema.default({}),
});

/**
 * PUT /api/contacts/lists/{id} {name, filter?}: renames, and replaces the filter when one is given
 * (without one the stored filter stays: a rename used to reset it to `{}`, every contact). Closed.
 */
export const updateSegmentSchema = z.strictObject({
  name: segmentName,
  filter: segmentFilterSchema.optional(),
});

/** One row of POST /api/contacts/import {contacts:[...]}; values are loose (strings from a CSV). */
export const importRowSchema = z.record(z.string(), z.unknown());
export const importJsonSchema = z.object({
  contacts: z
    .array(importRowSchema, { error: "contacts must be an array of rows" })
    .max(50_000, "At most 50,000 rows per request; upload the file instead"),
  on_duplicate: z.enum(["skip", "update"]).default("skip"),
});
