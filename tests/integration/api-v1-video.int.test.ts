import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { videoCampaigns } from "../../src/server/db/schema";
import { resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";
import { PERSON } from "../browser-ua";
import type { AuthedClient } from "../helpers";
import { multipart } from "./studio-helpers";
import { LANDING_LINK, SENT, sentCount, setupV1VideoApp } from "./v1-video-setup";

/**
 * Video campaigns through the public API v1 (issue 15): `POST /api/v1/campaigns` with channel
 * video_email / video_sms and `content.video_id` runs the app's video campaign service
 * (launchVideoCampaign): personal landing pages, the plan's video checks and meter.
 */

const setup = setupV1VideoApp({ name: "Vera Video", business_name: "Vera's Bakery" });
const { keyed, outbox, videoMeter } = setup;
let dir: string;
let clip: Buffer;

/** Uploads the generated clip through the studio's real upload + processing path; a ready video. */
async function uploadVideo(client: AuthedClient, name = "Hello clip") {
  const body = multipart(
    { name },
    { field: "video", filename: "clip.mp4", contentType: "video/mp4", content: clip },
  );
  const res = await client.inject({ method: "POST", url: "/api/videos/upload", ...body });
  expect(res.statusCode, res.body).toBe(200);
  const media = res.json().media as { id: number };
  return media.id;
}

beforeAll(async () => {
  // a one-second 160x120 clip with sound, made offline (no shared test files needed)
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-v1-video-"));
  const file = path.join(dir, "clip.mp4");
  await runFfmpeg(resolveFfmpegBinaries({}), {
    globalOptions: ["-f", "lavfi"],
    inputs: [{ path: "testsrc=size=160x120:rate=10:duration=1" }],
    outputs: [{ path: file, options: ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"] }],
  });
  clip = fs.readFileSync(file);
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("v1 video campaigns", () => {
  it("launches a video_email campaign with video_id over contact_ids: personal landing pages, counters, recipients sent, the video meter", async () => {
    const k = await keyed();
    const videoId = await uploadVideo(k.client);
    const ids: number[] = [];
    const emails: string[] = [];
    for (const name of ["Ada", "Bob"]) {
      const email = `${name.toLowerCase()}-${Date.now()}@example.com`;
      const r = await k.call("POST", "/contacts", { first_name: name, company: `${name} Co`, email });
      expect(r.statusCode).toBe(201);
      ids.push(r.json().id);
      emails.push(email);
    }
    const res = await k.call("POST", "/campaigns", {
      name: "Spring video",
      channel: "video_email",
      content: {
        video_id: videoId,
        subject: "A video for {name}",
        message: "Hi {name}, a quick video for {company}.",
        cta_label: "Book a call",
        cta_url: "https://example.com/book",
      },
      audience: { contact_ids: ids },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { campaign, queued } = res.json();
    expect(queued).toBe(2);
    expect(campaign).toMatchObject({ name: "Spring video", channel: "video_email", recipient_count: 2 });

    // the studio's video campaign row ties the campaign to the library video (what /v/{token} plays)
    const [vc] = await setup.t.db
      .select()
      .from(videoCampaigns)
      .where(eq(videoCampaigns.campaignId, campaign.id));
    expect(vc).toMatchObject({ mediaId: videoId, ctaLabel: "Book a call", deliveryMethod: "email" });

    // recipients are sent (the local providers then simulate delivery and some opens); the
    // campaign's counters hold both
    const rec = (await k.call("GET", `/campaigns/${campaign.id}/recipients`)).json();
    expect(rec.data).toHaveLength(2);
    for (const r of rec.data) {
      expect(SENT).toContain(r.status);
      expect(r.sent_at).not.toBeNull();
    }
    const got = (await k.call("GET", `/campaigns/${campaign.id}`)).json();
    expect(sentCount(got.counts)).toBe(2);
    // each recipient's email links their own landing page, which plays the video (no sign-in)
    const [mail] = await outbox(emails[0]!);
    expect(mail!.subject).toBe("A video for Ada");
    expect(mail!.html).toContain("Hi Ada, a quick video for Ada Co.");
    const token = LANDING_LINK.exec(mail!.html ?? "")![1]!;
    const [bobMail] = await outbox(emails[1]!);
    expect(bobMail!.html).not.toContain(token);
    const page = await setup.t.app.inject({ method: "GET", url: `/v/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Hi Ada, a quick video for Ada Co.");
    // the button goes through its signed click-tracking link to the campaign's link
    const cta = /<a class="cta" href="(\/c\/[^"]+)"/.exec(page.body)?.[1];
    expect((await setup.t.app.inject({ method: "GET", url: cta! })).headers.location).toBe(
      "https://example.com/book",
    );
    const vid = await setup.t.app.inject({
      method: "GET",
      url: `/v/${token}/video`,
      headers: { range: "bytes=0-99" },
    });
    expect(vid.statusCode).toBe(206);

    // watching (the page's view event) is the recipient's click, the report's engagement
    const view = await setup.t.app.inject({
      method: "POST",
      url: `/v/${token}/events`,
      headers: PERSON,
      payload: { event: "view" },
    });
    expect(view.json()).toEqual({ success: true, tracked: true });
    const ada = (await k.call("GET", `/campaigns/${campaign.id}/recipients`))
      .json()
      .data.find((r: { address: string }) => r.address === emails[0]);
    expect(ada).toMatchObject({ status: "clicked" });
    expect(ada.clicked_at).not.toBeNull();
    expect(await videoMeter(k.user.id)).toBe(2);
  });

  it("launches over a saved segment (video_sms too), and refuses what does not fit with a param", async () => {
    const k = await keyed();
    const videoId = await uploadVideo(k.client);
    for (const name of ["Cleo", "Dan"])
      await k.call("POST", "/contacts", {
        first_name: name,
        email: `${name.toLowerCase()}-${Date.now()}@example.com`,
        mobile: "+1 415 555 0134",
        lead_status: "new",
        sms_opt_in: true,
      });
    await k.call("POST", "/contacts", { first_name: "Outsider", email: `out-${Date.now()}@example.com` });
    const seg = await k.call("POST", "/segments", { name: "Cleo and Dan", filter: { search: "C" } });
    expect(seg.statusCode).toBe(201);
    const members = (await k.call("GET", `/segments/${seg.json().id}/contacts`)).json().data;
    expect(members.length).toBeGreaterThanOrEqual(2);
    const res = await k.call("POST", "/campaigns", {
      name: "Segment video",
      channel: "video_email",
      content: { video_id: videoId, message: "Hello {name}" },
      audience: { segment_id: seg.json().id },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().campaign.recipient_count).toBe(members.length);
    const rec = (await k.call("GET", `/campaigns/${res.json().campaign.id}/recipients`)).json().data;
    expect(rec.length).toBe(members.length);
    for (const r of rec) {
      expect(SENT).toContain(r.status);
      expect(r.sent_at).not.toBeNull();
    }

    const sms = await k.call("POST", "/campaigns", {
      name: "SMS video",
      channel: "video_sms",
      content: { video_id: videoId, message: "Hi {name}, watch this:" },
      audience: { segment_id: seg.json().id },
    });
    expect(sms.statusCode, sms.body).toBe(201);
    expect(sms.json().campaign.channel).toBe("video_sms");
    const later = await k.call("POST", "/campaigns", {
      name: "Later video",
      channel: "video_email",
      content: { video_id: videoId },
      audience: { segment_id: seg.json().id },
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(later.statusCode, later.body).toBe(201);
    expect(later.json().campaign).toMatchObject({ status: "scheduled" });
    // a contacts filter, with the names of a segment's filter (snake_case)
    const filtered = await k.call("POST", "/campaigns", {
      name: "Filter video",
      channel: "video_email",
      content: { video_id: videoId },
      audience: { filter: { search: "Cleo", lifecycle_stage: "lead", lead_status: "new" } },
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(filtered.statusCode, filtered.body).toBe(201);
    const cleo = (await k.call("GET", `/campaigns/${filtered.json().campaign.id}/recipients`)).json().data;
    expect(cleo.map((r: { name: string }) => r.name)).toEqual(["Cleo"]);
    const nobody = await k.call("POST", "/campaigns", {
      name: "Filter video",
      channel: "video_email",
      content: { video_id: videoId },
      audience: { filter: { search: "Cleo", lead_status: "qualified" } },
    });
    // the filter reaches nobody (Cleo's lead status is new): the service's own refusal
    expect(nobody.statusCode, nobody.body).toBe(400);
    expect(nobody.json().error.message).toBe("Please select at least one contact");

    const bad = async (body: Record<string, unknown>, param: string, message: RegExp, status = 400) => {
      const r = await k.call("POST", "/campaigns", {
        name: "Bad",
        channel: "video_email",
        audience: { segment_id: seg.json().id },
        ...body,
      });
      expect(r.statusCode, r.body).toBe(status);
      expect(r.json().error.param).toBe(param);
      expect(r.json().error.message).toMatch(message);
    };
    await bad({ content: { message: "Hi" } }, "content.video_id", /pass content\.video_id/);
    // the old bare landing-URL form sends no library video: refused with what to do instead
    await bad(
      { content: { landing_url: "https://example.com/{{token}}" } },
      "content.landing_url",
      /pass content\.video_id/,
    );
    await bad({ content: { video_id: videoId, body: "x" } }, "content.body", /content\.message/);
    await bad(
      { content: { video_id: videoId, subject: "s".repeat(301) } },
      "content.subject",
      /300 characters/,
    );
    await bad(
      {
        content: { avatar_script: "Hi {{name|there}}" },
        scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
      },
      "scheduled_at",
      /launches at once/,
    );
    await bad(
      { content: { video_id: videoId }, audience: { segment_id: seg.json().id, contact_ids: [1] } },
      "audience",
      /at most one of/,
    );
    await bad({ content: { video_id: "abc" } }, "content.video_id", /Video ID must be an id/);
    // the landing page's button link: http(s) only, in the API and in the app's own video campaign call
    for (const url of [
      "javascript:alert(1)",
      "data:text/html,<b>hi</b>",
      "ftp://example.com/x",
      "example.com",
    ]) {
      await bad(
        { content: { video_id: videoId, cta_url: url } },
        "content.cta_url",
        /^The button link \(cta_url\) must be a full http\(s\) URL \(https:\/\/\.\.\.\)$/,
      );
      const app = await k.client.post("/api/campaigns/video", {
        campaignName: "App",
        videoId,
        deliveryMethod: "email",
        ctaUrl: url,
        contacts: [{ name: "Cleo", email: "cleo-app@example.com" }],
      });
      expect(app.statusCode, app.body).toBe(400);
      expect(app.json().error).toBe("The button link must be a full http(s) URL (https://...)");
    }
    const campaignsBefore = (await k.call("GET", "/campaigns?limit=100")).json().data.length;
    const okUrl = await k.call("POST", "/campaigns", {
      name: "CTA",
      channel: "video_email",
      content: { video_id: videoId, cta_label: "Book", cta_url: "http://example.com/book" },
      audience: { segment_id: seg.json().id },
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(okUrl.statusCode, okUrl.body).toBe(201);
    // nothing was created by the refused calls
    expect((await k.call("GET", "/campaigns?limit=100")).json().data.length).toBe(campaignsBefore + 1);
    const emailWithVideo = await k.call("POST", "/campaigns", {
      name: "x",
      channel: "email",
      content: { subject: "s", body: "b", video_id: videoId },
      audience: { segment_id: seg.json().id },
    });
    expect(emailWithVideo.statusCode).toBe(400);
    expect(emailWithVideo.json().error.param).toBe("content.video_id");
  });

  it("another workspace's video_id is 404; a key without media:read gets 403; nothing is created", async () => {
    const a = await keyed();
    const b = await keyed();
    const theirs = await uploadVideo(b.client, "Not yours");
    const c = (
      await a.call("POST", "/contacts", { first_name: "Eve", email: `eve-${Date.now()}@example.com` })
    ).json();
    const body = (video_id: number) => ({
      name: "Borrowed",
      channel: "video_email",
      content: { video_id },
      audience: { contact_ids: [c.id] },
    });
    const res = await a.call("POST", "/campaigns", body(theirs));
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ type: "not_found", message: "Media not found" });
    expect((await a.call("GET", "/campaigns")).json().data).toHaveLength(0);

    const narrow = await keyed(["contacts:write", "campaigns:write"]);
    const mine = await uploadVideo(narrow.client);
    const c2 = (
      await narrow.call("POST", "/contacts", { first_name: "Fay", email: `fay-${Date.now()}@example.com` })
    ).json();
    const forbidden = await narrow.call("POST", "/campaigns", {
      ...body(mine),
      audience: { contact_ids: [c2.id] },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.message).toBe("This API key lacks the 'media:read' scope.");
  });

  it("over the plan's monthly video messages: 402 and nothing sent", async () => {
    const k = await keyed();
    const videoId = await uploadVideo(k.client);
    const c = (
      await k.call("POST", "/contacts", { first_name: "Gus", email: `gus-${Date.now()}@example.com` })
    ).json();
    // two different campaigns (an identical launch within 10 minutes would answer the first)
    const launch = (name: string) =>
      k.call("POST", "/campaigns", {
        name,
        channel: "video_email",
        content: { video_id: videoId },
        audience: { contact_ids: [c.id] },
      });
    expect((await launch("Quota")).statusCode).toBe(201);
    // Business includes 1,000 video messages a month: use them up
    await setup.t.db.execute(
      sql`update usage_meters set used = 1000 where workspace_id = ${k.user.id} and meter = 'videoMessages'`,
    );
    const over = await launch("Quota 2");
    expect(over.statusCode, over.body).toBe(402);
    expect(over.json().error.type).toBe("payment_required");
    expect(over.json().error.message).toMatch(/video messages/);
    expect((await k.call("GET", "/campaigns")).json().data).toHaveLength(1);
  });

  it("the OpenAPI document describes the video fields", async () => {
    const doc = (await setup.t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const op = doc.paths["/campaigns"].post;
    expect(op.description).toContain("media:read");
    const content = op.requestBody.content["application/json"].schema.properties.content.properties;
    for (const f of ["video_id", "avatar_script", "avatar_provider", "cta_label", "cta_url", "message"])
      expect(content[f], f).toBeTruthy();
    expect(content.video_id.description).toContain("media library");
    expect(content.landing_url.deprecated).toBe(true);
  });
});
