import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, mediaItems } from "../../src/server/db/schema";
import { SMS_TOO_LONG } from "../../src/server/features/campaigns/campaigns.content";
import { createTestApp, daytimeZone, setPlan, signUp, type TestApp, trpcCall as trpc } from "../helpers";
import { uniquePhone } from "../unique-phone";

/*
 * The launch skips a text whose merge tags fill it past 1,600 characters (Twilio's limit), but the
 * preflight (the builder's review: who will be sent, who is skipped and why) did not take the message,
 * so it left that skip out: the review promised more texts than the launch then queued. The preflight
 * now takes the message (`message`, a generic body's `content`) and counts "message too long once
 * filled in (over 1,600 characters)" with the launch's own check (campaigns.content launchContentSkip),
 * so its numbers are the launch's.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

/** Contacts of `workspaceId` with these companies and bios, opted in to SMS, where it is day now. */
async function contactsWith(workspaceId: string, rows: { company: string; bio?: string }[]) {
  const ids: number[] = [];
  for (const [i, r] of rows.entries()) {
    const [row] = await t.db
      .insert(contacts)
      .values({
        workspaceId,
        firstName: `Pat${i}`,
        company: r.company,
        phone: await uniquePhone("212"),
        smsOptIn: true,
        timezone: daytimeZone(),
        customFields: r.bio ? { bio: r.bio } : {},
      })
      .returning({ id: contacts.id });
    ids.push(row!.id);
  }
  return ids;
}

/** How many of the campaign's recipients were queued (not skipped). */
async function queuedOf(campaignId: number) {
  const [r] = await t.db.execute<{ n: number }>(
    sql`select count(*)::int as n from campaign_recipients where campaign_id = ${campaignId} and status <> 'skipped'`,
  );
  return r!.n;
}

const sendable = (p: { willSendNow: number; deferred: { count: number } }) =>
  p.willSendNow + p.deferred.count;

async function workspace() {
  const u = await signUp(t.app, { business_name: "Harbor Sweets" });
  await setPlan(t, u.user.id, "business");
  // two whose long company or custom field fills the text past 1,600 characters, three that fit
  const ids = await contactsWith(u.user.id, [
    { company: "Lee Florist" },
    { company: `Grand ${"Consolidated ".repeat(30)}Holdings` }, // 404 characters
    { company: "Bay Tiles", bio: "b".repeat(500) },
    { company: "North Cafe", bio: "short bio" },
    { company: "Elm Books" },
  ]);
  return { ...u, ids };
}

// 4 x {{company}} + 4 x {{bio}}: the 404-character company and the 500-character bio pass 1,600
const MESSAGE =
  "Hi {{first_name}} of {{company}} ({{company}}, {{company}}, {{company}}): {{bio}} {{bio}} {{bio}} {{bio}}";

describe("an SMS preflight given the message", () => {
  it("counts the texts too long once filled in, and sends what the launch then queues (REST bodies)", async () => {
    const w = await workspace();
    const body = { channel: "sms", message: MESSAGE, contacts: w.ids.map((id) => ({ id })) };
    const pre = await w.client.post("/api/campaigns/preflight", body);
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json().skipped).toEqual({ [SMS_TOO_LONG]: 2 });
    expect(sendable(pre.json())).toBe(3);
    expect(pre.json().audienceSize).toBe(5);

    const launch = await w.client.post("/api/campaigns/sms/launch", {
      campaignName: "Long fields",
      message: MESSAGE,
      contacts: w.ids.map((id) => ({ id })),
    });
    expect(launch.statusCode, launch.body).toBe(200);
    expect(launch.json().recipients).toBe(sendable(pre.json()));
    expect(launch.json().skipped).toEqual(pre.json().skipped);
    expect(await queuedOf(launch.json().campaignId)).toBe(sendable(pre.json()));

    // without the message the preflight reads the audience only (the field is optional, as before)
    const bare = await w.client.post("/api/campaigns/preflight", { ...body, message: undefined });
    expect(bare.json()).toMatchObject({ willSendNow: 5, skipped: {} });
    // a generic launch body's content is read the same way
    const generic = await w.client.post("/api/campaigns/preflight", {
      name: "Generic",
      channel: "sms",
      content: { message: MESSAGE },
      recipients: { contactIds: w.ids },
    });
    expect(generic.statusCode, generic.body).toBe(200);
    expect(generic.json().skipped).toEqual({ [SMS_TOO_LONG]: 2 });
    expect(sendable(generic.json())).toBe(3);
  });

  it("tRPC campaigns.preflight with the builder's message equals campaigns.create's queued count", async () => {
    const w = await workspace();
    const audience = { contactIds: w.ids };
    const pre = await trpc(w.client, "campaigns.preflight", { channel: "sms", audience, message: MESSAGE });
    expect(pre.status, JSON.stringify(pre.error)).toBe(200);
    expect(pre.data.skipped).toEqual({ [SMS_TOO_LONG]: 2 });
    const created = await trpc(w.client, "campaigns.create", {
      name: "Builder launch",
      channel: "sms",
      content: { message: MESSAGE },
      audience,
    });
    expect(created.status, JSON.stringify(created.error)).toBe(200);
    expect(created.data.queued).toBe(sendable(pre.data));
    expect(created.data.skipped).toEqual(pre.data.skipped);
    expect(await queuedOf(created.data.campaign.id)).toBe(3);
  });

  it("a video SMS counts its landing page link and first-text additions as the video launch does", async () => {
    const w = await workspace();
    // {{bio}} x 3: 1,500 characters for the 500-character bio, which fits with the video link
    // (48), "Harbor Sweets: " and the STOP line (1,586); 1,545 for a 515-character one, which fits
    // as typed with those two (1,582) but not with the link the video launch appends (1,631)
    const [tight] = await contactsWith(w.user.id, [{ company: "Fig Farm", bio: "v".repeat(515) }]);
    const [video] = await t.db
      .insert(mediaItems)
      .values({
        workspaceId: w.user.id,
        name: "Demo video",
        type: "video",
        processingStatus: "ready",
        mimeType: "video/mp4",
        sizeBytes: 1000,
        originalSizeBytes: 1000,
      })
      .returning();
    const body = {
      deliveryMethod: "sms",
      message: "{{bio}}{{bio}}{{bio}}",
      audience: { contactIds: [...w.ids, tight!] },
    };
    const pre = await w.client.post("/api/campaigns/preflight", body);
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json().skipped).toEqual({ [SMS_TOO_LONG]: 1 });
    expect(sendable(pre.json())).toBe(5);
    const launch = await w.client.post("/api/campaigns/video", {
      ...body,
      campaignName: "Video texts",
      videoId: video!.id,
    });
    expect(launch.statusCode, launch.body).toBe(200);
    expect(launch.json().queued).toBe(sendable(pre.json()));
    expect(launch.json().skipped).toEqual(pre.json().skipped);
    expect(await queuedOf(launch.json().campaign.id)).toBe(5);
    const [row] = await t.db.execute<{ status: string; reason: string | null }>(
      sql`select status, reason from campaign_recipients where campaign_id = ${launch.json().campaign.id} and contact_id = ${tight!}`,
    );
    expect(row).toEqual({ status: "skipped", reason: SMS_TOO_LONG });
  });

  it("refuses a message longer than a text may be, with a sentence", async () => {
    const w = await workspace();
    const res = await w.client.post("/api/campaigns/preflight", {
      channel: "sms",
      message: "x".repeat(1601),
      contacts: [{ id: w.ids[0] }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^Message must be at most 1,600 characters/);
  });
});
