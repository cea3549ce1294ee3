import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activities, campaignRecipients, outboxMessages } from "../../src/server/db/schema";
import { BROWSER_UA } from "../browser-ua";
import { createTestApp, signUp, type TestApp } from "../helpers";

// Link scanners (Microsoft Defender Safe Links, Proofpoint, Barracuda, Mimecast), chat unfurlers
// (Slackbot, Twitterbot), crawlers and scripts (curl, python-requests) GET every link of a message.
// A tracked link fetched by one of them must still redirect to its signed destination (a person may
// be waiting behind the scanner) but records no click: no clicked recipient, no report figure, no
// timeline activity, no webhook event. A request without a User-Agent is a script's and counts as a
// bot. A person's browser or mail client records the click.

const BOTS: (string | undefined)[] = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "python-requests/2.31.0",
  "curl/8.5.0",
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  "Twitterbot/1.0",
  "Barracuda Sentinel (EE)",
  "lightMyRequest",
  "",
  undefined, // no User-Agent header at all
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("a tracked link fetched by a bot", () => {
  it("redirects to the signed destination but records no click; a person's browser records it", async () => {
    const u = await signUp(t.app);
    const stamp = Date.now();
    const people = (["chrome", "safari", "outlook"] as const).map((k) => ({
      ua: BROWSER_UA[k],
      email: `bot-${k}-${stamp}@example.com`,
    }));
    const res = await u.client.post("/api/campaigns/email/launch", {
      campaignName: "Bots",
      subject: "S",
      body: "Go https://example.com/offer",
      contacts: people.map((p, i) => ({ name: `P${i}`, email: p.email })),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().campaignId as number;
    const linkOf = async (to: string) => {
      const [mail] = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
      const link = mail?.body.match(/http:\/\/localhost:80(\/c\/[^\s)]+)/)?.[1];
      expect(link).toBeTruthy();
      return link as string;
    };
    const rowOf = async (address: string) =>
      (
        await t.db
          .select()
          .from(campaignRecipients)
          .where(and(eq(campaignRecipients.campaignId, id), eq(campaignRecipients.address, address)))
      )[0];
    const clickActivities = async () =>
      (
        await t.db
          .select()
          .from(activities)
          .where(and(eq(activities.workspaceId, u.user.id), eq(activities.activityType, "email_clicked")))
      ).length;
    const clickedFigure = async () => (await u.client.get(`/api/campaigns/${id}`)).json().figures.clicked;

    for (const p of people) {
      const link = await linkOf(p.email);
      for (const ua of BOTS) {
        const bot = await t.app.inject({ method: "GET", url: link, headers: { "user-agent": ua } });
        expect(bot.statusCode, String(ua)).toBe(302);
        expect(bot.headers.location, String(ua)).toBe("https://example.com/offer");
      }
      const r = await rowOf(p.email);
      expect(r?.clickedAt).toBeNull();
      expect(r?.openedAt).toBeNull();
      expect(r?.status).toBe("sent");
    }
    expect(await clickedFigure()).toBe(0);
    expect(await clickActivities()).toBe(0);

    for (const p of people) {
      const get = await t.app.inject({
        method: "GET",
        url: await linkOf(p.email),
        headers: { "user-agent": p.ua },
      });
      expect(get.statusCode, p.ua).toBe(302);
      expect(get.headers.location).toBe("https://example.com/offer");
      const r = await rowOf(p.email);
      expect(r?.clickedAt, p.ua).not.toBeNull();
      // the click proves the email was opened (its open pixel was never fetched): the open is recorded
      expect(r?.openedAt, p.ua).not.toBeNull();
      expect(r!.openedAt!.getTime()).toBeLessThanOrEqual(r!.clickedAt!.getTime());
      expect(r?.status).toBe("clicked");
    }
    expect(await clickedFigure()).toBe(3);
    expect(await clickActivities()).toBe(3);
    const opens = await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.workspaceId, u.user.id), eq(activities.activityType, "email_opened")));
    expect(opens.map((a) => a.metadata.inferred_from)).toEqual(["click", "click", "click"]);

    // a bot after the person's click adds no timeline row either (a person's repeat click would)
    await t.app.inject({
      method: "GET",
      url: await linkOf(people[0]!.email),
      headers: { "user-agent": "curl/8.5.0" },
    });
    expect(await clickActivities()).toBe(3);
  });
});
