/**
 * An email address with its local part hidden but for the first character, for sentences shown to
 * someone who may not own the address: "alice@example.com" -> "a•••@example.com". The domain stays
 * so the owner can tell which of their addresses is meant. A value without "@" is masked whole ("•••").
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "•••";
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}
