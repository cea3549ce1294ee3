import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, mediaItems } from "../../src/server/db/schema";
import {
  campaignRecipientRows,
  createTestApp,
  outboxCountsTo,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";
import { uniquePhone } from "../unique-phone";

// A launch without a launch token (an outside client that sends no Idempotency-Key) is known by what
// it sends, to whom: the same workspace launching an identical campaign (channel, name, content,
// recipients) within 10 minutes gets the first campaign's answer, and nothing is created or sent twice.
// Every request goes through the app (app.inject); the racing ones are sent at once with Promise.all.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const sentTo = async (addresses: string[]) => {
  const n = await outboxCountsTo(t, addresses);
  return addresses.map((a) => n.get(a) ?? 0);
};
const campaignsOf = (workspaceId: string) =>
  t.db
    .select({ id: campaigns.id, name: campaigns.name, status: campaigns.status })
    .from(campaigns)
    .where(eq(campaigns.workspaceId, workspaceId))
    .orderBy(campaigns.id);
/** Moves the workspace's campaigns' creation `minutes` into the past (as if launched that long ago). */
const age = (workspaceId: string, minutes: number) =>
  t.db
    .update(campaigns)
    .set({ createdAt: sql`${campaigns.createdAt} - make_interval(mins => ${minutes})` })
    .where(eq(campaigns.workspaceId, workspaceId));

