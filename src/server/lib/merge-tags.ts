/**
 * Merge tags (pure; shared by the server and the builders' previews). A shared lib, not a feature's:
 * campaigns render them per recipient, crm for a one-off send from the contact page
 * (crm.messages), and the client's builders and contact dialogs preview with the same functions.
 *
 * One syntax in every channel (email, SMS, call and voicemail scripts, video messages, AI avatar
 * scripts): `{{field}}` or `{{field|fallback}}`, whitespace allowed inside the braces. `field` is any
 * contact field in snake_case or camelCase (first_name, lastName, company, city, lead_score, ...), a
 * custom field, one of the aliases `name` (first + last name), `phone` (phone, else mobile), or
 * `my_business`: the sender's own business (the workspace's sender name, passed by the caller in
 * `extra`, snapshotted into a campaign's content at launch as `myBusiness`).
 * Default fallbacks (spec section 5): name and first_name -> "there", company -> "your company";
 * others -> "". Unknown tags render their fallback (or nothing), never the raw braces.
 * The spec's single-brace and bracket placeholders (`{name}`, `[company]`, also `{first_name}` and
 * `{my_business}`) keep working: stored video messages and avatar scripts used them.
 */

export type MergeContact = Record<string, unknown> & {
  customFields?: Record<string, string | number | boolean> | null;
};

export const DEFAULT_FALLBACKS: Record<string, string> = {
  name: "there",
  first_name: "there",
  firstname: "there",
  company: "your company",
};

/** The tag of the sender's own business (the workspace's sender name). */
export const MY_BUSINESS_TAG = "my_business";

/**
 * The insert buttons every builder offers (label, text inserted at the cursor), in this order.
 * Each inserts the canonical `{{...}}` form with its fallback.
 */
export const MERGE_TAG_BUTTONS = [
  { label: "First name", tag: "{{first_name|there}}" },
  { label: "Full name", tag: "{{name|there}}" },
  { label: "Company", tag: "{{company|your company}}" },
  { label: "Email", tag: "{{email}}" },
  { label: "Phone", tag: "{{phone}}" },
  { label: "My business", tag: "{{my_business}}" },
] as const;

const LEGACY_FIELDS = "name|first_name|last_name|email|phone|company|my_business";
/** The spec's single-brace / bracket placeholders: {name}, [company], {first_name}, {my_business}. */
const LEGACY_RE = new RegExp(
  `(?<!\\{)\\{\\s*(${LEGACY_FIELDS})\\s*\\}(?!\\})|\\[\\s*(${LEGACY_FIELDS})\\s*\\]`,
  "gi",
);
/** A `{{field}}` without a fallback, for the fields that have a default one. */
const BARE_TAG_RE = /\{\{\s*(name|first_name|company)\s*\}\}/gi;
/**
 * The start of a `{{field}}` or `{{field|fallback}}` tag, matched at one position (sticky): the
 * braces, blanks, the field name and blanks. What follows decides (mergeTags): `}}`, or `|`, the
 * fallback up to the first `}`, and `}}` there.
 */
const TAG_HEAD = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*/y;

/** One merge tag of a template: where it starts and ends, its field and its fallback (if any). */
interface MergeTag {
  index: number;
  end: number;
  field: string;
  fallback?: string;
}

/**
 * The merge tags of `template`, left to right, as the pattern
 * `/\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(?:\|([^}]*))?\}\}/g` finds them, in time linear in the
 * template's length. That pattern, run by a regex engine, scanned from every `{{a|` to the next `}`:
 * a template of 100,000 characters of `{{a|` took 6 s per rendering (quadratic), and an email is
 * rendered per recipient, a test email on the web server's one thread. Here the next `}` is looked
 * up once and kept while the scan is before it.
 */
function* mergeTags(template: string): Generator<MergeTag> {
  let from = 0;
  let close = -1; // the first "}" at or after the last position asked for (template.length: none)
  const closeAfter = (at: number) => {
    if (close < at) {
      const i = template.indexOf("}", at);
      close = i < 0 ? template.length : i;
    }
    return close;
  };
  for (;;) {
    const index = template.indexOf("{{", from);
    if (index < 0) return;
    TAG_HEAD.lastIndex = index;
    const head = TAG_HEAD.exec(template);
    if (head) {
      const at = TAG_HEAD.lastIndex;
      const field = head[1] as string;
      if (template.startsWith("}}", at)) {
        yield { index, end: at + 2, field };
        from = at + 2;
        continue;
      }
      if (template[at] === "|") {
        const c = closeAfter(at + 1);
        if (template.startsWith("}}", c)) {
          yield { index, end: c + 2, field, fallback: template.slice(at + 1, c) };
          from = c + 2;
          continue;
        }
      }
    }
    from = index + 1;
  }
}

/** `template` with each merge tag (mergeTags) replaced by `replace(field, fallback)`. */
function replaceMergeTags(template: string, replace: (field: string, fallback?: string) => string): string {
  let out = "";
  let at = 0;
  for (const tag of mergeTags(template)) {
    out += template.slice(at, tag.index) + replace(tag.field, tag.fallback);
    at = tag.end;
  }
  return at === 0 ? template : out + template.slice(at);
}

