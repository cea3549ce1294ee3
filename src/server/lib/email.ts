/**
 * A contact's email as the CRM stores and matches it: trimmed, lower-cased and in Unicode NFC
 * (RFC 6532 section 3.1: "josé@" written with a precomposed "é", U+00E9, and with "e" + a combining
 * acute accent, U+0065 U+0301, is one mailbox, and the contacts' unique index (workspace_id,
 * lower(email)) compares the stored text). "" for blank input; not a validity check (isContactEmail,
 * the zod schemas). The zod email schemas (crm, auth, user, workspaces, demo) put
 * addresses in the same form with `.normalize("NFC")`; migration 0052 put the rows stored before in it.
 */
export function normaliseContactEmail(value: string): string {
  return value.trim().toLowerCase().normalize("NFC");
}

const CONTACT_EMAIL_RE = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

/**
 * True for an address a contact may hold (given normalised: normaliseContactEmail or the zod
 * schema's trim, lower-case and NFC): at most 254 characters (RFC 5321 section 4.5.3.1.3's path
 * limit less its angle brackets), `local@domain.tld` without white space, a second `@`, or
 * `, ; < > "`, and a local part that is a dot-atom's dots (RFC 5321 section 4.1.2, RFC 5322 section
 * 3.2.3): not starting or ending with a dot and no two dots in a row ("qa3-a..b@example.com" is
 * refused by mail servers and bounces), and a domain of non-empty labels of at most 63 characters that
 * neither start nor end with a hyphen ("a@b..com", "a@-b.com"). Non-ASCII letters are allowed on either side (RFC 6531/6532
 * internationalised addresses, e.g. "josé@bücher.de"). The one rule of CSV and JSON imports
 * (crm.import validateImportRow), the lead search's contacts (crm.leads), the Add Contact and edit
 * forms and REST (crm.schemas), campaign list rows (crm findOrCreateContacts) and the campaign
 * address of a contact (campaigns.audience addressFor), so a contact an import stored can be saved
 * again from its edit form.
 */
export function isContactEmail(email: string): boolean {
  if (email.length > 254 || !CONTACT_EMAIL_RE.test(email)) return false;
  const at = email.indexOf("@");
  const local = email.slice(0, at);
  if (local.startsWith(".") || local.endsWith(".") || local.includes("..")) return false;
  // the domain's labels (RFC 1035 section 2.3.4, RFC 5890 for non-ASCII ones): none empty ("b..com",
  // "b.com."), none over 63 characters, none starting or ending with a hyphen
  return email
    .slice(at + 1)
    .split(".")
    .every(
      (label) => label.length > 0 && label.length <= 63 && !label.startsWith("-") && !label.endsWith("-"),
    );
}
