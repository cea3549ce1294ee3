import fs from "node:fs";
import path from "node:path";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, contacts, videoLandingPages } from "../../src/server/db/schema";
import { toMergeTags } from "../../src/server/lib/merge-tags";
import { PERSON } from "../browser-ua";
import {
  type AuthedClient,
  createTestApp,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  setPlan,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";
import { multipart } from "./studio-helpers";

const MEDIA = SHARED_DATA ? path.join(SHARED_DATA, "media") : "";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function uploadFlower(client: AuthedClient, name = "Flower promo") {
  const body = multipart(
    { name },
    { field: "video", filename: "flower.mp4", content: fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")) },
  );
  const res = await client.inject({ method: "POST", url: "/api/videos/upload", ...body });
  expect(res.statusCode).toBe(200);
  return res.json().media as { id: number; url: string };
}

async function outbox(channel: "email" | "sms", to: string) {
  const res = await t.app.inject({
    method: "GET",
    url: `/api/dev/outbox?channel=${channel}&to=${encodeURIComponent(to)}`,
  });
  return res.json().messages as { subject: string; body: string; html: string | null }[];
}

describe("toMergeTags", () => {
  it("maps the builder's placeholders to merge tags with the spec's fallbacks", () => {
    expect(toMergeTags("Hi {name} at {{company}}, mail [email] or call {phone}")).toBe(
      "Hi {{name|there}} at {{company|your company}}, mail {{email}} or call {{phone}}",
    );
    expect(toMergeTags("{unknown} stays")).toBe("{unknown} stays");
  });
});

describe.skipIf(!SHARED_DATA)(`video campaigns (${SHARED_DATA_MISSING})`, () => {
  it("launches by email through the campaign engine; each recipient's landing page plays the video and tracks views and progress", async () => {
    const { client, user } = await signUp(t.app, { name: "Sam Seller", business_name: "Bloom Florists" });
    await setPlan(t, user.id, "professional"); // video campaigns are not on the Free plan
    const video = await uploadFlower(client);
    const ada = uniqueEmail("ada");
    const bob = uniqueEmail("bob");
    const res = await client.post("/api/campaigns/video", {
      campaignName: "Spring flowers",
      videoId: video.id,
      videoUrl: video.url,
      deliveryMethod: "email",
      message: "Hi {name}, here is a quick video for {company}.",
      ctaLabel: "Book a call",
      ctaUrl: "https://example.com/book",
      contacts: [
        { name: "Ada Lovelace", company: "Analytical Ltd", email: ada },
        { name: "Bob", company: "", email: bob },
        { name: "No Email", company: "X", email: "" },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ success: true, queued: 2 });
    const campaignId = res.json().campaign.id as number;

    const [mail] = await outbox("email", ada);
    expect(mail).toBeTruthy();
    expect(mail.html).toContain("Hi Ada Lovelace, here is a quick video for Analytical Ltd.");
    const link = /http:\/\/localhost:80\/v\/([a-z0-9]+)/.exec(mail.html ?? "");
    expect(link).toBeTruthy();
    const token = link![1];
    expect(mail.html).toMatch(/\/v\/t\/[a-z0-9]+\.gif/);
    const bobMail = (await outbox("email", bob))[0];
    expect(bobMail.html).toContain("Hi Bob, here is a quick video for your company.");
    expect(bobMail.html).not.toContain(token);

    // the thumbnail in the email is public
    const thumbUrl = /http:\/\/localhost:80(\/v\/t\/[a-z0-9]+\.gif)/.exec(mail.html ?? "")![1];
    const thumb = await t.app.inject({ method: "GET", url: thumbUrl });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers["content-type"]).toBe("image/gif");
    expect(thumb.headers["cross-origin-resource-policy"]).toBe("cross-origin");

    // landing page: no sign-in needed
    const page = await t.app.inject({ method: "GET", url: `/v/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain("A video for Ada Lovelace");
    expect(page.body).toContain("Hi Ada Lovelace, here is a quick video for Analytical Ltd.");
    // the button goes through its signed click-tracking link to the campaign's link
    const cta = /<a class="cta" href="(\/c\/[^"]+)"/.exec(page.body)?.[1];
    expect((await t.app.inject({ method: "GET", url: cta! })).headers.location).toBe(
      "https://example.com/book",
    );
    expect(page.body).toContain("Book a call");
    expect(page.body).toContain(user.email);
    expect(page.body).toContain("Bloom Florists");
    expect(page.body).toContain(`/v/${token}/video`);
    const vid = await t.app.inject({
      method: "GET",
      url: `/v/${token}/video`,
      headers: { range: "bytes=0-1023" },
    });
    expect(vid.statusCode).toBe(206);
    expect(vid.headers["content-type"]).toBe("video/mp4");
    expect(vid.rawPayload.length).toBe(1024);
    expect((await t.app.inject({ method: "GET", url: "/v/assets/plyr.js" })).statusCode).toBe(200);

    // tracking: a view, milestones in order, repeats ignored
    const ev = (body: unknown) =>
      t.app.inject({ method: "POST", url: `/v/${token}/events`, headers: PERSON, payload: body as object });
    expect((await ev({ event: "view" })).json()).toEqual({ success: true, tracked: true });
    expect((await ev({ event: "progress", percent: 25 })).json().tracked).toBe(true);
    expect((await ev({ event: "progress", percent: 50 })).json().tracked).toBe(true);
    expect((await ev({ event: "progress", percent: 25 })).json().tracked).toBe(false);
    expect((await ev({ event: "progress", percent: 33 })).statusCode).toBe(400);
    expect((await ev({ event: "nope" })).statusCode).toBe(400);

    const stats = (await client.get(`/api/campaigns/video/${campaignId}/stats`)).json().stats;
    expect(stats).toMatchObject({ viewers: 1, views: 1, watched: { 25: 1, 50: 1, 75: 0, 100: 0 } });
    const acts = await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.workspaceId, user.id)))
      .orderBy(asc(activities.id));
    const types = acts.map((a) => a.activityType);
    expect(types).toContain("video_viewed");
    expect(acts.filter((a) => a.activityType === "video_progress").map((a) => a.metadata.percent)).toEqual([
      25, 50,
    ]);

    // the contact is deleted: the public page forgets them (name, email, phone, the merged message)
    const [adaContact] = await t.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.workspaceId, user.id), eq(contacts.email, ada)));
    expect((await client.del(`/api/contacts/${adaContact!.id}`)).statusCode).toBe(200);
    const forgotten = await t.app.inject({ method: "GET", url: `/v/${token}` });
    expect(forgotten.statusCode).toBe(200);
    expect(forgotten.body).toContain("A video for you");
    expect(forgotten.body).toContain("Hi there, here is a quick video for your company.");
    expect(forgotten.body).not.toContain("Ada");
    expect(forgotten.body).not.toContain("Analytical");
    const [row] = await t.db.select().from(videoLandingPages).where(eq(videoLandingPages.token, token!));
    expect(row).toMatchObject({
      contactId: null,
      recipientName: null,
      recipientEmail: null,
      recipientPhone: null,
    });
    expect(row?.viewCount).toBe(1);

    // another user cannot read the stats; unknown tokens get the unavailable page
    const other = await signUp(t.app);
    expect((await other.client.get(`/api/campaigns/video/${campaignId}/stats`)).statusCode).toBe(404);
    const unknown = await t.app.inject({ method: "GET", url: "/v/abcdefghijklmnopqrstuvwxyz" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain("This video is no longer available");
    expect(
      (
        await t.app.inject({
          method: "POST",
          url: "/v/abcdefghijklmnopqrstuvwxyz/events",
          payload: { event: "view" },
        })
      ).json().tracked,
    ).toBe(false);
  });

  it("SMS delivery carries the landing page link; contacts not opted in need the user's confirmation", async () => {
    const { client, user } = await signUp(t.app, { business_name: "Cy Flowers" });
    await setPlan(t, user.id, "professional"); // video campaigns are not on the Free plan
    // the engine holds SMS during the recipient's quiet hours (8:00-21:00 local): give the contact a
    // time zone where it is daytime now, so the test passes at any hour
    const zones = [
      "Pacific/Honolulu",
      "America/Los_Angeles",
      "America/Chicago",
      "America/New_York",
      "America/Sao_Paulo",
      "Europe/London",
      "Europe/Berlin",
      "Asia/Dubai",
      "Asia/Kolkata",
      "Asia/Bangkok",
      "Asia/Tokyo",
      "Australia/Sydney",
      "Pacific/Auckland",
    ];
    const hourIn = (zone: string) =>
      Number(
        new Intl.DateTimeFormat("en-US", { timeZone: zone, hour: "numeric", hourCycle: "h23" }).format(
          new Date(),
        ),
      );
    const zone = zones.find((z) => hourIn(z) >= 9 && hourIn(z) <= 19) ?? "UTC";
    await t.db
      .insert(contacts)
      .values({ workspaceId: user.id, firstName: "Cy", phone: "+14155550142", timezone: zone });
    const video = await uploadFlower(client);
    const payload = {
      campaignName: "SMS video",
      videoId: video.id,
      deliveryMethod: "sms",
      message: "Hey {name}!",
      contacts: [{ name: "Cy", company: "C Co", phone: "+1 (415) 555-0142" }],
    };
    const before = (await outbox("sms", "+14155550142")).length;
    const unconfirmed = await client.post("/api/campaigns/video", payload);
    // nobody would receive it without consent: refused with the reason (issue 14)
    expect(unconfirmed.statusCode).toBe(422);
    expect(unconfirmed.json()).toMatchObject({
      success: false,
      skipped: { "not opted in to SMS": 1 },
    });
    expect((await outbox("sms", "+14155550142")).length).toBe(before);
    const res = await client.post("/api/campaigns/video", { ...payload, includeNotOptedIn: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().queued).toBe(1);
    const messages = await outbox("sms", "+14155550142");
    expect(messages.length).toBe(before + 1);
    const [sms] = messages; // newest first
    // the workspace's first text to the number names the business (compliance firstTextBody)
    expect(sms.body).toMatch(/^Cy Flowers: Hey Cy! http:\/\/localhost:80\/v\/[a-z0-9]+/);
  });

  it.each([
    [
      { videoId: 1, deliveryMethod: "email", contacts: [{ email: "a@example.com" }] },
      400,
      "Please complete all steps",
    ],
    [
      { campaignName: "x", deliveryMethod: "email", contacts: [{ email: "a@example.com" }] },
      400,
      "Please complete all steps",
    ],
    [
      { campaignName: "x", videoId: 1, deliveryMethod: "email", contacts: [] },
      400,
      "Please complete all steps",
    ],
    [
      { campaignName: "x", videoId: 1, deliveryMethod: "fax", contacts: [{ email: "a@example.com" }] },
      400,
      "Delivery method must be email or sms",
    ],
  ])("rejects %j", async (payload, status, message) => {
    const { client } = await signUp(t.app);
    const res = await client.post("/api/campaigns/video", payload);
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toContain(message);
  });

  it("the tRPC campaigns router launches a video campaign and reads its stats", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional"); // video campaigns are not on the Free plan
    const video = await uploadFlower(client);
    const bad = await client.post("/trpc/campaigns.launchVideoCampaign", {
      json: { campaignName: "", videoId: video.id, contacts: [] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.json.message).toBe("Please complete all steps");
    const ok = await client.post("/trpc/campaigns.launchVideoCampaign", {
      json: {
        campaignName: "tRPC video",
        videoId: video.id,
        deliveryMethod: "email",
        contacts: [{ name: "Di", email: uniqueEmail("di") }],
      },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const { campaign, queued } = ok.json().result.data.json;
    expect(queued).toBe(1);
    const stats = await client.get(
      `/trpc/campaigns.videoCampaignStats?input=${encodeURIComponent(JSON.stringify({ json: { campaignId: campaign.id } }))}`,
    );
    expect(stats.json().result.data.json).toMatchObject({ campaign_id: campaign.id, viewers: 0, views: 0 });
  });

  it("refuses another user's video (404) and contacts without the delivery channel's address", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const video = await uploadFlower(a.client);
    const stolen = await b.client.post("/api/campaigns/video", {
      campaignName: "x",
      videoId: video.id,
      deliveryMethod: "email",
      contacts: [{ email: "z@example.com" }],
    });
    expect(stolen.statusCode).toBe(404);
    const noPhone = await a.client.post("/api/campaigns/video", {
      campaignName: "x",
      videoId: video.id,
      deliveryMethod: "sms",
      contacts: [{ name: "A", email: "z@example.com" }],
    });
    expect(noPhone.statusCode).toBe(400);
    expect(noPhone.json().error).toBe('CSV must have a "phone" or "mobile" column for SMS delivery');
  });
});
