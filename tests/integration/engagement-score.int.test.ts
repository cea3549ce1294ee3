import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { PERSON } from "../browser-ua";
import { createTestApp, signUp, type TestApp } from "../helpers";

// QA finding: a contact who opened, clicked and watched kept "Engagement score 0" on their page and
// in the API: nothing ever raised it. Engagement activities now add their points (crm.notes
// ENGAGEMENT_POINTS: open 1, click 3, reply 5, video view 2, watch milestone 1, answered call 2),
// capped at 100; the user and the API may still set it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("a contact's engagement score", () => {
  it("rises with clicks (and the open a click implies), caps at 100, and only for the person who engaged", async () => {
    const u = await signUp(t.app);
    const stamp = Date.now();
    const [a, b] = [`eng-a-${stamp}@example.com`, `eng-b-${stamp}@example.com`];
    const res = await u.client.post("/api/campaigns/email/launch", {
      campaignName: "Engage",
      subject: "S",
      body: "Go https://example.com/offer",
      contacts: [
        { name: "Ann", email: a },
        { name: "Bob", email: b },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const contactOf = async (email: string) =>
      (
        await t.db
          .select()
          .from(contacts)
          .where(and(eq(contacts.workspaceId, u.user.id), eq(contacts.email, email)))
      )[0]!;
    const linkOf = async (to: string) => {
      const [mail] = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
      return mail!.body.match(/http:\/\/localhost:80(\/c\/[^\s)]+)/)![1]!;
    };
    expect((await contactOf(a)).engagementScore).toBe(0);

    const link = await linkOf(a);
    const click = () => t.app.inject({ method: "GET", url: link, headers: PERSON });
    expect((await click()).statusCode).toBe(302);
    // the click (3) and the open it implies (1)
    expect((await contactOf(a)).engagementScore).toBe(4);
    await click();
    expect((await contactOf(a)).engagementScore).toBe(7);
    expect((await contactOf(b)).engagementScore).toBe(0);
    // the API shows it
    const shown = await u.client.get(`/api/contacts/${(await contactOf(a)).id}`);
    expect(shown.json().contact.engagement_score).toBe(7);

    // set by the user, then capped at 100
    const id = (await contactOf(a)).id;
    const set = await u.client.inject({
      method: "PUT",
      url: `/api/contacts/${id}`,
      payload: { engagement_score: 98 },
    });
    expect(set.statusCode, set.body).toBe(200);
    await click();
    expect((await contactOf(a)).engagementScore).toBe(100);
  });
});
