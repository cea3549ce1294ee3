import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import { TEST_EMAILS_PER_HOUR } from "../../src/server/lib/rate-limit";
import { createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** How many "[Test] " campaign emails went to `to` (the local provider's outbox). */
async function testEmailsTo(to: string) {
  const rows = await t.db
    .select({ subject: outboxMessages.subject })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")));
  return rows.filter((r) => r.subject?.startsWith("[Test] ")).length;
}

describe("test emails are limited per account (attack re-test)", () => {
  it("an account that has not proven its address cannot mail it without end: past TEST_EMAILS_PER_HOUR a 429 with a sentence, nothing sent", async () => {
    // anyone can sign up with a stranger's address; until it is verified the "own address" is the stranger's
    const u = await signUp(t.app, {}, { verify: false });
    const draft = {
      subject: "Your parcel is held",
      body: "Pay the customs fee at https://phish.example/pay",
    };
    for (let i = 0; i < TEST_EMAILS_PER_HOUR; i++) {
      const ok = await u.client.post("/api/campaigns/email/test", draft);
      expect(ok.statusCode, ok.body).toBe(200);
    }
    const refused = await u.client.post("/api/campaigns/email/test", draft);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatch(/^Too many test emails\. Please try again in \d+ minutes?\.$/);
    // the tRPC procedure is the same service: refused too
    const viaTrpc = await trpcCall(u.client, "campaigns.sendTest", draft);
    expect(viaTrpc.status).toBe(429);
    expect(await testEmailsTo(u.user.email)).toBe(TEST_EMAILS_PER_HOUR);
  });

  it("a verified account, which owns its address, checks its draft as often as it likes", async () => {
    const u = await signUp(t.app);
    for (let i = 0; i <= TEST_EMAILS_PER_HOUR; i++) {
      const ok = await u.client.post("/api/campaigns/email/test", { subject: "Draft", body: `Try ${i}` });
      expect(ok.statusCode, ok.body).toBe(200);
    }
    expect(await testEmailsTo(u.user.email)).toBe(TEST_EMAILS_PER_HOUR + 1);
  });

  it("the limit is per account: another account still sends its test email", async () => {
    const other = await signUp(t.app);
    const ok = await other.client.post("/api/campaigns/email/test", { subject: "S", body: "B" });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await testEmailsTo(other.user.email)).toBe(1);
  });
});
