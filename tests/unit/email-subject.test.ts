import { describe, expect, it } from "vitest";
import {
  EMAIL_SUBJECT_ELLIPSIS,
  EMAIL_SUBJECT_MAX_LENGTH,
  emailSubjectLine,
} from "../../src/server/lib/email-subject";

// A subject is filled in from merge tags, so a contact's field decides its length and characters.
// emailSubjectLine is the one rule every send and preview applies: one header line (RFC 5322 section
// 2.2: no CR or LF in a field body), at most 989 characters (section 2.1.1's 998 less "Subject: "),
// cut at a word boundary with an ellipsis.

describe("emailSubjectLine", () => {
  it("is 998 less 'Subject: ' (RFC 5322 section 2.1.1), within Postmark's 2,000", () => {
    expect(EMAIL_SUBJECT_MAX_LENGTH).toBe(989);
    expect(`Subject: ${"x".repeat(EMAIL_SUBJECT_MAX_LENGTH)}`).toHaveLength(998);
  });

  it("turns every run of line breaks and control characters, with the blanks around it, into one space", () => {
    expect(emailSubjectLine("Hi Acme\r\nBcc: victim@example.com")).toBe("Hi Acme Bcc: victim@example.com");
    expect(emailSubjectLine("a\nb\rc \r\n d\u0085e\u2028f\u2029g\u000bh\u0001i\u007fj\tk")).toBe(
      "a b c d e f g h i j k",
    );
    expect(emailSubjectLine("  \r\n Spring sale \n")).toBe("Spring sale");
    expect(emailSubjectLine("\r\n\u0000")).toBe("");
  });

  it("leaves a subject within the cap as it is (spaces inside too)", () => {
    const s = `Hello  ${"é".repeat(900)} 😀`;
    expect(emailSubjectLine(s)).toBe(s);
    const max = "x".repeat(EMAIL_SUBJECT_MAX_LENGTH);
    expect(emailSubjectLine(max)).toBe(max);
  });

  it("cuts past the cap at the last word boundary and ends with an ellipsis", () => {
    const s = emailSubjectLine(`Offer for ${"Longword ".repeat(600)}`);
    expect(s.length).toBeLessThanOrEqual(EMAIL_SUBJECT_MAX_LENGTH);
    expect(s.endsWith(` Longword${EMAIL_SUBJECT_ELLIPSIS}`)).toBe(true);
    expect(s.startsWith("Offer for Longword")).toBe(true);
    // a cut that falls right after a word keeps that word
    const words = `${"abcd ".repeat(197)}abc ${"z".repeat(50)}`; // the cut lands after "abc"
    expect(emailSubjectLine(words)).toBe(`${"abcd ".repeat(197)}abc${EMAIL_SUBJECT_ELLIPSIS}`);
  });

  it("cuts mid-word when the last blank is too far back, never inside a surrogate pair", () => {
    const one = emailSubjectLine(`Hi ${"x".repeat(5000)}`);
    expect(one).toHaveLength(EMAIL_SUBJECT_MAX_LENGTH);
    expect(one.endsWith(`x${EMAIL_SUBJECT_ELLIPSIS}`)).toBe(true);
    // 987 letters then emoji (2 UTF-16 units each): the cut would fall between an emoji's halves
    const emoji = emailSubjectLine(`${"a".repeat(987)}😀😀`);
    expect(emoji).toBe(`${"a".repeat(987)}${EMAIL_SUBJECT_ELLIPSIS}`);
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("is idempotent: what it returns comes back unchanged", () => {
    for (const s of [`${"word ".repeat(400)}`, "x".repeat(3000), "a\r\nb", `${"a".repeat(987)}😀😀`]) {
      const once = emailSubjectLine(s);
      expect(emailSubjectLine(once)).toBe(once);
    }
  });
});