describe("launches without a launch token: an identical launch within 10 minutes is the same campaign", () => {
  it("email: two identical launches at once make one campaign and one email each; a later repeat answers it too", async () => {
    const { client, user } = await signUp(t.app);
    const emails = [uniqueEmail("rep"), uniqueEmail("rep"), uniqueEmail("rep")];
    const body = {
      campaignName: "Spring offer",
      subject: "Hello {{name|there}}",
      body: "Our spring offer",
      contacts: emails.map((email) => ({ name: "R", email })),
    };
    const [a, b] = await Promise.all([
      client.post("/api/campaigns/email/launch", body),
      client.post("/api/campaigns/email/launch", body),
    ]);
    expect([a.statusCode, b.statusCode], a.body + b.body).toEqual([200, 200]);
    expect(b.json().campaignId).toBe(a.json().campaignId);
    // both get the launch's success answer, with its counts
    for (const r of [a, b]) expect(r.json()).toMatchObject({ success: true, recipients: 3, skipped: {} });
    expect(await campaignsOf(user.id)).toHaveLength(1);
    expect(await sentTo(emails)).toEqual([1, 1, 1]);

    // sequential repeats (a retry after a lost response), also with the body's keys in another order
    // and the recipients listed in another order
    const again = await client.post("/api/campaigns/email/launch", {
      contacts: [...body.contacts].reverse(),
      body: body.body,
      subject: body.subject,
      campaignName: `  ${body.campaignName} `,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ campaignId: a.json().campaignId, recipients: 3, skipped: {} });
    expect(await campaignsOf(user.id)).toHaveLength(1);
    expect(await sentTo(emails)).toEqual([1, 1, 1]);

    // anything different is another campaign: the content, the name, the recipients
    const other = await Promise.all([
      client.post("/api/campaigns/email/launch", { ...body, body: "Our summer offer" }),
      client.post("/api/campaigns/email/launch", { ...body, campaignName: "Spring offer 2" }),
      client.post("/api/campaigns/email/launch", { ...body, contacts: body.contacts.slice(1) }),
    ]);
    expect(other.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(new Set([a, ...other].map((r) => r.json().campaignId)).size).toBe(4);
    expect(await sentTo(emails)).toEqual([3, 4, 4]);
  });

  it("sms, the generic route and tRPC: concurrent identical launches make one campaign and one message each", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const phones = [await uniquePhone("212"), await uniquePhone("212")];
    const sms = {
      campaignName: "Texts",
      message: "Hi {{name|there}}, see you soon",
      contacts: phones.map((phone) => ({ name: "S", phone })),
      includeNotOptedIn: true,
    };
    const texts = await Promise.all([0, 1, 2].map(() => client.post("/api/campaigns/sms/launch", sms)));
    expect(
      texts.map((r) => r.statusCode),
      texts.map((r) => r.body).join(),
    ).toEqual([200, 200, 200]);
    expect(new Set(texts.map((r) => r.json().campaignId)).size).toBe(1);
    // one recipient per number; SMS keeps 8am-9pm in New York (area code 212), so each is either sent
    // once now or held once for quiet hours (never both, never twice)
    const recs = await campaignRecipientRows(t, texts[0]!.json().campaignId);
    expect(recs.map((r) => r.address).sort()).toEqual(phones);
    const sent = await sentTo(phones);
    for (const r of recs) {
      if (r.status === "queued") {
        expect(r.reason).toMatch(/quiet hours \(America\/New_York\)/);
        expect(sent[phones.indexOf(r.address)], `held ${r.address} was sent`).toBe(0);
      } else expect(sent[phones.indexOf(r.address)]).toBe(1);
    }

    const emails = [uniqueEmail("gen"), uniqueEmail("gen")];
    const generic = {
      name: "Generic",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { csv: emails.map((email) => ({ email })) },
    };
    const [g1, g2, r1, r2] = await Promise.all([
      client.post("/api/campaigns", generic),
      client.post("/api/campaigns", generic),
      trpc(client, "campaigns.create", generic, "mutation"),
      trpc(client, "campaigns.create", generic, "mutation"),
    ]);
    expect([g1.statusCode, g2.statusCode, r1.status, r2.status]).toEqual([200, 200, 200, 200]);
    const ids = [g1.json().campaignId, g2.json().campaignId, r1.data.campaign.id, r2.data.campaign.id];
    expect(new Set(ids).size).toBe(1);
    expect(await sentTo(emails)).toEqual([1, 1]);
    // the SMS campaign and the email campaign: two campaigns in all
    expect(await campaignsOf(user.id)).toHaveLength(2);

    // another workspace's identical launch is its own
    const other = await signUp(t.app);
    const o = await other.client.post("/api/campaigns", generic);
    expect(o.statusCode).toBe(200);
    expect(o.json().campaignId).not.toBe(ids[0]);
    expect(await sentTo(emails)).toEqual([2, 2]);
  });

  it("a video campaign launched twice at once is one campaign", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const [video] = await t.db
      .insert(mediaItems)
      .values({
        workspaceId: user.id,
        name: "Demo video",
        type: "video",
        processingStatus: "ready",
        mimeType: "video/mp4",
        sizeBytes: 1000,
        originalSizeBytes: 1000,
      })
      .returning();
    const emails = [uniqueEmail("vid"), uniqueEmail("vid")];
    const body = {
      campaignName: "Video hello",
      videoId: video!.id,
      deliveryMethod: "email",
      message: "Hi {name}, a video for you",
      contacts: emails.map((email) => ({ name: "V", email })),
    };
    const [a, b] = await Promise.all([
      client.post("/api/campaigns/video", body),
      client.post("/api/campaigns/video", body),
    ]);
    expect([a.statusCode, b.statusCode], a.body + b.body).toEqual([200, 200]);
    expect(b.json().campaign.id).toBe(a.json().campaign.id);
    expect(await campaignsOf(user.id)).toHaveLength(1);
    expect(await sentTo(emails)).toEqual([1, 1]);
  });

  it("after the window, or once the first was cancelled, the same launch is a new campaign; launch tokens keep their own rule", async () => {
    const { client, user } = await signUp(t.app);
    const emails = [uniqueEmail("win")];
    const body = {
      campaignName: "Weekly",
      subject: "S",
      body: "B",
      contacts: emails.map((email) => ({ name: "W", email })),
    };
    const first = await client.post("/api/campaigns/email/launch", body);
    expect(first.statusCode).toBe(200);
    // 9 minutes later: still the same campaign
    await age(user.id, 9);
    expect((await client.post("/api/campaigns/email/launch", body)).json().campaignId).toBe(
      first.json().campaignId,
    );
    expect(await sentTo(emails)).toEqual([1]);
    // 11 minutes later: a deliberate repeat, a new campaign that sends again
    await age(user.id, 2);
    const later = await client.post("/api/campaigns/email/launch", body);
    expect(later.statusCode).toBe(200);
    expect(later.json().campaignId).not.toBe(first.json().campaignId);
    expect(await sentTo(emails)).toEqual([2]);

    // a scheduled launch cancelled within the window: launching it again makes a new campaign
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await client.post("/api/campaigns/email/launch", { ...body, scheduledAt: at });
    expect(scheduled.statusCode).toBe(200);
    expect((await client.post(`/api/campaigns/${scheduled.json().campaignId}/cancel`, {})).statusCode).toBe(
      200,
    );
    const relaunched = await client.post("/api/campaigns/email/launch", { ...body, scheduledAt: at });
    expect(relaunched.statusCode).toBe(200);
    expect(relaunched.json().campaignId).not.toBe(scheduled.json().campaignId);

    const rows = await t.db
      .select({ id: campaigns.id })
      .from(campaigns)
      .where(and(eq(campaigns.workspaceId, user.id), eq(campaigns.status, "cancelled")));
    expect(rows).toHaveLength(1);
    expect(await campaignsOf(user.id)).toHaveLength(4);
  });

  it("two drafts of the same campaign (two builder tabs: two launch tokens) send once; 'Send it again' sends again", async () => {
    const { client, user } = await signUp(t.app);
    const emails = [uniqueEmail("tabs"), uniqueEmail("tabs")];
    const body = {
      name: "Two tabs",
      channel: "email",
      content: { subject: "Hello", body: "Our offer" },
      recipients: { csv: emails.map((email) => ({ name: "T", email })) },
    };
    const [tabA, tabB] = [crypto.randomUUID(), crypto.randomUUID()];
    const first = await trpc(client, "campaigns.create", { ...body, launchToken: tabA });
    expect(first.status, JSON.stringify(first.error)).toBe(200);
    expect(first.data.repeated).toBeUndefined();
    // the second tab's launch, minutes later: answered with the first campaign, nothing sent again
    await age(user.id, 3);
    const second = await trpc(client, "campaigns.create", { ...body, launchToken: tabB });
    expect(second.status).toBe(200);
    expect(second.data).toMatchObject({ repeated: true, otherLaunch: true, queued: 2 });
    expect(second.data.campaign.id).toBe(first.data.campaign.id);
    // the first tab's own retry is a plain repeat, not "another launch"
    const retry = await trpc(client, "campaigns.create", { ...body, launchToken: tabA });
    expect(retry.data).toMatchObject({ repeated: true, queued: 2 });
    expect(retry.data.otherLaunch).toBeUndefined();
    // the REST routes say the same (the spec's body plus repeated / otherLaunch)
    const rest = await client.post("/api/campaigns/email/launch", {
      campaignName: body.name,
      subject: body.content.subject,
      body: body.content.body,
      contacts: body.recipients.csv,
      launchToken: crypto.randomUUID(),
    });
    expect(rest.json()).toMatchObject({
      campaignId: first.data.campaign.id,
      repeated: true,
      otherLaunch: true,
    });
    expect(await campaignsOf(user.id)).toHaveLength(1);
    expect(await sentTo(emails)).toEqual([1, 1]);

    // "Send it again" in the second tab: allowRepeat makes a new campaign that sends again
    const again = await trpc(client, "campaigns.create", { ...body, launchToken: tabB, allowRepeat: true });
    expect(again.status, JSON.stringify(again.error)).toBe(200);
    expect(again.data.repeated).toBeUndefined();
    expect(again.data.campaign.id).not.toBe(first.data.campaign.id);
    expect(await campaignsOf(user.id)).toHaveLength(2);
    await expect.poll(() => sentTo(emails), { timeout: 15_000 }).toEqual([2, 2]);
    // and a tokenless repeat (an outside client) now answers that newest campaign
    const tokenless = await trpc(client, "campaigns.create", body);
    expect(tokenless.data).toMatchObject({ repeated: true, campaign: { id: again.data.campaign.id } });
    expect(await campaignsOf(user.id)).toHaveLength(2);
  });
});
