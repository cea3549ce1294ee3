import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

/**
 * Merge tags read only a contact's own fields. Custom field names may be any letter-first word,
 * `valueOf` or `constructor` included, and `{{constructor}}` is a valid tag: both used to read what
 * every JavaScript object inherits, so a sent email said "function valueOf() { [native code] }"
 * instead of the contact's custom field, and "function Object() { [native code] }" for a tag the
 * contact does not have (instead of its fallback).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("an email campaign renders custom fields named like Object.prototype members, and fallbacks for inherited names", async () => {
  const { client } = await signUp(t.app);
  const email = uniqueEmail("proto");
  const created = await client.post("/api/contacts", {
    first_name: "Pat",
    email,
    custom_fields: { valueOf: "Gold", toString: "Silver" },
  });
  expect(created.statusCode, created.body).toBe(200);
  const contactId = created.json().contact.id as number;
  const launch = await client.post("/api/campaigns", {
    name: "Inherited names",
    channel: "email",
    content: {
      subject: "Tier {{valueOf}}",
      body: "A={{valueOf}} B={{toString}} C={{constructor|none}} D={{hasOwnProperty}} E={{__proto__|x}}.",
    },
    recipients: { contactIds: [contactId] },
  });
  expect(launch.statusCode, launch.body).toBe(200);
  const [mail] = await t.db
    .select()
    .from(outboxMessages)
    .where(and(eq(outboxMessages.channel, "email"), eq(outboxMessages.to, email)));
  expect(mail?.subject).toBe("Tier Gold");
  expect(mail?.body).not.toContain("native code");
  expect(mail?.body).toContain("A=Gold B=Silver C=none D= E=x.");
});