function camel(key: string) {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** `jobTitle` -> `job_title`: a camelCase tag read from a snake_case source (a contact's JSON). */
function snake(key: string) {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function str(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (v instanceof Date) return v.toISOString();
  return String(v).trim();
}

/**
 * `obj[key]` when `obj` holds `key` itself, else undefined: a tag such as `{{constructor}}`,
 * `{{toString}}` or `{{valueOf}}` (also valid custom field names) must never read what every
 * object inherits (it rendered "function Object() { [native code] }").
 */
function own<T>(obj: Record<string, T> | null | undefined, key: string): T | undefined {
  return obj && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * The value of one merge field for `contact` ("" when missing): a contact field (snake_case or
 * camelCase, whichever case `contact` uses: a contact row or its JSON) or else a custom field (names
 * compared case-insensitively). Only the contact's own properties are read, never inherited ones
 * (Object.prototype's `constructor`, `valueOf`, ...).
 */
export function mergeValue(contact: MergeContact, field: string): string {
  const key = field.toLowerCase();
  const get = (k: string) =>
    str(
      own(contact, k) ??
        own(contact, camel(k)) ??
        own(contact, k.toLowerCase()) ??
        own(contact, camel(k.toLowerCase())) ??
        own(contact, snake(k)),
    );
  if (key === "name" || key === "full_name") {
    const full = [get("first_name"), get("last_name")].filter(Boolean).join(" ");
    return full || get("name");
  }
  // a CSV row holds `name` only: the first word is the first name, as the CRM splits it on import
  if (key === "first_name" || key === "firstname") {
    const first = get("first_name");
    return first || (get("name").split(/\s+/)[0] ?? "");
  }
  if (key === "last_name" || key === "lastname") {
    const last = get("last_name");
    return last || (get("first_name") ? "" : get("name").split(/\s+/).slice(1).join(" "));
  }
  if (key === "phone") return get("phone_raw") || get("phone") || get("mobile_raw") || get("mobile");
  if (key === "company" || key === "business") return get("company") || get("business");
  const direct = get(field);
  if (direct) return direct;
  const custom = contact.customFields ?? (contact.custom_fields as Record<string, unknown> | undefined);
  if (custom) {
    const hit = Object.entries(custom).find(([k]) => k.toLowerCase() === key);
    if (hit) return str(hit[1]);
  }
  return "";
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

/**
 * Replaces every merge tag in `template` with the contact's value or the fallback.
 * `extra` adds values by tag name (e.g. video_url); `escape` transforms each inserted value
 * (escapeHtml for an already-rendered HTML template).
 */
export function renderMergeTags(
  template: string,
  contact: MergeContact,
  opts: { extra?: Record<string, string>; escape?: (s: string) => string } = {},
): string {
  const esc = opts.escape ?? ((s: string) => s);
  const value = (field: string, fallback?: string) => {
    const key = field.toLowerCase();
    // `my_business` is the sender's, never a contact field
    const v = own(opts.extra, key) ?? (key === MY_BUSINESS_TAG ? "" : mergeValue(contact, field));
    if (v) return esc(v);
    if (fallback !== undefined) return esc(fallback.trim());
    return esc(own(DEFAULT_FALLBACKS, key) ?? "");
  };
  return replaceMergeTags(template, value).replace(
    LEGACY_RE,
    (_m, a: string | undefined, b: string | undefined) => value(a ?? b ?? ""),
  );
}

/** Field names used in `template` (lower-cased, unique). */
export function mergeTagsIn(template: string): string[] {
  return [...new Set(Array.from(mergeTags(template), (t) => t.field.toLowerCase()))];
}

/**
 * Turns the spec's single-brace / bracket placeholders (`{name}`, `[company]`, `{first_name}`,
 * `{my_business}`) into the canonical merge tags with their default fallbacks, e.g. `{name}` ->
 * `{{name|there}}`, so what is stored and previewed is the one syntax; `{{name}}`, `{{first_name}}`
 * and `{{company}}` get their default fallback written out. Other `{{...}}` tags are left as written.
 */
export function toMergeTags(message: string): string {
  const canonical = (field: string) => {
    const key = field.toLowerCase();
    const fb = own(DEFAULT_FALLBACKS, key);
    return fb ? `{{${key}|${fb}}}` : `{{${key}}}`;
  };
  return message
    .replace(BARE_TAG_RE, (_m, field: string) => canonical(field))
    .replace(LEGACY_RE, (_m, a: string | undefined, b: string | undefined) => canonical(String(a ?? b)));
}

/**
 * The landing page message merged for one contact: the same rendering as the email / SMS text
 * (`renderMergeTags`), with `myBusiness` for `{{my_business}}`.
 */
export function mergeFor(template: string, c: MergeContact, myBusiness = ""): string {
  return renderMergeTags(template, c, { extra: { [MY_BUSINESS_TAG]: myBusiness } });
}

/**
 * Renders a template for a preview exactly as the first recipient will receive it. `contact` may be
 * a CRM contact (snake or camel case) or a CSV row ({name, company, ...}); null renders the fallbacks.
 */
export function renderPreview(template: string, contact: MergeContact | null, myBusiness: string): string {
  return renderMergeTags(template, contact ?? {}, { extra: { [MY_BUSINESS_TAG]: myBusiness } });
}
