/**
 * Merge tags (pure; shared by the server and the builders' previews).
 *
 * Syntax: `{{field}}` or `{{field|fallback}}`, whitespace allowed inside the braces. `field` is any
 * contact field in snake_case or camelCase (first_name, lastName, company, city, lead_score, ...), a
 * custom field, or one of the aliases `name` (first + last name), `phone` (phone, else mobile).
 * Default fallbacks (spec section 5): name -> "there", company -> "your company"; others -> "".
 * Unknown tags render their fallback (or nothing), never the raw braces.
 */

export type MergeContact = Record<string, unknown> & {
  customFields?: Record<string, string> | null;
};

export const DEFAULT_FALLBACKS: Record<string, string> = { name: "there", company: "your company" };

/** Tags the builders offer as insert buttons. */
export const MERGE_TAG_BUTTONS = ["name", "first_name", "company", "email", "phone"] as const;

/** The spec's single-brace / bracket placeholders for the four builder fields: {name}, [company]. */
const LEGACY_RE = /(?<!\{)\{\s*(name|email|phone|company)\s*\}(?!\})|\[\s*(name|email|phone|company)\s*\]/gi;
const TAG_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(?:\|([^}]*))?\}\}/g;

function camel(key: string) {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function str(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (v instanceof Date) return v.toISOString();
  return String(v).trim();
}

/** The value of one merge field for `contact` ("" when missing). */
export function mergeValue(contact: MergeContact, field: string): string {
  const key = field.toLowerCase();
  const get = (k: string) =>
    str(contact[k] ?? contact[camel(k)] ?? contact[k.toLowerCase()] ?? contact[camel(k.toLowerCase())]);
  if (key === "name" || key === "full_name") {
    const full = [get("first_name"), get("last_name")].filter(Boolean).join(" ");
    return full || get("name");
  }
  if (key === "phone") return get("phone_raw") || get("phone") || get("mobile_raw") || get("mobile");
  if (key === "company" || key === "business") return get("company") || get("business");
  const direct = get(field);
  if (direct) return direct;
  const custom = contact.customFields ?? (contact.custom_fields as Record<string, string> | undefined);
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
    const v = opts.extra?.[key] ?? mergeValue(contact, field);
    if (v) return esc(v);
    if (fallback !== undefined) return esc(fallback.trim());
    return esc(DEFAULT_FALLBACKS[key] ?? "");
  };
  return template
    .replace(TAG_RE, (_m, field: string, fallback: string | undefined) => value(field, fallback))
    .replace(LEGACY_RE, (_m, a: string | undefined, b: string | undefined) => value(a ?? b ?? ""));
}

/** Field names used in `template` (lower-cased, unique). */
export function mergeTagsIn(template: string): string[] {
  return [...new Set(Array.from(template.matchAll(TAG_RE), (m) => m[1].toLowerCase()))];
}

/**
 * Turns the builder's placeholders into the campaign engine's merge tags (spec section 5: name,
 * email, phone, company are replaced per contact, fallbacks 'there' for name and 'your company' for
 * company). Accepts `{name}`, `{{name}}` and `[name]`.
 */
export function toMergeTags(message: string): string {
  const fallback: Record<string, string> = {
    name: "{{name|there}}",
    company: "{{company|your company}}",
    email: "{{email}}",
    phone: "{{phone}}",
  };
  return message.replace(
    /\{\{\s*(name|email|phone|company)\s*\}\}|\{\s*(name|email|phone|company)\s*\}|\[\s*(name|email|phone|company)\s*\]/gi,
    (_m, a, b, c) => {
      const key = String(a ?? b ?? c).toLowerCase();
      return fallback[key] ?? _m;
    },
  );
}

const FIRST_NAME_FALLBACK = "there";

/** The landing page message merged for one contact (spec section 5 placeholders and merge tags). */
export function mergeFor(
  template: string,
  c: {
    firstName: string | null;
    lastName: string | null;
    email: string | null;
    phone: string | null;
    company: string | null;
  },
) {
  const name = [c.firstName, c.lastName].filter(Boolean).join(" ").trim() || FIRST_NAME_FALLBACK;
  const values: Record<string, string> = {
    name,
    email: c.email ?? "",
    phone: c.phone ?? "",
    company: c.company || "your company",
  };
  return toMergeTags(template).replace(
    /\{\{\s*(\w+)(?:\|([^}]*))?\s*\}\}/g,
    (_m, key: string, fb?: string) => {
      const v = values[key.toLowerCase()];
      return v || fb || "";
    },
  );
}
