import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, outboxMessages } from "../../src/server/db/schema";
import { PERSON } from "../browser-ua";
import { createTestApp, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";
import { uniqueDaytimePhone } from "../unique-phone";

// QA: a link at the end of a sentence took the full stop or comma into it. The email "Read
// https://quinn.example.com/page. Thanks" went out as "Read http://.../c/<token>/0/<sig> Thanks" (the
// full stop gone) and the tracked link redirected to "https://quinn.example.com/page." (a broken
// page); "https://.../p4," kept its comma; the HTML part linked href="https://quinn.example.com/page.".
// The punctuation stays in the text after the tracked link, which leads to the URL without it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const PAGE = "https://quinn.example.com/page";
const P4 = "https://quinn.example.com/p4";
/** a tracked link as sent: http://localhost:80/c/{token}/{i}/{signature} */
const TRACKED = (token: string, i: number) => `http://localhost:80/c/${token}/${i}/[A-Za-z0-9_-]{22}`;

async function sentTo(to: string) {
  const rows = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
  expect(rows).toHaveLength(1);
  return rows[0] as (typeof rows)[number];
}

async function tokenOf(campaignId: number) {
  const [row] = await t.db
    .select()
    .from(campaignRecipients)
    .where(eq(campaignRecipients.campaignId, campaignId));
  return row?.token as string;
}

/** Follows a tracked link as its recipient would; the address it redirects to. */
async function follow(link: string): Promise<string | undefined> {
  const res = await t.app.inject({
    method: "GET",
    url: link.replace("http://localhost:80", ""),
    headers: PERSON,
  });
  expect(res.statusCode).toBe(302);
  return res.headers.location as string | undefined;
}

describe("a link at the end of a sentence", () => {
  it("email: the full stop and comma stay in the text, the tracked links lead to the URLs without them", async () => {
    const { client } = await signUp(t.app);
    const to = uniqueEmail("punct");
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Punctuation",
      subject: "S",
      body: `Read ${PAGE}. Thanks, and ${P4}, too`,
      contacts: [{ name: "Quinn", email: to }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const token = await tokenOf(res.json().campaignId);
    const mail = await sentTo(to);
    const m = mail.body.match(
      new RegExp(`^Read (${TRACKED(token, 0)})\\. Thanks, and (${TRACKED(token, 1)}), too\\n`),
    );
    expect(m, mail.body).toBeTruthy();
    const [, first, second] = m as RegExpMatchArray;
    expect(await follow(first as string)).toBe(PAGE);
    expect(await follow(second as string)).toBe(P4);
    // the HTML part links the same tracked links, the punctuation after them
    expect(mail.html).toContain(`href="${first}"`);
    expect(mail.html).toContain(`href="${second}"`);
    expect(mail.html).toContain(`>${first}</a><span>. Thanks, and </span>`);
    expect(mail.html).toContain(`>${second}</a><span>, too</span>`);
  });

  it("the test email links the URLs without the full stop and comma, which stay in the text", async () => {
    const { client, user } = await signUp(t.app);
    const body = `Read ${PAGE}. Thanks, and ${P4}, too`;
    const ok = await client.post("/api/campaigns/email/test", {
      subject: "Dots",
      body,
      testEmail: user.email,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const [mail] = (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, user.email))).filter(
      (r) => r.subject === "[Test] Dots",
    );
    expect(mail?.body.startsWith(`${body}\n`)).toBe(true);
    expect(mail?.html).toContain(`href="${PAGE}"`);
    expect(mail?.html).toContain(`href="${P4}"`);
    expect(mail?.html).not.toContain(`href="${PAGE}."`);
  });

  it("SMS: the full stop and comma stay in the text, the tracked links lead to the URLs without them", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    // a number where it is day now: a text outside 08:00-21:00 where the number is waits for morning
    const phone = await uniqueDaytimePhone();
    const res = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Punctuation SMS",
      message: `Menu ${PAGE}. Order ${P4}, today`,
      contacts: [{ name: "Quinn", phone }],
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const token = await tokenOf(res.json().campaignId);
    const sms = await sentTo(phone);
    const m = sms.body.match(
      new RegExp(`^Acme: Menu (${TRACKED(token, 0)})\\. Order (${TRACKED(token, 1)}), today\\nReply STOP`),
    );
    expect(m, sms.body).toBeTruthy();
    const [, first, second] = m as RegExpMatchArray;
    expect(await follow(first as string)).toBe(PAGE);
    expect(await follow(second as string)).toBe(P4);
    // the dev outbox shows the text with the same links clickable, the punctuation after them
    const page = await t.app.inject({
      method: "GET",
      url: `/dev/outbox?channel=sms&to=${encodeURIComponent(phone)}`,
    });
    expect(page.body).toContain(
      `<a href="${first}">${first}</a>. Order <a href="${second}">${second}</a>, today`,
    );
  });
});
