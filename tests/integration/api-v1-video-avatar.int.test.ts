import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { avatarVideos, campaigns, videoCampaigns, videoLandingPages } from "../../src/server/db/schema";
import { MAX_SCRIPT_CHARS } from "../../src/server/features/avatar/avatar.schemas";
import { PERSON } from "../browser-ua";
import { uniqueEmail } from "../helpers";
import { LANDING_LINK, SENT, sentCount, setupV1VideoApp } from "./v1-video-setup";

/**
 * Personalised AI avatar video campaigns through the public API v1: `POST /api/v1/campaigns` with
 * channel video_email and `content.avatar_script` (instead of `content.video_id`) runs the app's
 * video campaign service (launchVideoCampaign): one local avatar video rendered per recipient by the
 * campaign's render jobs (the test app's inline job client runs them in the request), each
 * recipient's message held until their video is ready, a personal /v/{token} landing page playing
 * their own video, and the plan's video messages meter charged per recipient as for video_id.
 */

const setup = setupV1VideoApp({ name: "Avery Avatar", business_name: "Avery's Garden" });
const { keyed, outbox, videoMeter } = setup;

const avatarsOf = (workspaceId: string) =>
  setup.t.db.select().from(avatarVideos).where(eq(avatarVideos.workspaceId, workspaceId));
const campaignsOf = (workspaceId: string) =>
  setup.t.db.select().from(campaigns).where(eq(campaigns.workspaceId, workspaceId));

