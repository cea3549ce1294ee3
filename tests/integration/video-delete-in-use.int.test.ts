import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns, mediaItems } from "../../src/server/db/schema";
import { PERSON } from "../browser-ua";
import {
  type AuthedClient,
  createTestApp,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";
import { multipart } from "./studio-helpers";

// A library video that video campaigns use (QA: deleting it gave no warning, a scheduled campaign then
// emailed a dead /v/ link reported "Delivered", and the cascade wiped sent campaigns' engagement).
// The Studio names the campaigns using it and refuses the deletion while one still has messages to
// send; a video gone anyway at send time fails the message with the reason; a sent campaign's
// landing pages and engagement outlive the video (migration 0060), the report saying it was deleted.

const MEDIA = SHARED_DATA ? path.join(SHARED_DATA, "media") : "";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

async function uploadFlower(client: AuthedClient, name: string) {
  const body = multipart(
    { name },
    { field: "video", filename: "flower.mp4", content: fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")) },
  );
  const res = await client.inject({ method: "POST", url: "/api/videos/upload", ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().media as { id: number };
}

async function seller() {
  const { client, user } = await signUp(t.app, { name: "Sam Seller", business_name: "Bloom Florists" });
  await setPlan(t, user.id, "professional");
  return { client, user };
}

async function launch(
  client: AuthedClient,
  videoId: number,
  name: string,
  emails: string[],
  scheduledAt?: Date,
) {
  const res = await client.post("/api/campaigns/video", {
    campaignName: name,
    videoId,
    deliveryMethod: "email",
    message: "Hi {name}, a quick video.",
    contacts: emails.map((email, i) => ({ name: `Person ${i}`, email })),
    ...(scheduledAt ? { scheduledAt: scheduledAt.toISOString() } : {}),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaign.id as number;
}

async function outboxCount(to: string) {
  const [row] = await t.sql<
    { n: number }[]
  >`select count(*)::int as n from outbox_messages where "to" = ${to}`;
  return row?.n ?? 0;
}

describe.skipIf(!SHARED_DATA)(`deleting a video campaigns use (${SHARED_DATA_MISSING})`, () => {
  it("is refused (409, REST and tRPC) while a campaign using it is scheduled, naming it; the dialog's uses list it; allowed once it is cancelled", async () => {
    const { client } = await seller();
    const video = await uploadFlower(client, "Spring promo");
    const sent = await launch(client, video.id, "Sent last week", [uniqueEmail("a")]);
    const later = await launch(
      client,
      video.id,
      "Spring follow-up",
      [uniqueEmail("b")],
      new Date(Date.now() + 120_000),
    );

    const uses = await trpcCall(client, "studio.uses", { id: video.id }, "query");
    expect(uses.status).toBe(200);
    expect(uses.data.campaigns).toEqual([
      { id: later, name: "Spring follow-up", status: "scheduled", pending: true },
      { id: sent, name: "Sent last week", status: "completed", pending: false },
    ]);
    const sentence =
      'This video is used by the campaign "Spring follow-up" (scheduled), which still has messages to send. Cancel that campaign or wait until it finishes, then delete the video.';
    expect(uses.data.refusal).toBe(sentence);

    const rest = await client.del(`/api/media/${video.id}`);
    expect(rest.statusCode).toBe(409);
    expect(rest.json()).toEqual({
      success: false,
      error: sentence,
      campaigns: [{ id: later, name: "Spring follow-up", status: "scheduled" }],
    });
    const trpc = await trpcCall(client, "studio.delete", { id: video.id });
    expect(trpc.status).toBe(409);
    expect(trpc.error?.message).toBe(sentence);
    // nothing was deleted
    expect((await client.get(`/api/media/${video.id}`)).statusCode).toBe(200);

    expect((await client.post(`/api/campaigns/${later}/cancel`, {})).statusCode).toBe(200);
    const after = await trpcCall(client, "studio.uses", { id: video.id }, "query");
    expect(after.data.refusal).toBeNull();
    expect((await client.del(`/api/media/${video.id}`)).statusCode).toBe(200);
    expect((await client.get(`/api/media/${video.id}`)).statusCode).toBe(404);
  });

  it("a video gone at send time anyway: the scheduled message is not sent, it fails with the reason the report shows", async () => {
    const { client } = await seller();
    const video = await uploadFlower(client, "Gone before sending");
    const to = uniqueEmail("gone");
    const campaignId = await launch(client, video.id, "Scheduled", [to], new Date(Date.now() + 120_000));
    // deleted behind the studio's check (a deletion racing the launch, or any other path)
    await t.db.delete(mediaItems).where(eq(mediaItems.id, video.id));
    await t.db
      .update(campaigns)
      .set({ scheduledAt: new Date(Date.now() - 1000) })
      .where(eq(campaigns.id, campaignId));
    await t.jobs.runDeferred();
    expect(t.jobs.failures).toEqual([]);

    expect(await outboxCount(to)).toBe(0);
    const report = (await client.get(`/api/campaigns/${campaignId}`)).json();
    expect(report.campaign.counts).toEqual({ failed: 1 });
    expect(report.figures.failed).toBe(1);
    const rows = (await client.get(`/api/campaigns/${campaignId}/recipients`)).json();
    expect(rows.recipients.map((r: { status: string; reason: string }) => [r.status, r.reason])).toEqual([
      ["failed", "the video was deleted before this message was sent"],
    ]);
  });

  it("a sent campaign keeps its video engagement after the video is deleted; its pages say the video is no longer available", async () => {
    const { client } = await seller();
    const video = await uploadFlower(client, "Watched then deleted");
    const ada = uniqueEmail("ada");
    const campaignId = await launch(client, video.id, "Watched", [ada, uniqueEmail("bob")]);
    const [mail] = await t.sql<{ html: string }[]>`select html from outbox_messages where "to" = ${ada}`;
    const token = /\/v\/([a-z0-9]+)/.exec(mail?.html ?? "")?.[1] as string;
    const ev = (body: object) =>
      t.app.inject({ method: "POST", url: `/v/${token}/events`, headers: PERSON, payload: body });
    expect((await ev({ event: "view" })).json().tracked).toBe(true);
    expect((await ev({ event: "progress", percent: 25 })).json().tracked).toBe(true);
    expect((await ev({ event: "progress", percent: 50 })).json().tracked).toBe(true);
    const before = (await client.get(`/api/campaigns/video/${campaignId}/stats`)).json().stats;
    expect(before).toMatchObject({ viewers: 1, views: 1, watched: { 25: 1, 50: 1, 75: 0, 100: 0 } });

    expect((await client.del(`/api/media/${video.id}`)).statusCode).toBe(200);

    const stats = (await client.get(`/api/campaigns/video/${campaignId}/stats`)).json().stats;
    // the figures are kept (the landing pages outlive the video), and the report says it was deleted
    expect(stats).toMatchObject({ viewers: 1, views: 1, watched: { 25: 1, 50: 1, 75: 0, 100: 0 } });
    expect(stats).toMatchObject({ media_id: null, video_deleted: true });
    expect(before.video_deleted).toBe(false);
    const page = await t.app.inject({ method: "GET", url: `/v/${token}` });
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain("This video is no longer available");
    expect((await t.app.inject({ method: "GET", url: `/v/${token}/video` })).statusCode).toBe(404);
    // a view of the dead page records nothing
    expect((await ev({ event: "view" })).json().tracked).toBe(false);
    expect((await client.get(`/api/campaigns/video/${campaignId}/stats`)).json().stats.views).toBe(1);
  });
});
