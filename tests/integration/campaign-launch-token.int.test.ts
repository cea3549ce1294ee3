import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaigns } from "../../src/server/db/schema";
import {
  createTestApp,
  outboxCountsTo,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";

// Double launches from the app (audit finding 7): every test here sends its requests
// for real through the app (app.inject), the racing ones in parallel with Promise.all.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

const sentTo = (addresses: string[]) => outboxCountsTo(t, addresses);

describe("double launch from the app (finding 7): a launch token makes it idempotent", () => {
  it("two parallel REST email launches with the same launchToken: one campaign, one email each", async () => {
    const { client } = await signUp(t.app);
    const emails = [uniqueEmail("dbl"), uniqueEmail("dbl"), uniqueEmail("dbl")];
    const body = {
      campaignName: "Twice",
      subject: "S",
      body: "B",
      contacts: emails.map((email) => ({ name: "D", email })),
      launchToken: crypto.randomUUID(),
    };
    const [a, b] = await Promise.all([
      client.post("/api/campaigns/email/launch", body),
      client.post("/api/campaigns/email/launch", body),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json().campaignId).toBe(b.json().campaignId);
    expect(a.json().recipients).toBe(3);
    expect(b.json().recipients).toBe(3);
    expect([...(await sentTo(emails)).values()]).toEqual([1, 1, 1]);
    // a later repeat (the builder retried after a lost response) answers the same campaign
    const again = await client.post("/api/campaigns/email/launch", body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ campaignId: a.json().campaignId, recipients: 3, skipped: {} });
    expect([...(await sentTo(emails)).values()]).toEqual([1, 1, 1]);
  });

  it("the Idempotency-Key header does the same for the SMS and generic launch routes", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const phone = "+12125550121";
    const key = crypto.randomUUID();
    const sms = () =>
      client.inject({
        method: "POST",
        url: "/api/campaigns/sms/launch",
        headers: { "idempotency-key": key },
        payload: {
          campaignName: "SMS twice",
          message: "Hi",
          contacts: [{ name: "S", phone }],
          includeNotOptedIn: true,
        },
      });
    const [a, b] = await Promise.all([sms(), sms()]);
    expect([a.statusCode, b.statusCode], a.body + b.body).toEqual([200, 200]);
    expect(a.json().campaignId).toBe(b.json().campaignId);
    // the same key on another campaign of the channel (another name or text) is refused: it was
    // answered 200 with the first campaign, and the second was never made nor sent
    for (const other of [
      { campaignName: "SMS twice", message: "Another text" },
      { campaignName: "Another name", message: "Hi" },
    ]) {
      const res = await client.inject({
        method: "POST",
        url: "/api/campaigns/sms/launch",
        headers: { "idempotency-key": key },
        payload: { ...other, contacts: [{ name: "S", phone: "+12125550122" }], includeNotOptedIn: true },
      });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error).toBe(
        "This launch token was already used for another campaign; make a new token for a new campaign",
      );
    }
    const emails = [uniqueEmail("gen"), uniqueEmail("gen")];
    const generic = () =>
      client.inject({
        method: "POST",
        url: "/api/campaigns",
        headers: { "idempotency-key": key },
        payload: {
          name: "Generic twice",
          channel: "email",
          content: { subject: "S", body: "B" },
          recipients: { csv: emails.map((email) => ({ email })) },
        },
      });
    // a token already used by another campaign (another channel) is refused, not silently answered
    const reused = await generic();
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error).toMatch(/launch token .* already used/i);
    const key2 = crypto.randomUUID();
    const [g1, g2] = await Promise.all(
      [0, 1].map(() =>
        client.inject({
          method: "POST",
          url: "/api/campaigns",
          headers: { "idempotency-key": key2 },
          payload: {
            name: "Generic twice",
            channel: "email",
            content: { subject: "S", body: "B" },
            recipients: { csv: emails.map((email) => ({ email })) },
          },
        }),
      ),
    );
    expect([g1.statusCode, g2.statusCode]).toEqual([200, 200]);
    expect(g1.json().campaignId).toBe(g2.json().campaignId);
    expect([...(await sentTo(emails)).values()]).toEqual([1, 1]);
    // a body token and a different header token: 400 with a sentence
    const both = await client.inject({
      method: "POST",
      url: "/api/campaigns",
      headers: { "idempotency-key": crypto.randomUUID() },
      payload: {
        name: "x",
        channel: "email",
        content: { subject: "S", body: "B" },
        recipients: { csv: [{ email: uniqueEmail("x") }] },
        launchToken: crypto.randomUUID(),
      },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toMatch(/Idempotency-Key/);
  });

  it("two parallel tRPC campaigns.create with the same launchToken: one campaign; another workspace's token is its own", async () => {
    const { client } = await signUp(t.app);
    const emails = [uniqueEmail("tr"), uniqueEmail("tr")];
    const launchToken = crypto.randomUUID();
    const input = {
      name: "tRPC twice",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { csv: emails.map((email) => ({ email })) },
      launchToken,
    };
    const [a, b] = await Promise.all([
      trpc(client, "campaigns.create", input, "mutation"),
      trpc(client, "campaigns.create", input, "mutation"),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.data.campaign.id).toBe(b.data.campaign.id);
    expect(a.data.queued).toBe(2);
    expect(b.data.queued).toBe(2);
    expect([...(await sentTo(emails)).values()]).toEqual([1, 1]);
    // the same token in another workspace is unrelated: it launches there
    const other = await signUp(t.app);
    const otherEmails = [uniqueEmail("tr2")];
    const o = await trpc(
      other.client,
      "campaigns.create",
      { ...input, recipients: { csv: otherEmails.map((email) => ({ email })) } },
      "mutation",
    );
    expect(o.status).toBe(200);
    expect(o.data.campaign.id).not.toBe(a.data.campaign.id);
    expect([...(await sentTo(otherEmails)).values()]).toEqual([1]);
    // a malformed token is a 400 with a sentence
    const bad = await trpc(client, "campaigns.create", { ...input, launchToken: "x y" }, "mutation");
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toMatch(/launch token must be 8 to 100 letters/i);
  });

  it("two parallel video launches (personalised avatar) with one launchToken: one campaign, one render per recipient", async () => {
    const { client, user } = await signUp(t.app);
    await setPlan(t, user.id, "professional");
    const emails = [uniqueEmail("vid"), uniqueEmail("vid")];
    const body = {
      campaignName: "Video twice",
      avatarScript: "Hi {{name|there}}",
      deliveryMethod: "email",
      message: "Hi {name}",
      contacts: emails.map((email) => ({ name: "V", email })),
      launchToken: crypto.randomUUID(),
    };
    const [a, b] = await Promise.all([
      client.post("/api/campaigns/video", body),
      client.post("/api/campaigns/video", body),
    ]);
    expect([a.statusCode, b.statusCode], a.body + b.body).toEqual([200, 200]);
    expect(a.json().campaign.id).toBe(b.json().campaign.id);
    const mine = await t.db.select().from(campaigns).where(eq(campaigns.workspaceId, user.id));
    expect(mine.length).toBe(1);
    expect([...(await sentTo(emails)).values()]).toEqual([1, 1]);
    const renders = await t.sql<{ n: number }[]>`
      select count(*)::int as n from avatar_videos where workspace_id = ${user.id}`;
    expect(renders[0]?.n).toBe(2);
    const vcs = await t.sql<{ n: number }[]>`
      select count(*)::int as n from video_campaigns where workspace_id = ${user.id}`;
    expect(vcs[0]?.n).toBe(1);
  });
});
