import { Building2 } from "lucide-react";
import { namedByCompany } from "@/server/features/crm/contact-name";
import { type Contact, contactName } from "./api";

/**
 * A contact's name as lists show it (contactName): the person's name, else their company, marked as
 * one by a building icon and, for screen readers, "(company)" after it, so a business saved from lead
 * search reads as itself instead of "Unnamed contact". Inline: it wraps like the text it replaces.
 */
export function ContactNameText({
  contact,
}: {
  contact: Pick<Contact, "first_name" | "last_name" | "email" | "company">;
}) {
  const name = contactName(contact);
  if (!namedByCompany(contact)) return <>{name}</>;
  return (
    <>
      <Building2
        className="mr-1 inline size-[1em] shrink-0 align-[-0.125em] text-muted-foreground"
        aria-hidden
      />
      {name}
      <span className="sr-only"> (company)</span>
    </>
  );
}
