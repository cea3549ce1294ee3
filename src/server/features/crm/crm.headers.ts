/* Pure module (no server imports): the client bundles it for the import mapping step. */

/** Contact fields an import column can map to (spec section 3: Contact), plus `name` (split in two). */
export const IMPORT_FIELDS = [
  "first_name",
  "last_name",
  "name",
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
  "email_opt_in",
  "sms_opt_in",
  "call_opt_in",
  "preferred_language",
  "timezone",
  "linkedin_url",
  "twitter_handle",
  "facebook_url",
  "instagram_handle",
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];
export type ColumnMapping = Partial<Record<ImportField, number>>;

/**
 * Header rules, first match wins per column and per field. The spec's rules come first
 * (section 5, Import: case-insensitive containment of first+name, last+name, email, phone/mobile,
 * company, city, state), then vendor export headers (Google, Outlook, Mailchimp, HubSpot) for the
 * other fields. `all` = every word must be contained; `not` = none of these may be.
 */
const RULES: { field: ImportField; all: string[]; not?: string[] }[] = [
  { field: "first_name", all: ["first", "name"] },
  { field: "last_name", all: ["last", "name"] },
  { field: "email", all: ["e-mail"], not: ["type", "opt", "label"] },
  { field: "email", all: ["email"], not: ["type", "opt", "label"] },
  { field: "mobile", all: ["mobile"], not: ["type", "opt", "label"] },
  { field: "phone", all: ["phone"], not: ["type", "opt", "label", "mobile"] },
  { field: "company", all: ["company"] },
  { field: "company", all: ["organization"], not: ["title", "type"] },
  {
    field: "company",
    all: ["business"],
    not: ["phone", "type", "address", "street", "city", "state", "postal", "zip", "country"],
  },
  { field: "lifecycle_stage", all: ["lifecycle"] },
  { field: "lead_status", all: ["lead", "status"] },
  { field: "lead_source", all: ["source"] },
  { field: "lead_score", all: ["score"] },
  { field: "email_opt_in", all: ["email", "opt"] },
  { field: "sms_opt_in", all: ["sms", "opt"] },
  { field: "call_opt_in", all: ["call", "opt"] },
  { field: "job_title", all: ["job"] },
  { field: "job_title", all: ["title"] },
  { field: "job_title", all: ["position"] },
  { field: "website", all: ["website"] },
  { field: "website", all: ["web page"] },
  { field: "linkedin_url", all: ["linkedin"] },
  { field: "twitter_handle", all: ["twitter"] },
  { field: "facebook_url", all: ["facebook"] },
  { field: "instagram_handle", all: ["instagram"] },
  { field: "street_address", all: ["street"] },
  // Google Contacts names every part "Address 1 - <part>": the city, region, postal code and country
  // columns are not the street
  {
    field: "street_address",
    all: ["address"],
    not: [
      "email",
      "e-mail",
      "ip",
      "web",
      "city",
      "region",
      "state",
      "postal",
      "zip",
      "country",
      "po box",
      "type",
      "label",
    ],
  },
  { field: "city", all: ["city"] },
  { field: "state", all: ["state"] },
  { field: "state", all: ["region"] },
  { field: "state", all: ["province"] },
  { field: "postal_code", all: ["postal"] },
  { field: "postal_code", all: ["zip"] },
  { field: "country", all: ["country"] },
  { field: "preferred_language", all: ["language"] },
  { field: "timezone", all: ["time zone"] },
  { field: "timezone", all: ["timezone"] },
  {
    field: "name",
    all: ["name"],
    not: ["first", "last", "middle", "company", "user", "nick", "file", "display name", "phonetic"],
  },
  { field: "name", all: ["display name"] },
];

/**
 * Pre-fills the column mapping from a header row (case-insensitive containment, spec section 5,
 * extended to every contact field). Returns field -> column index; each column is used once.
 */
export function matchHeaders(headers: string[]): ColumnMapping {
  const lower = headers.map((h) =>
    h
      .replace(/^\uFEFF/, "")
      .trim()
      .toLowerCase(),
  );
  const mapping: ColumnMapping = {};
  const used = new Set<number>();
  for (const rule of RULES) {
    if (mapping[rule.field] !== undefined) continue;
    const idx = lower.findIndex(
      (h, i) =>
        !used.has(i) && rule.all.every((w) => h.includes(w)) && !(rule.not ?? []).some((w) => h.includes(w)),
    );
    if (idx >= 0) {
      mapping[rule.field] = idx;
      used.add(idx);
    }
  }
  // "Name" split into first/last only when there is no first-name column
  if (mapping.first_name !== undefined) delete mapping.name;
  return mapping;
}

/** Human labels of the import fields (the mapping step's choices). */
export const IMPORT_FIELD_LABELS: Record<ImportField, string> = {
  first_name: "First name",
  last_name: "Last name",
  name: "Full name (split)",
  email: "Email",
  phone: "Phone",
  mobile: "Mobile",
  company: "Company",
  job_title: "Job title",
  website: "Website",
  street_address: "Street address",
  city: "City",
  state: "State",
  postal_code: "Postal code",
  country: "Country",
  lifecycle_stage: "Lifecycle stage",
  lead_status: "Lead status",
  lead_source: "Lead source",
  lead_score: "Lead score",
  email_opt_in: "Email opt-in",
  sms_opt_in: "SMS opt-in",
  call_opt_in: "Call opt-in",
  preferred_language: "Preferred language",
  timezone: "Time zone",
  linkedin_url: "LinkedIn",
  twitter_handle: "Twitter",
  facebook_url: "Facebook",
  instagram_handle: "Instagram",
};
