import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import { cpuMsSince } from "../cpu-time";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// Attack re-test: merge tags were found with a regex that, for a `{{field|` without its closing
// braces, scanned to the next `}`: quadratic on a body of many `{{a|` (the body allows 100,000
// characters). One "Send test" of such a draft held the web server's only thread for 13 s; every
// recipient of such a campaign cost the shared worker 12 s (the HTML and the text part), stalling
// every workspace's sends.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

const HOSTILE = "{{a|".repeat(25_000);

describe("a draft full of unclosed merge tags", () => {
  it("a test email of it is answered at once, the braces sent as written", async () => {
    const u = await signUp(t.app);
    // CPU time of this process (the app and its inline jobs run here), which a loaded machine does
    // not stretch as it does wall time; the quadratic scan cost 13 s of it
    const started = process.cpuUsage();
    const res = await u.client.post("/api/campaigns/email/test", { subject: "Braces", body: HOSTILE });
    const ms = cpuMsSince(started);
    expect(res.statusCode, res.body).toBe(200);
    expect(ms).toBeLessThan(3000);
    const mails = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, u.user.email));
    const test = mails.find((m) => m.subject === "[Test] Braces");
    expect(test?.body.startsWith("{{a|{{a|")).toBe(true);
  });

  it("a campaign of it is sent to its recipients at once", async () => {
    const u = await signUp(t.app);
    const to = [uniqueEmail("braces"), uniqueEmail("braces")];
    const started = process.cpuUsage();
    const res = await u.client.post("/api/campaigns/email/launch", {
      campaignName: "Braces",
      subject: "Hello {{first_name|there}}",
      body: HOSTILE,
      contacts: to.map((email) => ({ name: "Bea", email })),
    });
    expect(res.statusCode, res.body).toBe(200);
    // the test app's job client sends inline: the answer comes after both emails were rendered and sent
    const sent = await t.db
      .select()
      .from(outboxMessages)
      .where(eq(outboxMessages.to, to[1] as string));
    const ms = cpuMsSince(started);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.subject).toBe("Hello Bea");
    expect(ms).toBeLessThan(4000);
  });
});
