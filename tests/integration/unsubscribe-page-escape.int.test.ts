import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp } from "../helpers";

// The unsubscribe page (/u/{token}) shows the recipient's address, masked. Every way an address gets
// in refuses markup, but the page must not trust that: the address is escaped like any other text
// written into HTML (an address repaired by hand in the database, or a rule loosened later).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("the unsubscribe page", () => {
  it("escapes the masked address it shows, before and after the unsubscribe", async () => {
    const { client } = await signUp(t.app);
    const email = `escape-${Date.now()}@example.com`;
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Escape",
      subject: "S",
      body: "B",
      contacts: [{ name: "E", email }],
    });
    expect(launch.statusCode).toBe(200);
    const [row] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launch.json().campaignId));
    // markup in the stored address, written straight into the database
    const hostile = `ab<img src=x onerror=alert(1)>@ex"ample.com<script>alert(2)</script>`;
    await t.db.update(campaignRecipients).set({ address: hostile }).where(eq(campaignRecipients.id, row!.id));
    const get = await t.app.inject({ method: "GET", url: `/u/${row!.token}` });
    expect(get.statusCode).toBe(200);
    expect(get.body).not.toContain("<script>alert(2)");
    expect(get.body).not.toContain("<img");
    expect(get.body).toContain("ab***@ex&quot;ample.com&lt;script&gt;alert(2)&lt;/script&gt;");
    const post = await t.app.inject({
      method: "POST",
      url: `/u/${row!.token}`,
      payload: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.statusCode).toBe(200);
    expect(post.body).not.toContain("<script>alert(2)");
    expect(post.body).toContain("ab***@ex&quot;ample.com&lt;script&gt;");
  });
});
