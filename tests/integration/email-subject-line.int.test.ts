import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { EMAIL_SUBJECT_MAX_LENGTH } from "../../src/server/lib/email-subject";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

/*
 * An email's subject is its merge tags filled in for the recipient, and a merge value is whatever a
 * contact's field holds: a company of 5,000 characters made a subject of 5,000+ characters (Postmark
 * refuses subjects over 2,000, RFC 5322 section 2.1.1 caps a header line at 998), and a value with a
 * line break must never make a second header line (header injection). Every send (a campaign, the
 * contact page's Send Email, a campaign's test send) goes through one subject function (lib/email-
 * subject emailSubjectLine): line breaks and other control characters become one space, and a subject
 * past EMAIL_SUBJECT_MAX_LENGTH is cut at a word boundary with an ellipsis, so the email still goes.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

/** The subjects of the emails sent to `to`, newest first. */
async function subjectsTo(to: string): Promise<string[]> {
  const rows = await t.db
    .select({ subject: outboxMessages.subject })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")))
    .orderBy(desc(outboxMessages.id));
  return rows.map((r) => r.subject ?? "");
}

/** A contact of `workspaceId` with this company, opted in to email; returns its id and address. */
async function contactWith(workspaceId: string, company: string) {
  const email = `subj-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const [row] = await t.db
    .insert(contacts)
    .values({ workspaceId, firstName: "Ana", lastName: "Subject", email, company, emailOptIn: true })
    .returning({ id: contacts.id });
  return { id: row!.id, email };
}

async function owner() {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  return u;
}

// no carriage return, line feed, other C0 / C1 control (Unicode category Cc), or Unicode line /
// paragraph separator (Postgres text holds no NUL, so no contact field has one)
const NO_BREAKS = /^[^\p{Cc}\u2028\u2029]*$/u;
const HOSTILE = "Acme\r\nBcc: victim@example.com\nX-Evil: 1\r\u0085Inc\u2028Ltd\u000b\u0001";

describe("a subject filled from merge tags", () => {
  it("never carries a line break or control character (campaign, contact page, test send)", async () => {
    const { client, user } = await owner();
    const c = await contactWith(user.id, HOSTILE);
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Header check",
      subject: "Offer for {{company}}",
      body: "Hello {{name}}",
      audience: { contactIds: [c.id] },
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const single = await client.post(`/api/contacts/${c.id}/send-email`, {
      subject: "Note for {{company}}",
      body: "Hello",
    });
    expect(single.statusCode, single.body).toBe(200);
    const sent = await subjectsTo(c.email);
    expect(sent).toHaveLength(2);
    for (const s of sent) {
      expect(s).toMatch(NO_BREAKS);
      expect(s).toContain("Acme Bcc: victim@example.com X-Evil: 1 Inc Ltd");
    }
    // the test send: the subject as typed carries the break
    const test = await client.post("/api/campaigns/email/test", {
      subject: "Hi\r\nBcc: victim@example.com {{first_name}}",
      body: "B",
      testEmail: user.email,
    });
    expect(test.statusCode, test.body).toBe(200);
    const [testSubject] = await subjectsTo(user.email);
    expect(testSubject).toMatch(NO_BREAKS);
    expect(testSubject).toBe("[Test] Hi Bcc: victim@example.com Test");
  });

  it("is cut at a word boundary with an ellipsis once past the cap, and the email still goes", async () => {
    const { client, user } = await owner();
    const company = "Longword ".repeat(600).trim(); // 5,399 characters
    const c = await contactWith(user.id, company);
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Long company",
      subject: "Offer for {{company}}",
      body: "Hello {{name}}",
      audience: { contactIds: [c.id] },
    });
    expect(launch.statusCode, launch.body).toBe(200);
    expect(launch.json().recipients).toBe(1);
    const single = await client.post(`/api/contacts/${c.id}/send-email`, {
      subject: "Note for {{company}}",
      body: "Hello",
    });
    expect(single.statusCode, single.body).toBe(200);
    const [note, offer] = await subjectsTo(c.email);
    for (const [s, start] of [
      [offer, "Offer for Longword Longword"],
      [note, "Note for Longword Longword"],
    ] as const) {
      expect(s!.length).toBeLessThanOrEqual(EMAIL_SUBJECT_MAX_LENGTH);
      expect(s!.length).toBeGreaterThan(EMAIL_SUBJECT_MAX_LENGTH - 12);
      expect(s!.startsWith(start)).toBe(true);
      // whole words only, then the ellipsis
      expect(s).toMatch(/ Longword…$/);
    }
  });

  it("the test send's subject is cut the same way, its '[Test] ' included", async () => {
    const { client, user } = await owner();
    // the test send fills merge tags with the user's own fields: {{company}} is their business name
    const business = `Bakery ${"Crumb ".repeat(32)}`.trim();
    const profile = await client.put("/api/user/profile", {
      name: "Test User",
      email: user.email,
      businessName: business,
    });
    expect(profile.statusCode, profile.body).toBe(200);
    const test = await client.post("/api/campaigns/email/test", {
      subject: "{{company}} ".repeat(10),
      body: "B",
      testEmail: user.email,
    });
    expect(test.statusCode, test.body).toBe(200);
    const [s] = await subjectsTo(user.email);
    expect(s!.startsWith(`[Test] ${business} ${business}`)).toBe(true);
    expect(s!.length).toBeLessThanOrEqual(EMAIL_SUBJECT_MAX_LENGTH);
    expect(s).toMatch(/ (Bakery|Crumb)…$/);
  });

  it("the email providers send one header line whatever the caller gave: a campaign name with a line break in the finished email", async () => {
    const { client, user } = await owner();
    const c = await contactWith(user.id, "Acme");
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Spring\r\nBcc: victim@example.com",
      subject: "Hello",
      body: "News",
      audience: { contactIds: [c.id] },
    });
    expect(launch.statusCode, launch.body).toBe(200);
    let finished: string | undefined;
    await expect
      .poll(
        async () => {
          finished = (await subjectsTo(user.email)).find((s) => s.includes("has finished"));
          return finished;
        },
        { timeout: 20_000 },
      )
      .toBeDefined();
    expect(finished).toMatch(NO_BREAKS);
    expect(finished).toBe('Your campaign "Spring Bcc: victim@example.com" has finished');
  });
});
