/**
 * An email's Subject header line (pure; shared by the server's sends and the client's previews).
 * A subject is typed with merge tags and filled in per recipient, so its length and characters are
 * whatever a contact's fields hold: a 5,000-character company name, a value with a line break.
 */

/**
 * The longest subject sent, in UTF-16 code units (a JavaScript string's length): 989.
 * RFC 5322 section 2.1.1: "Each line of characters MUST be no more than 998 characters ... excluding
 * the CRLF", the one hard limit on a header line; "Subject: " takes 9 of them, so a subject of at most
 * 989 characters fits on its line without folding. It also keeps under Postmark's limit of 2,000
 * UTF-16 code units per subject (Postmark support, "Subject line and From address character limits"),
 * which refuses the whole email past it. (Mail apps show far less, Gmail's inbox about the first 70
 * characters: a cut this far out never changes what a reader sees first.)
 */
export const EMAIL_SUBJECT_MAX_LENGTH = 998 - "Subject: ".length;

/** What ends a subject cut at EMAIL_SUBJECT_MAX_LENGTH (one character, U+2026). */
export const EMAIL_SUBJECT_ELLIPSIS = "…";

/**
 * A run of characters a header line must not hold, with the blanks around it: the controls (Unicode
 * category Cc: CR, LF and the other C0 controls, tab too, DEL, the C1 controls such as NEL U+0085)
 * and the Unicode line and paragraph separators. RFC 5322 section 2.2: "A field body MUST NOT include
 * CR and LF except when used in folding": a CR or LF from a merge value would end the Subject header
 * and start another (header injection).
 */
const LINE_BREAKS = /\s*[\p{Cc}\u2028\u2029]+\s*/gu;

/**
 * The subject line an email is sent with, for `subject` as filled in (merge tags rendered): every run
 * of line breaks and other control characters (LINE_BREAKS) becomes one space, the ends are trimmed,
 * and a line longer than EMAIL_SUBJECT_MAX_LENGTH is cut at the last word boundary before it (the
 * last blank, when that keeps at least half the room; else mid-word, never inside a surrogate pair)
 * and ends with EMAIL_SUBJECT_ELLIPSIS, so the email still goes rather than the recipient being
 * skipped or the provider refusing it. Every email send uses it (campaigns' renderEmailFor, a test
 * send, the contact page's Send Email, the email providers themselves), and so do the previews of
 * those subjects, so a preview shows the subject as sent. Idempotent: a line it returns comes back
 * unchanged. Returns "" when nothing but blanks and control characters was given.
 */
export function emailSubjectLine(subject: string): string {
  const line = subject.replace(LINE_BREAKS, " ").trim();
  if (line.length <= EMAIL_SUBJECT_MAX_LENGTH) return line;
  const room = EMAIL_SUBJECT_MAX_LENGTH - EMAIL_SUBJECT_ELLIPSIS.length;
  let cut = line.slice(0, room);
  // a high surrogate left without its low half is half a character (an emoji cut in two)
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  // whole words: unless the cut already ends a word, go back to the last blank
  if (!/\s/.test(line[cut.length] ?? "")) {
    const blank = cut.search(/\s\S*$/);
    if (blank >= room / 2) cut = cut.slice(0, blank);
  }
  return `${cut.trimEnd()}${EMAIL_SUBJECT_ELLIPSIS}`;
}
