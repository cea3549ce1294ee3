/**
 * The fields a contact's display name is made from, by their names in the contact's JSON (spec
 * section 3: first_name, last_name, company, email). The server's rows map their columns onto these
 * (crm.contact-json contactDisplayName); the client passes its contacts as they are.
 */
export interface ContactNameFields {
  first_name?: string | null;
  last_name?: string | null;
  company?: string | null;
  email?: string | null;
}

/** The contact's "First Last", trimmed; empty when it has neither. */
export function personName(c: ContactNameFields): string {
  return [c.first_name, c.last_name].filter(Boolean).join(" ").trim();
}

/**
 * The name a contact is shown under outside its own page: "First Last" (personName), else its company
 * trimmed (a business saved from lead search has no person's name), else its email; null when it has
 * none of them (each caller says what to show then: the client "Unnamed contact", the opt-out list
 * "Contact #id", a campaign's recipients the address). Pure, no server-only imports: the server
 * (crm.contact-json contactDisplayName) and the client (crm/api contactName, ContactNameText) share it.
 */
export function displayNameOf(c: ContactNameFields): string | null {
  return personName(c) || c.company?.trim() || c.email || null;
}

/** Whether displayNameOf gives the contact's company: it has a company and no first or last name. */
export function namedByCompany(c: ContactNameFields): boolean {
  return !personName(c) && !!c.company?.trim();
}
