import { describe, expect, it } from "vitest";
import { isContactEmail } from "../../src/server/lib/email";

// The one email rule of contacts (imports, forms, REST, lead saves, campaign rows): what it takes and
// what it refuses, the domain's labels included (a QA pass found "a@b..com" accepted).
describe("isContactEmail", () => {
  it.each([
    "ann@example.com",
    "ann.lee+news@mail.example.co.uk",
    "josé@bücher.de",
    "o'neil@example.ie",
    "a@b-c.io",
    `${"a".repeat(64)}@${"b".repeat(63)}.com`,
  ])("takes %s", (email) => {
    expect(isContactEmail(email)).toBe(true);
  });

  it.each([
    "ann",
    "ann@example",
    "a..b@example.com",
    ".ann@example.com",
    "ann.@example.com",
    "ann@b..com",
    "ann@.example.com",
    "ann@example.com.",
    "ann@-example.com",
    "ann@example-.com",
    `ann@${"b".repeat(64)}.com`,
    "ann@exa mple.com",
    "a@b@c.com",
    `${"a".repeat(250)}@b.com`,
  ])("refuses %s", (email) => {
    expect(isContactEmail(email)).toBe(false);
  });
});
