import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, outboxMessages } from "../../src/server/db/schema";
import { PERSON } from "../browser-ua";
import { createTestApp, signUp, type TestApp } from "../helpers";

// A tracked link (/c/{token}/{i}/{signature}) is a GET route, and Fastify answers HEAD for every GET
// route by running its handler. Link checkers and mail security scanners probe links with HEAD
// (RFC 9110 section 9.3.2: HEAD is GET without the content, a look at the headers, never a person
// following the link): a HEAD must answer where the link goes without counting a click.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("a HEAD request to a tracked link", () => {
  it("answers the redirect but records no click; a GET then records it", async () => {
    const { client } = await signUp(t.app);
    const a = `head-${Date.now()}@example.com`;
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Head",
      subject: "S",
      body: "Go https://example.com/x",
      contacts: [{ name: "H", email: a }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const [mail] = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, a));
    const link = mail?.body.match(/http:\/\/localhost:80(\/c\/[^\s)]+)/)?.[1];
    expect(link).toBeTruthy();
    const row = async () =>
      (
        await t.db
          .select()
          .from(campaignRecipients)
          .where(eq(campaignRecipients.campaignId, res.json().campaignId))
      )[0];

    const head = await t.app.inject({ method: "HEAD", url: link as string });
    expect(head.statusCode).toBe(302);
    expect(head.headers.location).toBe("https://example.com/x");
    expect((await row())?.clickedAt).toBeNull();
    expect((await row())?.status).toBe("sent");

    const get = await t.app.inject({ method: "GET", url: link as string, headers: PERSON });
    expect(get.statusCode).toBe(302);
    expect((await row())?.clickedAt).not.toBeNull();
    expect((await row())?.status).toBe("clicked");
  });
});
