import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  avatarVideos,
  campaignRecipients,
  campaigns,
  videoLandingPages,
  workspaces,
} from "../../src/server/db/schema";
import { MAX_IN_PROGRESS_PER_USER } from "../../src/server/features/avatar/avatar.service";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

/** Personalised avatar videos in video campaigns (issue 6): one local avatar video per recipient. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function outbox(channel: "email" | "sms", to: string) {
  const res = await t.app.inject({
    method: "GET",
    url: `/api/dev/outbox?channel=${channel}&to=${encodeURIComponent(to)}`,
  });
  return res.json().messages as { subject: string; body: string; html: string | null }[];
}

async function setPlan(workspaceId: string, plan: string) {
  await t.db.update(workspaces).set({ plan }).where(eq(workspaces.id, workspaceId));
}

describe("personalised avatar video campaigns", () => {
  it("renders one local avatar video per recipient with the merged script; each landing page plays its own video; each message goes out once", async () => {
    const { client, user } = await signUp(t.app, { name: "Sam Seller", business_name: "Bloom Florists" });
    await setPlan(user.id, "professional");
    const ada = uniqueEmail("ada");
    const bob = uniqueEmail("bob");
    const res = await client.post("/api/campaigns/video", {
      campaignName: "Avatar hello",
      avatarScript: "Hi {{name|there}}, thanks for stopping by.",
      deliveryMethod: "email",
      message: "Hi {name}, I made this video just for you.",
      contacts: [
        { name: "Ada", company: "Analytical Ltd", email: ada },
        { name: "", company: "", email: bob },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ success: true, queued: 2 });
    const campaignId = res.json().campaign.id as number;

    // two avatar videos, scripts merged per recipient, both completed into the library
    const videos = await t.db
      .select()
      .from(avatarVideos)
      .where(eq(avatarVideos.workspaceId, user.id))
      .orderBy(avatarVideos.createdAt);
    expect(videos.map((v) => v.script).sort()).toEqual([
      "Hi Ada, thanks for stopping by.",
      "Hi there, thanks for stopping by.",
    ]);
    expect(videos.every((v) => v.provider === "local" && v.status === "completed" && v.mediaId)).toBe(true);
    expect(new Set(videos.map((v) => v.mediaId)).size).toBe(2);

    // each recipient got exactly one email, linking to their own landing page
    const tokens: Record<string, string> = {};
    for (const to of [ada, bob]) {
      const mails = await outbox("email", to);
      expect(mails).toHaveLength(1);
      const link = /http:\/\/localhost:80\/v\/([a-z0-9]+)/.exec(mails[0].html ?? "");
      expect(link, mails[0].html ?? "").toBeTruthy();
      tokens[to] = link![1];
    }
    expect(tokens[ada]).not.toBe(tokens[bob]);

    // each landing page row and video file is that recipient's own avatar video
    const pages = await t.db
      .select()
      .from(videoLandingPages)
      .where(inArray(videoLandingPages.token, [tokens[ada], tokens[bob]]));
    const mediaByToken = new Map(pages.map((p) => [p.token, p.mediaId]));
    const adaVideo = videos.find((v) => v.script.startsWith("Hi Ada"))!;
    const bobVideo = videos.find((v) => v.script.startsWith("Hi there"))!;
    expect(mediaByToken.get(tokens[ada])).toBe(adaVideo.mediaId);
    expect(mediaByToken.get(tokens[bob])).toBe(bobVideo.mediaId);

    const files: Buffer[] = [];
    for (const to of [ada, bob]) {
      const page = await t.app.inject({ method: "GET", url: `/v/${tokens[to]}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`/v/${tokens[to]}/video`);
      const vid = await t.app.inject({ method: "GET", url: `/v/${tokens[to]}/video` });
      expect(vid.statusCode).toBe(200);
      expect(vid.headers["content-type"]).toBe("video/mp4");
      files.push(vid.rawPayload);
    }
    expect(files[0].length).toBeGreaterThan(1000);
    expect(files[0].equals(files[1])).toBe(false);
    // the landing page serves the same bytes as the recipient's library item
    const own = await client.inject({ method: "GET", url: `/api/media/${adaVideo.mediaId}/file` });
    expect(own.statusCode).toBe(200);
    expect(Buffer.from(own.rawPayload).equals(files[0])).toBe(true);

    // both recipients sent, the campaign completed; running deferred jobs sends nothing twice
    await t.jobs.runDeferred();
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, campaignId));
    // sent (the local providers then simulate delivery and opens)
    expect(rows).toHaveLength(2);
    expect(
      rows.every((r) => r.sentAt && !["queued", "sending", "skipped", "failed"].includes(r.status)),
    ).toBe(true);
    const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, campaignId));
    expect(c.status).toBe("completed");
    expect(await outbox("email", ada)).toHaveLength(1);
    expect(await outbox("email", bob)).toHaveLength(1);
  }, 120_000);

  it("queues renders beyond the per-user in-progress cap instead of failing, and holds those messages until their video is ready", async () => {
    const { client, user } = await signUp(t.app, { name: "Queue Tester" });
    await setPlan(user.id, "business");
    // occupy the cap with videos that never finish (no job polls them)
    await t.db.insert(avatarVideos).values(
      Array.from({ length: MAX_IN_PROGRESS_PER_USER }, (_, i) => ({
        workspaceId: user.id,
        provider: "local" as const,
        script: `busy ${i}`,
        title: `busy ${i}`,
        status: "processing" as const,
        deadlineAt: new Date(Date.now() + 3600_000),
      })),
    );
    const to = uniqueEmail("held");
    const res = await client.post("/api/campaigns/video", {
      campaignName: "Held",
      avatarScript: "Hello {{first_name|friend}}!",
      contacts: [{ name: "Held Person", email: to }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ queued: 1, campaign: { status: "sending" } });
    // no video yet, no message yet: the recipient is held, the render waits in the queue
    const mine = () =>
      t.db
        .select()
        .from(avatarVideos)
        .where(and(eq(avatarVideos.workspaceId, user.id), eq(avatarVideos.script, "Hello Held!")));
    expect(await mine()).toHaveLength(0);
    expect(await outbox("email", to)).toHaveLength(0);
    const [held] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, res.json().campaign.id));
    expect(held.status).toBe("queued");
    expect(held.notBefore!.getTime()).toBeGreaterThan(Date.now() + 3600_000);

    // the cap frees up: the queued render runs, then the message goes out
    await t.db
      .update(avatarVideos)
      .set({ status: "error", error: "test" })
      .where(and(eq(avatarVideos.workspaceId, user.id), eq(avatarVideos.status, "processing")));
    await t.jobs.runDeferred();
    const [video] = await mine();
    expect(video?.status).toBe("completed");
    expect(await outbox("email", to)).toHaveLength(1);
  }, 120_000);

  it("refuses the Free plan and campaigns over the plan's monthly video messages with 402, and a blank script like a missing video", async () => {
    const { client, user } = await signUp(t.app, { name: "Free Plan" });
    const body = {
      campaignName: "Too many",
      avatarScript: "Hi {{name}}",
      contacts: [{ name: "A", email: uniqueEmail("a") }],
    };
    const free = await client.post("/api/campaigns/video", body);
    expect(free.statusCode).toBe(402);
    expect(free.json().error).toBe(
      "Video campaigns are not included in your Free plan. Upgrade to Professional to use video campaigns.",
    );

    await setPlan(user.id, "professional");
    const over = await client.post("/api/campaigns/video", {
      ...body,
      contacts: Array.from({ length: 101 }, (_, i) => ({ name: `C${i}`, email: uniqueEmail(`c${i}`) })),
    });
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toBe(
      "Your Professional plan includes 100 video messages a month; this needs 101 and 100 are left. Upgrade to Business for up to 1,000 video messages a month.",
    );

    const blank = await client.post("/api/campaigns/video", { ...body, avatarScript: "   " });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error).toBe("Please complete all steps");

    // the tRPC operation takes the same input
    const trpc = await client.post("/trpc/campaigns.launchVideoCampaign", {
      json: { ...body, contacts: [{ name: "Tia", email: uniqueEmail("tia") }] },
    });
    expect(trpc.statusCode, trpc.body).toBe(200);
    expect(trpc.json().result.data.json).toMatchObject({ queued: 1, campaign: { status: "sending" } });
    const tia = await t.db.select().from(avatarVideos).where(eq(avatarVideos.workspaceId, user.id));
    expect(tia.map((v) => v.script)).toEqual(["Hi Tia"]);
    await t.db.delete(avatarVideos).where(eq(avatarVideos.workspaceId, user.id));

    const badProvider = await client.post("/api/campaigns/video", { ...body, avatarProvider: "heygen" });
    expect(badProvider.statusCode).toBe(422);
    // nothing was created by the refused requests
    expect(await t.db.select().from(avatarVideos).where(eq(avatarVideos.workspaceId, user.id))).toHaveLength(
      0,
    );
  });
});
