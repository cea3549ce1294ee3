import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, contacts } from "../../src/server/db/schema";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

/*
 * A QA pass on campaign audiences given as rows (the launch's inline `contacts`, generic
 * `recipients.csv`): (a) a row's number that is an existing contact's mobile (not phone) made a new
 * contact beside them, with SMS opt-in off ("Ivy I" next to Ivy Ink who opted in; "Fay Again" next to
 * Fay Fox who replied STOP from her mobile); (b) a row with neither a valid email nor a valid phone
 * ("Bad Number, 12345", an email "not-an-email") made a new empty contact on every launch. Rows match
 * the contacts' phone or mobile, and rows without an address make no contact and are skipped with a
 * reason, the same in the preflight and the launch.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** An IANA zone (Etc/GMT±n) whose local hour is noon right now (outside quiet hours). */
function noonZone(): string {
  const h = new Date().getUTCHours();
  let o = (((12 - h) % 24) + 24) % 24;
  if (o > 14) o -= 24;
  return o === 0 ? "Etc/GMT" : o > 0 ? `Etc/GMT-${o}` : `Etc/GMT+${-o}`;
}

async function contactCount(workspaceId: string): Promise<number> {
  const [r] = await t.db
    .select({ n: sql<number>`count(*)::int` })
    .from(contacts)
    .where(eq(contacts.workspaceId, workspaceId));
  return r.n;
}

const NO_ADDRESS = "no valid email or phone number";

describe("campaign list rows", () => {
  it("a row's number matches a contact's mobile; rows without an address make no contact and are skipped", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const stamp = Date.now();
    // numbers of this test's own: the outbox and the STOP records are shared by the run's test files
    const ivyPhone = await uniquePhone("212");
    const ivyMobile = await uniquePhone("212");
    const fayMobile = await uniquePhone("212");
    const typed = (e164: string) => `(212) 555-${e164.slice(-4)}`;
    const [ivy, fay] = await t.db
      .insert(contacts)
      .values([
        {
          workspaceId: user.id,
          firstName: "Ivy",
          lastName: "Ink",
          email: `ivy-${stamp}@example.com`,
          phone: ivyPhone,
          mobile: ivyMobile,
          smsOptIn: true,
          timezone: noonZone(),
        },
        {
          workspaceId: user.id,
          firstName: "Fay",
          lastName: "Fox",
          mobile: fayMobile,
          smsOptIn: true,
          timezone: noonZone(),
        },
      ])
      .returning({ id: contacts.id });
    await suppress(t.db, user.id, "sms", fayMobile, "stop_reply");
    const before = await contactCount(user.id);
    const rows = [
      { name: "Ivy I", phone: typed(ivyMobile) },
      { name: "Fay Again", phone: `212 555 ${fayMobile.slice(-4)}` },
      { name: "Bad Number", phone: "12345" },
      { name: "Broken Again", email: "not-an-email" },
    ];
    const body = { campaignName: "Spring", message: "Hi {{first_name|there}}", contacts: rows };

    const pre = await client.post("/api/campaigns/preflight", { channel: "sms", ...body });
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json()).toMatchObject({
      audienceSize: 2,
      willSendNow: 1,
      skipped: { "opted out: replied STOP": 1, [NO_ADDRESS]: 2 },
    });

    const launched = await client.post("/api/campaigns/sms/launch", body);
    expect(launched.statusCode, launched.body).toBe(200);
    expect(launched.json().recipients).toBe(1);
    expect(launched.json().skipped).toEqual(pre.json().skipped);
    // no "Ivy I", "Fay Again", "Bad Number" or "Broken Again" contact
    expect(await contactCount(user.id)).toBe(before);
    const sent = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launched.json().campaignId));
    const byContact = sent
      .map((r) => [r.contactId, r.status === "skipped" ? r.reason : "sent", r.address])
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(byContact).toEqual([
      [ivy.id, "sent", ivyMobile],
      [fay.id, "opted out: replied STOP", fayMobile],
    ]);

    // an email launch: the broken address is skipped with the reason, no contact made of it
    const mail = await client.post("/api/campaigns/email/launch", {
      campaignName: "Mail",
      subject: "Hi",
      body: "Hello",
      contacts: [
        { name: "Ivy", email: `IVY-${stamp}@example.com` },
        { name: "Broken Again", email: "not-an-email" },
      ],
    });
    expect(mail.statusCode, mail.body).toBe(200);
    expect(mail.json()).toMatchObject({ recipients: 1, skipped: { [NO_ADDRESS]: 1 } });
    expect(await contactCount(user.id)).toBe(before);

    // only such rows: refused with the reason, nothing created
    const nobody = await client.post("/api/campaigns", {
      name: "Nobody",
      channel: "sms",
      content: { message: "Hi" },
      recipients: { csv: rows.slice(2) },
    });
    expect(nobody.statusCode, nobody.body).toBe(422);
    expect(nobody.json().error).toBe(`Nobody would receive this campaign: 2 ${NO_ADDRESS}.`);
    expect(await contactCount(user.id)).toBe(before);
    const junk = await t.db
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.workspaceId, user.id), eq(contacts.leadSource, "campaign")));
    expect(junk).toEqual([]);
  });
});
