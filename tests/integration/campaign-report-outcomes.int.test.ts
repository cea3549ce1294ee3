import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import {
  campaignRecipientRows,
  createTestApp,
  daytimeZone,
  postTwilioWebhook,
  runCampaignRowsNow,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// The campaign report from a QA pass: an SMS reply's text reaches the recipients table; the REST
// report cuts its timeline in `?tz=`; a STOP stays in a past campaign's report after a START; a
// person who opts out while waiting for quiet hours is counted once (opted out, not also waiting).

let t: TestApp;
const twToken = "twilio-auth-token";
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false", TWILIO_AUTH_TOKEN: twToken });
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
/** An inbound SMS `body` from `from` to our number, signed as Twilio signs it. */
async function inbound(from: string, body: string) {
  const res = await postTwilioWebhook(t.app, twToken, "inbound", {
    MessageSid: `SMin${Date.now()}${++seq}`,
    From: from,
    To: "+15005550006",
    Body: body,
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** An Etc/GMT zone where the local time is now about `hour`:00. */
function zoneAt(hour: number): string {
  const o = ((hour - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

/** A Business user's SMS campaign to `phones` (contacts in `zone`, consent confirmed), sent by the local provider. */
async function smsCampaign(phones: string[], zone = daytimeZone()) {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const ids = await findOrCreateContacts(
    t.ctx,
    u.user.id,
    phones.map((phone, i) => ({ name: `R${i}`, phone })),
  );
  await t.db.update(contacts).set({ timezone: zone }).where(inArray(contacts.id, ids));
  const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
    name: "Texts",
    channel: "sms",
    content: { message: "Hi there" },
    recipients: { contactIds: ids },
    includeNotOptedIn: true,
  });
  return { u, ids, id: launched.campaign.id, rows: await campaignRecipientRows(t, launched.campaign.id) };
}

type Client = Awaited<ReturnType<typeof signUp>>["client"];
const reportOf = async (client: Client, id: number, query = "") => {
  const res = await client.get(`/api/campaigns/${id}${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe("SMS replies in the report", () => {
  it("the recipients list carries the latest reply's text, as sent (the page renders it as text)", async () => {
    const [p0, p1] = [await uniquePhone("212"), await uniquePhone("212")];
    const { u, id, rows } = await smsCampaign([p0, p1]);
    expect(rows.map((r) => r.status)).toEqual(["sent", "sent"]);
    const hostile = `<img src=x onerror="alert(1)"> Tell me & more`;
    await inbound(p0, "First question");
    await inbound(p0, hostile);
    const res = await u.client.get(`/api/campaigns/${id}/recipients`);
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json().recipients as { address: string; replyText: string | null; repliedAt: unknown }[];
    const byAddress = new Map(list.map((r) => [r.address, r]));
    // the second reply replaces the first; the one who did not reply has none
    expect(byAddress.get(p0)?.replyText).toBe(hostile);
    expect(byAddress.get(p0)?.repliedAt).toBeTruthy();
    expect(byAddress.get(p1)?.replyText).toBeNull();
    // tRPC (the app's report) gives the same
    const report = await reportOf(u.client, id);
    expect(report.figures.replied).toBe(1);
  });
});

describe("REST GET /api/campaigns/:id?tz=", () => {
  it("cuts the timeline's buckets in the zone named, UTC without one; a bad zone or parameter is a 400 sentence", async () => {
    const phone = await uniquePhone("212");
    const { u, id, rows } = await smsCampaign([phone]);
    // 10:10 and 21:40 IST on Mar 10: hour buckets that start at :30 UTC in Kolkata
    await t.sql`update campaign_recipients set sent_at = '2025-03-10T04:40:00Z', delivered_at = '2025-03-10T16:10:00Z'
      where id = ${rows[0]!.id}`;
    const kolkata = await reportOf(u.client, id, "?tz=Asia%2FKolkata");
    expect(kolkata.timeZone).toBe("Asia/Kolkata");
    expect(kolkata.bucket).toBe("hour");
    expect(kolkata.timeline[0].t).toBe("2025-03-10T04:30:00.000Z");
    const utc = await reportOf(u.client, id);
    expect(utc.timeZone).toBe("UTC");
    expect(utc.timeline[0].t).toBe("2025-03-10T04:00:00.000Z");
    for (const [query, message] of [
      ["?tz=Mars%2FBase", /^The query parameter tz must be a time zone name such as Asia\/Kolkata \(IANA/],
      ["?tz=%2B05%3A30", /^The query parameter tz must be a time zone name/],
      ["?tz=", /^The query parameter tz must be a time zone name/],
      ["?tz=UTC&tz=Asia%2FKolkata", /^The query parameter tz must be a time zone name/],
      ["?zone=UTC", /not accepted here: zone/],
    ] as const) {
      const res = await u.client.get(`/api/campaigns/${id}${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error, query).toMatch(message);
    }
  });
});

describe("opt-outs in the report", () => {
  it("a START does not take a past campaign's STOP out of its report", async () => {
    const phone = await uniquePhone("212");
    const { u, id } = await smsCampaign([phone]);
    await inbound(phone, "STOP");
    expect((await reportOf(u.client, id)).figures.optedOut).toBe(1);
    await inbound(phone, "START");
    const [row] = await campaignRecipientRows(t, id);
    // the START re-subscribed the number (the row's reason is cleared, so a later STOP is a new one)
    expect(row?.reason).toBeNull();
    const report = await reportOf(u.client, id);
    expect(report.figures.optedOut).toBe(1);
    const list = (await u.client.get(`/api/campaigns/${id}/recipients`)).json().recipients;
    expect(list[0].optedOutAt).toBeTruthy();
  });

  it("one who opts out while waiting for quiet hours is opted out, not also waiting; once skipped, skipped only", async () => {
    const phone = await uniquePhone("212");
    // 3 AM where the contact is: the text waits for 8 AM
    const { u, id, ids } = await smsCampaign([phone], zoneAt(3));
    const [queued] = await campaignRecipientRows(t, id);
    expect(queued?.status).toBe("queued");
    expect(queued?.notBefore).toBeTruthy();
    let f = (await reportOf(u.client, id)).figures;
    expect([f.pending, f.optedOut]).toEqual([1, 0]);
    await inbound(phone, "STOP");
    f = (await reportOf(u.client, id)).figures;
    expect({ pending: f.pending, optedOut: f.optedOut, skipped: f.skipped }).toEqual({
      pending: 0,
      optedOut: 1,
      skipped: 0,
    });
    // its time comes: the send skips them for the opt-out, and they are counted skipped only
    await t.db.update(contacts).set({ timezone: daytimeZone() }).where(inArray(contacts.id, ids));
    await runCampaignRowsNow(t, id);
    const [after] = await campaignRecipientRows(t, id);
    expect(after?.status).toBe("skipped");
    f = (await reportOf(u.client, id)).figures;
    expect({ pending: f.pending, optedOut: f.optedOut, skipped: f.skipped }).toEqual({
      pending: 0,
      optedOut: 0,
      skipped: 1,
    });
  });
});
