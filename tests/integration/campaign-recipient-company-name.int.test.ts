import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

// A business saved from lead search has a company and no person's name: the campaign report's
// recipients and the Opt-outs screen listed it by its email (or address) instead of its company.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("a contact without a person's name", () => {
  it("is listed by its company in a campaign's recipients and on the Opt-outs screen", async () => {
    const { client, user } = await signUp(t.app);
    const business = uniqueEmail("front-desk");
    const person = uniqueEmail("pat");
    // as a lead search saves a business: its company, no person's name
    await t.db.insert(contacts).values({ workspaceId: user.id, company: "Chen Plumbing", email: business });
    const made = await client.post("/api/contacts", {
      first_name: "Pat",
      last_name: "Lee",
      company: "Lee Co",
      email: person,
    });
    expect(made.statusCode, made.body).toBe(200);
    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "Names",
      subject: "Hello",
      body: "News",
      contacts: [{ email: business }, { email: person }],
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const id = launch.json().campaignId as number;
    const listed = await client.get(`/api/campaigns/${id}/recipients`);
    expect(listed.statusCode, listed.body).toBe(200);
    const names = (listed.json().recipients as { address: string; name: string }[])
      .map((r) => [r.address, r.name])
      .sort();
    expect(names).toEqual(
      [
        [business, "Chen Plumbing"],
        [person, "Pat Lee"],
      ].sort(),
    );

    await suppress(t.db, user.id, "email", business, "unsubscribed", "unsubscribe page", true);
    const optOuts = await trpcCall(client, "crm.optOutList", {}, "query");
    expect(optOuts.status).toBe(200);
    expect(
      (optOuts.data as { entries: { contact: { name: string } | null }[] }).entries[0]?.contact?.name,
    ).toBe("Chen Plumbing");
  });
});
