import type { AppContext } from "../../context";

/** Contacts owned by `userId`, optionally only those created before `before`. */
export async function countContacts(_ctx: AppContext, _userId: string, _opts: { before?: Date } = {}): Promise<number> {
  return 0; // CRM issue: contacts table
}

/**
 * Messages sent to contacts (email_sent, sms_sent, call_made, voicemail_sent activities) in [from, to),
 * and how many of those contacts engaged (opened, clicked or replied) in the same window.
 */
export async function countMessageActivity(
  _ctx: AppContext,
  _userId: string,
  _from: Date,
  _to: Date,
): Promise<{ sent: number; engaged: number }> {
  return { sent: 0, engaged: 0 }; // CRM issue: activities table
}
