import fs from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, campaignRecipients, videoLandingPages } from "../../src/server/db/schema";
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

// QA: a video landing page's call-to-action button linked straight to its destination, so its clicks
// were never recorded and the stats had no button figure. The button now goes through the campaign's
// signed click-tracking link (/c/{token}/{i}/{signature}, as email and SMS links do: unsigned or
// altered links are refused); a person's click is counted once per recipient (stats `cta_clicks`) and
// as the recipient's click; a HEAD or a bot's GET redirects the same way and counts nothing; a message
// link to the same URL is not a button click.
// QA: the video email showed the library file's name ("Watch: mdn-flower", its alt text the same);
// it now reads "Watch the video" with the alt text "Video message from <business>".

let t: TestApp;
beforeAll(async () => {
  // no simulated engagement: the local providers' simulated clicks would mark recipients
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

async function upload(client: AuthedClient, name: string) {
  const res = await client.inject({
    method: "POST",
    url: "/api/videos/upload",
    ...multipart(
      { name },
      {
        field: "video",
        filename: "flower.mp4",
        content: fs.readFileSync(path.join(SHARED_DATA as string, "media", "mdn-flower.mp4")),
      },
    ),
  });
  expect(res.statusCode, res.body).toBe(200);
  const media = res.json().media as { id: number; url: string };
  // processed by the job worker (inline here; slower on a busy machine): launches need it ready
  await expect
    .poll(
      async () =>
        (
          (await client.get("/api/media/list")).json().media as { id: number; processing_status: string }[]
        ).find((m) => m.id === media.id)?.processing_status,
      { timeout: 60_000 },
    )
    .toBe("ready");
  return media;
}

async function mailTo(to: string) {
  const res = await t.app.inject({
    method: "GET",
    url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
  });
  return res.json().messages[0] as { html: string; body: string };
}

describe.skipIf(!SHARED_DATA)(`video landing page button clicks (${SHARED_DATA_MISSING})`, () => {
  it("the button goes through a signed click link; a person's click counts once per recipient, a bot's or HEAD's not", async () => {
    const { client, user } = await signUp(t.app, { business_name: "Bloom Florists" });
    await setPlan(t, user.id, "professional");
    const video = await upload(client, "mdn-flower");
    const ada = uniqueEmail("cta-ada");
    const bob = uniqueEmail("cta-bob");
    const launch = await client.post("/api/campaigns/video", {
      campaignName: "Button clicks",
      videoId: video.id,
      videoUrl: video.url,
      deliveryMethod: "email",
      // the message links to the same page as the button: that link is not the button
      message: "Hi {name}, or book here https://example.com/book",
      ctaLabel: "Book a call",
      ctaUrl: "https://example.com/book",
      contacts: [
        { name: "Ada", email: ada },
        { name: "Bob", email: bob },
      ],
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const campaignId = launch.json().campaign.id as number;
    const stats = async () => (await client.get(`/api/campaigns/video/${campaignId}/stats`)).json().stats;
    expect((await stats()).cta_clicks).toBe(0);

    const tokenOf = (html: string) => /\/v\/([a-z0-9]{16,64})/.exec(html)?.[1] as string;
    const adaToken = tokenOf((await mailTo(ada)).html);
    const page = await t.app.inject({ method: "GET", url: `/v/${adaToken}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Book a call");
    expect(page.body).not.toContain('href="https://example.com/book"');
    const href = /<a class="cta" href="([^"]+)"/.exec(page.body)?.[1] as string;
    expect(href).toMatch(new RegExp(`^/c/${adaToken}/\\d+/[A-Za-z0-9_-]{22}$`));

    // unsigned and altered links are refused, as for email and SMS links
    const unsigned = href.replace(/\/[^/]+$/, "");
    expect((await t.app.inject({ method: "GET", url: unsigned, headers: PERSON })).statusCode).toBe(404);
    const altered = `${unsigned}/${"A".repeat(22)}`;
    expect((await t.app.inject({ method: "GET", url: altered, headers: PERSON })).statusCode).toBe(404);
    // another recipient's token with Ada's signature: refused
    const bobToken = tokenOf((await mailTo(bob)).html);
    expect(
      (await t.app.inject({ method: "GET", url: href.replace(adaToken, bobToken), headers: PERSON }))
        .statusCode,
    ).toBe(404);

    // a link checker's HEAD and a bot's GET are redirected but count nothing
    const head = await t.app.inject({ method: "HEAD", url: href, headers: PERSON });
    expect(head.statusCode).toBe(302);
    const bot = await t.app.inject({
      method: "GET",
      url: href,
      headers: { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" },
    });
    expect(bot.statusCode).toBe(302);
    expect(bot.headers.location).toBe("https://example.com/book");
    expect((await stats()).cta_clicks).toBe(0);
    const recipientOf = async (address: string) =>
      (
        await t.db
          .select()
          .from(campaignRecipients)
          .where(and(eq(campaignRecipients.campaignId, campaignId), eq(campaignRecipients.address, address)))
      )[0];
    expect((await recipientOf(ada))?.clickedAt).toBeNull();

    // the person's click: redirected, counted once (a second click adds nothing), the recipient clicked
    const click = await t.app.inject({ method: "GET", url: href, headers: PERSON });
    expect(click.statusCode).toBe(302);
    expect(click.headers.location).toBe("https://example.com/book");
    expect((await t.app.inject({ method: "GET", url: href, headers: PERSON })).statusCode).toBe(302);
    expect(await stats()).toMatchObject({ viewers: 0, cta_clicks: 1 });
    expect((await recipientOf(ada))?.clickedAt).toBeInstanceOf(Date);
    const [adaPage] = await t.db
      .select()
      .from(videoLandingPages)
      .where(eq(videoLandingPages.token, adaToken));
    expect(adaPage?.ctaClickedAt).toBeInstanceOf(Date);
    const clicks = await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.workspaceId, user.id), eq(activities.activityType, "email_clicked")));
    expect(clicks.length).toBe(2); // each click on the timeline, as email link clicks are
    for (const c of clicks)
      expect(c.metadata).toMatchObject({ url: "https://example.com/book", videoCta: true });

    // Bob follows the email's own link to the same page: a click, but not of the button
    await t.app.inject({ method: "GET", url: `/v/${bobToken}` });
    const bobMail = await mailTo(bob);
    const messageLink = /http:\/\/localhost:80(\/c\/[^\s)"]+)/.exec(bobMail.body)?.[1] as string;
    expect(messageLink).toBeTruthy();
    const viaMessage = await t.app.inject({ method: "GET", url: messageLink, headers: PERSON });
    expect(viaMessage.headers.location).toBe("https://example.com/book");
    expect((await recipientOf(bob))?.clickedAt).toBeInstanceOf(Date);
    expect((await stats()).cta_clicks).toBe(1);

    // tRPC (the report's source) answers the same figure
    const viaTrpc = await trpcCall(client, "campaigns.videoCampaignStats", { campaignId }, "query");
    expect(viaTrpc.data).toMatchObject({ cta_clicks: 1 });
  });

  it("a page without a link of its own keeps its reply button, which never names the library file", async () => {
    const { client, user } = await signUp(t.app, { business_name: "Bloom Florists" });
    await setPlan(t, user.id, "professional");
    const video = await upload(client, "internal-take-7");
    const to = uniqueEmail("cta-none");
    const launch = await client.post("/api/campaigns/video", {
      campaignName: "No button link",
      videoId: video.id,
      deliveryMethod: "email",
      contacts: [{ name: "Cy", email: to }],
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const token = /\/v\/([a-z0-9]{16,64})/.exec((await mailTo(to)).html)?.[1] as string;
    const page = await t.app.inject({ method: "GET", url: `/v/${token}` });
    const href = /<a class="cta" href="([^"]+)"/.exec(page.body)?.[1] as string;
    expect(href).toMatch(/^mailto:/);
    expect(page.body).not.toContain("internal-take-7");
  });

  it("the video email reads 'Watch the video' with the sender's alt text, never the library file's name", async () => {
    const { client, user } = await signUp(t.app, { business_name: "Bloom Florists" });
    await setPlan(t, user.id, "professional");
    for (const name of ["mdn-flower", "b".repeat(200)]) {
      const video = await upload(client, name);
      const to = uniqueEmail("watch");
      const launch = await client.post("/api/campaigns/video", {
        campaignName: `Title ${name.slice(0, 10)}`,
        videoId: video.id,
        deliveryMethod: "email",
        contacts: [{ name: "Dee", email: to }],
      });
      expect(launch.statusCode, launch.body).toBe(200);
      const mail = await mailTo(to);
      expect(mail.html).toContain("Watch the video");
      expect(mail.html).toContain('alt="Video message from Bloom Florists"');
      expect(mail.html).not.toContain(name);
      expect(mail.body).toContain("Watch the video: http://localhost:80/v/");
      expect(mail.body).not.toContain(name);
    }
  });
});
