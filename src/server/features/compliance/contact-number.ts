import { isE164 } from "../../lib/phone";

/**
 * The number a text or a call to a contact goes to: a text to the mobile, else the phone; a call or a
 * voicemail to the phone, else the mobile; only an E.164 number (a number an import kept as typed is
 * none). Null when the contact has none. The one rule of the contact page's sends (crm.messages),
 * campaigns (campaigns.audience addressFor) and the contact page's dialogs, which say where a send
 * goes (this module has no database: the client imports it).
 */
export function contactNumberFor(
  kind: "sms" | "voice" | "voicemail",
  c: { phone?: string | null; mobile?: string | null },
): string | null {
  const order = kind === "sms" ? [c.mobile, c.phone] : [c.phone, c.mobile];
  return order.find(isE164) ?? null;
}
