/**
 * A contact's email as the CRM stores and matches it: trimmed, lower-cased and in Unicode NFC
 * (RFC 6532 section 3.1: "josé@" written with a precomposed "é", U+00E9, and with "e" + a combining
 * acute accent, U+0065 U+0301, is one mailbox, and the contacts' unique index (workspace_id,
 * lower(email)) compares the stored text). "" for blank input; not a validity check (crm.import
 * isImportEmail, the zod schemas). The zod email schemas (crm, auth, user, workspaces, demo) put
 * addresses in the same form with `.normalize("NFC")`; migration 0052 put the rows stored before in it.
 */
export function normaliseContactEmail(value: string): string {
  return value.trim().toLowerCase().normalize("NFC");
}