describe("v1 avatar video campaigns", () => {
  it("renders one local avatar video per recipient, sends each their own /v/{token} page once, and charges the video meter per recipient", async () => {
    // campaigns:write is what an avatar_script campaign needs: it reads no library video, so no media:read
    const k = await keyed(["contacts:write", "campaigns:read", "campaigns:write"]);
    const people = [
      { first_name: "Ada", company: "Analytical Ltd", email: uniqueEmail("ada") },
      { first_name: "Bob", email: uniqueEmail("bob") },
    ];
    const ids: number[] = [];
    for (const p of people) {
      const r = await k.call("POST", "/contacts", p);
      expect(r.statusCode, r.body).toBe(201);
      ids.push(r.json().id);
    }
    expect(await videoMeter(k.user.id)).toBe(0);

    const res = await k.call("POST", "/campaigns", {
      name: "Avatar hello",
      channel: "video_email",
      content: {
        avatar_script: "Hi {{first_name|there}}, thanks for looking at {{company|our garden}}.",
        avatar_provider: "local",
        subject: "A video for {name}",
        message: "Hi {name}, I made this video just for you.",
        cta_label: "Book a call",
        cta_url: "https://example.com/book",
      },
      audience: { contact_ids: ids },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { campaign, queued } = res.json();
    expect(queued).toBe(2);
    expect(campaign).toMatchObject({ name: "Avatar hello", channel: "video_email", recipient_count: 2 });

    // no campaign-wide video: the studio row keeps the message and button, each page its own video
    const [vc] = await setup.t.db
      .select()
      .from(videoCampaigns)
      .where(eq(videoCampaigns.campaignId, campaign.id));
    expect(vc).toMatchObject({ mediaId: null, ctaLabel: "Book a call", deliveryMethod: "email" });

    // the render jobs made one local avatar video per recipient with the script merged for them
    const videos = await avatarsOf(k.user.id);
    expect(videos.map((v) => v.script).sort()).toEqual([
      "Hi Ada, thanks for looking at Analytical Ltd.",
      "Hi Bob, thanks for looking at our garden.",
    ]);
    for (const v of videos) expect(v).toMatchObject({ provider: "local", status: "completed" });
    expect(new Set(videos.map((v) => v.mediaId)).size).toBe(2);

    // every recipient sent once, the counters hold both
    const rec = (await k.call("GET", `/campaigns/${campaign.id}/recipients`)).json();
    expect(rec.data).toHaveLength(2);
    for (const r of rec.data) {
      expect(SENT).toContain(r.status);
      expect(r.sent_at).not.toBeNull();
    }
    const got = (await k.call("GET", `/campaigns/${campaign.id}`)).json();
    expect(sentCount(got.counts)).toBe(2);

    // each email links the recipient's own landing page, which plays their own avatar video
    const tokens: string[] = [];
    for (const [i, p] of people.entries()) {
      const mails = await outbox(p.email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe(`A video for ${p.first_name}`);
      expect(mails[0]!.html).toContain(`Hi ${p.first_name}, I made this video just for you.`);
      const link = LANDING_LINK.exec(mails[0]!.html ?? "");
      expect(link, mails[0]!.html ?? "").toBeTruthy();
      tokens[i] = link![1]!;
    }
    expect(tokens[0]).not.toBe(tokens[1]);
    const pages = await setup.t.db
      .select()
      .from(videoLandingPages)
      .where(inArray(videoLandingPages.token, tokens));
    const mediaOf = new Map(pages.map((p) => [p.token, p.mediaId]));
    const adaVideo = videos.find((v) => v.script.startsWith("Hi Ada"))!;
    const bobVideo = videos.find((v) => v.script.startsWith("Hi Bob"))!;
    expect(mediaOf.get(tokens[0]!)).toBe(adaVideo.mediaId);
    expect(mediaOf.get(tokens[1]!)).toBe(bobVideo.mediaId);

    const page = await setup.t.app.inject({ method: "GET", url: `/v/${tokens[0]}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Hi Ada, I made this video just for you.");
    // the button goes through its signed click-tracking link to the campaign's link
    const cta = /<a class="cta" href="(\/c\/[^"]+)"/.exec(page.body)?.[1];
    expect((await setup.t.app.inject({ method: "GET", url: cta! })).headers.location).toBe(
      "https://example.com/book",
    );
    expect(page.body).toContain(`/v/${tokens[0]}/video`);
    const files: Buffer[] = [];
    for (const token of tokens) {
      const vid = await setup.t.app.inject({ method: "GET", url: `/v/${token}/video` });
      expect(vid.statusCode).toBe(200);
      expect(vid.headers["content-type"]).toBe("video/mp4");
      files.push(vid.rawPayload);
    }
    expect(files[0]!.length).toBeGreaterThan(1000);
    expect(files[0]!.equals(files[1]!)).toBe(false);
    const own = await k.client.inject({ method: "GET", url: `/api/media/${adaVideo.mediaId}/file` });
    expect(own.statusCode).toBe(200);
    expect(Buffer.from(own.rawPayload).equals(files[0]!)).toBe(true);

    // watching is the recipient's click, as for a library video
    const view = await setup.t.app.inject({
      method: "POST",
      url: `/v/${tokens[0]}/events`,
      headers: PERSON,
      payload: { event: "view" },
    });
    expect(view.json()).toEqual({ success: true, tracked: true });
    const ada = (await k.call("GET", `/campaigns/${campaign.id}/recipients`))
      .json()
      .data.find((r: { address: string }) => r.address === people[0]!.email);
    expect(ada).toMatchObject({ status: "clicked" });

    // charged once per recipient; the campaign's later jobs (its held launch) neither send nor charge again
    expect(await videoMeter(k.user.id)).toBe(2);
    // (the engine's launch job, deferred while the recipients waited for their videos)
    expect(await setup.t.jobs.runDeferred()).toBeGreaterThan(0);
    for (const p of people) expect(await outbox(p.email)).toHaveLength(1);
    expect(await avatarsOf(k.user.id)).toHaveLength(2);
    expect(await videoMeter(k.user.id)).toBe(2);
    expect((await k.call("GET", `/campaigns/${campaign.id}`)).json().status).toBe("completed");
  }, 180_000);

  it("over the plan's monthly video messages: 402 before any avatar video renders; the refused launch creates nothing", async () => {
    const k = await keyed(["contacts:write", "campaigns:read", "campaigns:write"]);
    const ids: number[] = [];
    for (const name of ["Cleo", "Dan"])
      ids.push((await k.call("POST", "/contacts", { first_name: name, email: uniqueEmail(name) })).json().id);
    const launch = (contactIds: number[]) =>
      k.call("POST", "/campaigns", {
        name: "Quota",
        channel: "video_email",
        content: { avatar_script: "Hi {{first_name|there}}" },
        audience: { contact_ids: contactIds },
      });
    const first = await launch([ids[0]!]);
    expect(first.statusCode, first.body).toBe(201);
    expect(await videoMeter(k.user.id)).toBe(1);
    expect(await avatarsOf(k.user.id)).toHaveLength(1);
    // Business includes 1,000 video messages a month: one is left, the next campaign needs two
    await setup.t.db.execute(
      sql`update usage_meters set used = 999 where workspace_id = ${k.user.id} and meter = 'videoMessages'`,
    );
    const over = await launch(ids);
    expect(over.statusCode, over.body).toBe(402);
    expect(over.json().error.type).toBe("payment_required");
    expect(over.json().error.message).toBe(
      "Your Business plan includes 1,000 video messages a month; this needs 2 and 1 is left. Upgrade to Enterprise for unlimited video messages.",
    );
    expect(await campaignsOf(k.user.id)).toHaveLength(1);
    expect(await avatarsOf(k.user.id)).toHaveLength(1);
    expect(await videoMeter(k.user.id)).toBe(999);
    const studioRows = await setup.t.db
      .select()
      .from(videoCampaigns)
      .where(eq(videoCampaigns.workspaceId, k.user.id));
    expect(studioRows).toHaveLength(1);
  }, 120_000);

  it("refuses a script with a video, an empty or too long script and a bad provider with the param; nothing is created", async () => {
    const k = await keyed(["contacts:write", "campaigns:read", "campaigns:write", "media:read"]);
    const c = (await k.call("POST", "/contacts", { first_name: "Eve", email: uniqueEmail("eve") })).json();
    const launch = (content: Record<string, unknown>, channel = "video_email") =>
      k.call("POST", "/campaigns", { name: "Bad", channel, content, audience: { contact_ids: [c.id] } });
    const bad = async (
      content: Record<string, unknown>,
      param: string,
      message: string,
      channel?: string,
    ) => {
      const r = await launch(content, channel);
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().error).toEqual({ type: "invalid_request_error", param, message });
    };
    await bad(
      { avatar_script: "Hi {{name|there}}", video_id: 1 },
      "content.avatar_script",
      "Give content.video_id or content.avatar_script, not both",
    );
    // an empty script names the script, not the video the client chose not to send
    const empty =
      "Content.avatar_script is empty: write what the avatar says (at most 5000 characters), or pass " +
      "content.video_id: a ready video from your media library (GET /media); each recipient then gets a " +
      "personal landing page";
    await bad({ avatar_script: "" }, "content.avatar_script", empty);
    await bad({ avatar_script: " \n\t " }, "content.avatar_script", empty);
    await bad({ avatar_script: null }, "content.avatar_script", "Avatar script must be text");
    await bad(
      { avatar_script: "x".repeat(MAX_SCRIPT_CHARS + 1) },
      "content.avatar_script",
      "Avatar script must be at most 5000 characters",
    );
    await bad(
      { avatar_script: "Hi", avatar_provider: "sora" },
      "content.avatar_provider",
      "Avatar provider must be local, did or heygen",
    );
    await bad(
      { subject: "s", body: "b", avatar_script: "Hi" },
      "content.avatar_script",
      "Content.avatar_script is for video_email and video_sms campaigns",
      "email",
    );
    // neither a video nor a script: still the video_id refusal
    await bad(
      { avatar_provider: "local" },
      "content.video_id",
      "A video campaign needs a video: pass content.video_id: a ready video from your media library " +
        "(GET /media); each recipient then gets a personal landing page (or content.avatar_script).",
    );
    // a script of exactly the limit passes validation (refused only because nobody has a phone)
    const longest = await launch({ avatar_script: "x".repeat(MAX_SCRIPT_CHARS) }, "video_sms");
    expect(longest.statusCode, longest.body).toBe(422);
    expect(longest.json().error.message).toBe("Nobody would receive this campaign: 1 no valid phone number.");
    // a provider this server has no credentials for
    const heygen = await launch({ avatar_script: "Hi", avatar_provider: "heygen" });
    expect(heygen.statusCode, heygen.body).toBe(422);
    expect(heygen.json().error.message).toBe(
      "HeyGen is not configured on this server; choose another provider",
    );

    expect(await campaignsOf(k.user.id)).toHaveLength(0);
    expect(await avatarsOf(k.user.id)).toHaveLength(0);
    expect(await videoMeter(k.user.id)).toBe(0);
  });

  it("needs campaigns:write (403 naming it, nothing created); media:read is not needed for a script", async () => {
    const readOnly = await keyed(["contacts:write", "campaigns:read", "media:read"]);
    const c = (
      await readOnly.call("POST", "/contacts", { first_name: "Fay", email: uniqueEmail("fay") })
    ).json();
    const body = (contactId: number) => ({
      name: "Scoped",
      channel: "video_email",
      content: { avatar_script: "Hi {{first_name|there}}" },
      audience: { contact_ids: [contactId] },
    });
    const forbidden = await readOnly.call("POST", "/campaigns", body(c.id));
    expect(forbidden.statusCode, forbidden.body).toBe(403);
    expect(forbidden.json().error.message).toBe("This API key lacks the 'campaigns:write' scope.");
    expect(await campaignsOf(readOnly.user.id)).toHaveLength(0);
    expect(await avatarsOf(readOnly.user.id)).toHaveLength(0);
    expect(await videoMeter(readOnly.user.id)).toBe(0);

    // a key without media:read may send an avatar script (it plays no library video of the workspace),
    // though not a library video
    const writer = await keyed(["contacts:write", "campaigns:write"]);
    const w = (
      await writer.call("POST", "/contacts", { first_name: "Gus", email: uniqueEmail("gus") })
    ).json();
    const withVideo = await writer.call("POST", "/campaigns", {
      ...body(w.id),
      content: { video_id: 1 },
    });
    expect(withVideo.statusCode, withVideo.body).toBe(403);
    expect(withVideo.json().error.message).toBe("This API key lacks the 'media:read' scope.");
    const ok = await writer.call("POST", "/campaigns", body(w.id));
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().queued).toBe(1);
    const [video] = await avatarsOf(writer.user.id);
    expect(video).toMatchObject({ script: "Hi Gus", status: "completed" });
    expect(await videoMeter(writer.user.id)).toBe(1);
  }, 120_000);
});
