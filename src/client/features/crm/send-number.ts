import { contactNumberFor } from "@/server/features/compliance/contact-number";

// Its own module, not crm/api: the rule reads lib/phone (libphonenumber-js), which only the send
// dialogs and the campaign picker need in their chunks.

/**
 * The number a `kind` send to contact `c` goes to, by the server's rule (compliance contactNumberFor: a
 * text to the mobile, else the phone; a call or voicemail the other way round; only a valid number):
 * `e164` as it is dialled and `typed` as that field was entered; null when the contact has none.
 */
export function contactSendNumber(
  kind: "sms" | "voice",
  c: { phone: string | null; phone_e164: string | null; mobile: string | null; mobile_e164: string | null },
): { e164: string; typed: string } | null {
  const e164 = contactNumberFor(kind, { phone: c.phone_e164, mobile: c.mobile_e164 });
  if (!e164) return null;
  return { e164, typed: (e164 === c.mobile_e164 ? c.mobile : c.phone) ?? e164 };
}
