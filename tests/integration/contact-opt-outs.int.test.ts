import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

// The contact page showed "Email opt-in: Yes" for a person who had unsubscribed once the owner
// switched the flag back on: campaigns and single sends still skipped them (the suppression list
// decides), but nothing on the page said so. crm.optOuts gives the contact's email and SMS opt-outs
// with their reasons, which the page shows beside the flags.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("a contact's opt-outs (crm.optOuts)", () => {
  it("names an email unsubscribe even after the owner turns the opt-in flag back on; another workspace gets 404", async () => {
    const { client } = await signUp(t.app);
    const email = uniqueEmail("optout");
    const made = await client.post("/api/contacts", { first_name: "Una", email });
    expect(made.statusCode, made.body).toBe(200);
    const id = made.json().contact.id as number;
    expect((await trpcCall(client, "crm.optOuts", { id }, "query")).data).toEqual({ email: [], sms: [] });

    const launch = await client.post("/api/campaigns/email/launch", {
      campaignName: "News",
      subject: "S",
      body: "B",
      contacts: [{ name: "Una", email }],
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const [row] = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, launch.json().campaignId));
    const unsubscribe = await t.app.inject({
      method: "POST",
      url: `/u/${row!.token}`,
      payload: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(unsubscribe.statusCode).toBe(200);

    // the owner ticks the flag again: refused (only the person can opt back in), and the opt-out is named
    const edited = await client.put(`/api/contacts/${id}`, { email_opt_in: true });
    expect(edited.statusCode, edited.body).toBe(409);
    expect((await client.get(`/api/contacts/${id}`)).json().contact.email_opt_in).toBe(false);
    const after = await trpcCall(client, "crm.optOuts", { id }, "query");
    expect(after.status).toBe(200);
    expect(after.data).toEqual({ email: ["They unsubscribed from your emails."], sms: [] });

    const other = await signUp(t.app);
    const foreign = await trpcCall(other.client, "crm.optOuts", { id }, "query");
    expect(foreign.status).toBe(404);
  });
});
