import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, outboxMessages } from "../../src/server/db/schema";
import { PERSON } from "../browser-ua";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// Attack re-test: a campaign link with characters outside Latin-1 (an internationalised domain such
// as https://例え.jp/, a path in Japanese) made its tracked link /c/{token}/{i}/{signature} answer
// 500 {"code":"ERR_INVALID_CHAR", "message":"Invalid character in header content [\"location\"]"}:
// the raw link went into the Location header, which Node refuses. The recipient never reached the
// page (the click was recorded all the same). The redirect now goes to the link as a URL serialises
// it (punycode host, percent-encoded path, query and fragment), plain ASCII.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const LINKS = [
  "https://例え.jp/menu",
  "https://example.com/日本/お知らせ?q=café&r=ü",
  "https://bücher.example/straße",
];

describe("tracked links to international addresses", () => {
  it("redirect (302) to the ASCII form of the link, and the click is recorded", async () => {
    const { client } = await signUp(t.app);
    const to = uniqueEmail("idn");
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "International",
      subject: "S",
      body: `One ${LINKS[0]} two ${LINKS[1]} three ${LINKS[2]} end`,
      contacts: [{ name: "Ines", email: to }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const [mail] = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
    const tracked = [
      ...(mail?.body ?? "").matchAll(/http:\/\/localhost:80(\/c\/[a-z2-7]+\/(\d)\/[\w-]{22})/g),
    ];
    expect(tracked.map((m) => Number(m[2]))).toEqual([0, 1, 2]);
    for (const m of tracked) {
      const click = await t.app.inject({ method: "GET", url: m[1] as string, headers: PERSON });
      expect(click.statusCode, click.body).toBe(302);
      const raw = LINKS[Number(m[2])] as string;
      expect(click.headers.location).toBe(new URL(raw).href);
      expect(click.headers.location).toMatch(/^[\x21-\x7e]+$/);
    }
    expect(new URL(LINKS[0] as string).href).toBe("https://xn--r8jz45g.jp/menu");
    const [rec] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, res.json().campaignId));
    expect(rec?.clickedAt).toBeInstanceOf(Date);
  });
});
