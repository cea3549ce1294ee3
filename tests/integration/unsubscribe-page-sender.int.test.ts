import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp } from "../helpers";

// The unsubscribe page (/u/{token}) must say who the person stops hearing from and what it covers:
// the opt-out suppresses the address for every email of the sending workspace (not only "these
// messages" of one campaign), and a person on several businesses' lists must know which one this is.
// It said "Stop receiving these messages at ab***@example.com?" and "... will receive no more of these
// messages." without naming the business.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("the unsubscribe page names the sender", () => {
  it("asks and confirms with the business name and the channel, for the page's button and one-click", async () => {
    const { client } = await signUp(t.app, { business_name: "Rosa's Bakery & Café" });
    const a = `sender-a-${Date.now()}@example.com`;
    const b = `sender-b-${Date.now()}@example.com`;
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Spring",
      subject: "S",
      body: "B",
      contacts: [
        { name: "A", email: a },
        { name: "B", email: b },
      ],
    });
    expect(launch.statusCode).toBe(200);
    const rows = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launch.json().campaignId));
    const rowA = rows.find((r) => r.address === a)!;
    const rowB = rows.find((r) => r.address === b)!;
    const name = "Rosa&#39;s Bakery &amp; Café";

    const get = await t.app.inject({ method: "GET", url: `/u/${rowA.token}` });
    expect(get.statusCode).toBe(200);
    expect(get.body).toContain(`Stop receiving emails from <strong>${name}</strong> at`);

    const post = await t.app.inject({
      method: "POST",
      url: `/u/${rowA.token}`,
      payload: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.statusCode).toBe(200);
    expect(post.body).toContain(`will receive no more emails from <strong>${name}</strong>`);

    const oneClick = await t.app.inject({
      method: "POST",
      url: `/u/${rowB.token}`,
      payload: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(oneClick.statusCode).toBe(200);
    expect(oneClick.body).toContain(`will receive no more emails from <strong>${name}</strong>`);

    // the link opened again (a reload, the email's link later): it says they are unsubscribed, with no
    // button asking again, for the page's unsubscribe and for one-click alike
    for (const row of [rowA, rowB]) {
      const again = await t.app.inject({ method: "GET", url: `/u/${row.token}` });
      expect(again.statusCode).toBe(200);
      expect(again.body).toContain("You are unsubscribed");
      expect(again.body).toContain(`will receive no more emails from <strong>${name}</strong>`);
      expect(again.body).not.toContain("<form");
    }
  });

  it("a person unsubscribed through another campaign's email is told so on this one's page", async () => {
    const { client } = await signUp(t.app, { business_name: "Twice Bakery" });
    const a = `twice-${Date.now()}@example.com`;
    const ids: number[] = [];
    for (const campaignName of ["First", "Second"]) {
      const launch = await client.post("/api/campaigns/email/launch", {
        campaignName,
        subject: "S",
        body: "B",
        contacts: [{ name: "A", email: a }],
      });
      expect(launch.statusCode).toBe(200);
      ids.push(launch.json().campaignId);
    }
    const tokenOf = async (campaignId: number) =>
      (await t.db.select().from(campaignRecipients).where(eq(campaignRecipients.campaignId, campaignId)))[0]!
        .token;
    const first = await tokenOf(ids[0]!);
    const second = await tokenOf(ids[1]!);
    const before = await t.app.inject({ method: "GET", url: `/u/${second}` });
    expect(before.body).toContain("<form");
    const post = await t.app.inject({
      method: "POST",
      url: `/u/${first}`,
      payload: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.statusCode).toBe(200);
    const after = await t.app.inject({ method: "GET", url: `/u/${second}` });
    expect(after.body).toContain("You are unsubscribed");
    expect(after.body).not.toContain("<form");
  });
});
