import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyAudience, previewRecipient } from "../../src/client/features/campaigns/audience";
import { contacts, outboxMessages } from "../../src/server/db/schema";
import { renderPreview } from "../../src/server/lib/merge-tags";
import {
  type AuthedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";

/*
 * A QA pass on the builders' review step:
 * 1. the preview for the first contact of a tag / segment / stage / status audience rendered only the
 *    five fields the preflight's sample carried ("Hi Alice in your town" where the email said "Hi Alice
 *    in Springfield"); the sample now carries every field the send merges;
 * 2. a CSV row matching an existing contact previewed the row's values ("Hey Alicia at Zed Corp")
 *    while the contact's were sent ("Hey Alice at Acme Co"); the preview now reads the preflight's sample.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

async function paidUser() {
  const u = await signUp(t.app, { business_name: "Pitch Co" });
  await setPlan(t, u.user.id, "business");
  return u;
}

/** The campaign emails sent to `to` (subject and text body). */
const emailsTo = (to: string) =>
  t.db
    .select({ subject: outboxMessages.subject, body: outboxMessages.body })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")));

async function waitCompleted(client: AuthedClient, id: number) {
  await expect
    .poll(async () => (await client.get(`/api/campaigns/${id}`)).json().campaign.status, { timeout: 20_000 })
    .toBe("completed");
}

describe("the review step's preview is what is sent", () => {
  it("a tag audience: the preflight's sample carries every merged field (city, job title, custom fields, ...)", async () => {
    const { client, user } = await paidUser();
    const email = uniqueEmail("qa4-tag");
    const [alice] = await t.db
      .insert(contacts)
      .values({
        workspaceId: user.id,
        firstName: "Alice",
        lastName: "Adams",
        email,
        company: "Acme Co",
        city: "Springfield",
        jobTitle: "Chef",
        leadScore: 7,
        customFields: { shoe_size: 42 },
      })
      .returning({ id: contacts.id });
    const tag = await client.post("/api/contacts/tags", { name: "QA4" });
    const tagId = (tag.json().tag ?? tag.json()).id as number;
    await client.post("/api/contacts/bulk/operation", {
      contactIds: [alice!.id],
      operation: "add_tag",
      data: { tag_id: tagId },
    });
    const subject = "Hi {{first_name}} in {{city|your town}}";
    const body =
      "City={{city|somewhere}} Job={{job_title|none}} Title={{jobTitle|none}} Shoe={{shoe_size|?}} Score={{lead_score}} Co={{company}}";
    const pre = await client.post("/api/campaigns/preflight", { channel: "email", audience: { tagId } });
    expect(pre.statusCode, pre.body).toBe(200);
    const sample = pre.json().sample;
    expect(sample).toMatchObject({ first_name: "Alice", last_name: "Adams", email, company: "Acme Co" });
    expect(renderPreview(subject, sample, "")).toBe("Hi Alice in Springfield");
    const previewBody = renderPreview(body, sample, "");
    expect(previewBody).toBe("City=Springfield Job=Chef Title=Chef Shoe=42 Score=7 Co=Acme Co");
    // tRPC (the builders' call) gives the same sample, which previews the same
    const viaTrpc = await trpc(client, "campaigns.preflight", { channel: "email", audience: { tagId } });
    expect(viaTrpc.status).toBe(200);
    expect(renderPreview(subject, viaTrpc.data.sample, "")).toBe("Hi Alice in Springfield");
    expect(renderPreview(body, viaTrpc.data.sample, "")).toBe(previewBody);
    // the builders preview the preflight's sample
    const audience = { ...emptyAudience("saved"), savedKind: "tag" as const, savedValue: String(tagId) };
    expect(renderPreview(subject, previewRecipient(audience, viaTrpc.data), "")).toBe(
      "Hi Alice in Springfield",
    );

    // and the email sent says the same
    const launched = await client.post("/api/campaigns", {
      name: "QA4 tag",
      channel: "email",
      content: { subject, body },
      audience: { tagId },
    });
    expect(launched.statusCode, launched.body).toBe(200);
    await waitCompleted(client, launched.json().campaignId);
    const [mail] = await emailsTo(email);
    expect(mail?.subject).toBe("Hi Alice in Springfield");
    expect(mail?.body).toContain(previewBody);
  });

  it("a CSV row of an existing contact previews the contact's values, as sent; a new row the contact made of it", async () => {
    const { client, user } = await paidUser();
    const known = uniqueEmail("qa4-r1");
    const fresh = uniqueEmail("qa4-r2");
    await t.db.insert(contacts).values({
      workspaceId: user.id,
      firstName: "Alice",
      lastName: "Adams",
      email: known,
      company: "Acme Co",
    });
    const subject = "Hey {{first_name}} at {{company}}";
    const rows = [
      { name: "Alicia Zed", email: known, company: "Zed Corp" },
      { name: "Nora New", email: fresh, company: "New Co" },
    ];
    const pre = (await client.post("/api/campaigns/preflight", { channel: "email", contacts: rows })).json();
    const audience = { ...emptyAudience("csv"), csvRows: rows };
    expect(renderPreview(subject, previewRecipient(audience, pre), "")).toBe("Hey Alice at Acme Co");
    // a first row that is no contact yet: the contact the launch makes of it (name split, company)
    const newFirst = (await trpc(client, "campaigns.preflight", { channel: "email", contacts: [rows[1]] }))
      .data;
    expect(newFirst.sample).toMatchObject({ first_name: "Nora", last_name: "New", company: "New Co" });
    expect(newFirst.sample.id).toBeUndefined();
    expect(renderPreview(subject, previewRecipient({ ...audience, csvRows: [rows[1]!] }, newFirst), "")).toBe(
      "Hey Nora at New Co",
    );

    const launched = await client.post("/api/campaigns", {
      name: "QA4 csv",
      channel: "email",
      content: { subject, body: "Hello" },
      recipients: { csv: rows },
    });
    expect(launched.statusCode, launched.body).toBe(200);
    await waitCompleted(client, launched.json().campaignId);
    expect((await emailsTo(known))[0]?.subject).toBe("Hey Alice at Acme Co");
    expect((await emailsTo(fresh))[0]?.subject).toBe("Hey Nora at New Co");
  });
});
