import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Contact, contacts } from "../../src/server/db/schema";
import { addressFor } from "../../src/server/features/campaigns/campaigns.audience";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall as trpc } from "../helpers";

/*
 * The campaign builders' contact picker (client features/campaigns/contact-picker, tRPC `crm.list`
 * with `reachable`) offers only the contacts the campaign can reach: an SMS, call or voicemail
 * picker no contact whose number an import reported invalid (it keeps the raw text, no E.164 phone
 * or mobile), which the review then skipped as "no valid phone number"; an email picker no contact
 * without an email. The server decides, by the review's own rule (campaigns.audience addressFor).
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Listed = { id: number; first_name: string | null; phone: string | null };
type ListPage = { contacts: Listed[]; pagination: { total: number; total_capped?: boolean } };

async function paidUser() {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  return u;
}

describe("the campaign contact picker lists only reachable contacts", () => {
  it("an SMS picker leaves out a contact whose imported number was invalid; the review would skip it", async () => {
    const { client, user } = await paidUser();
    const imported = await trpc(client, "crm.importRows", {
      contacts: [
        { first_name: "Valid", last_name: "Phone", phone: "+1 415 555 0132", email: "valid@example.com" },
        { first_name: "Broken", last_name: "Phone", phone: "555-1234", email: "broken@example.com" },
        { first_name: "Mobile", last_name: "Only", mobile: "(212) 555-0187", email: "mobile@example.com" },
      ],
    });
    expect(imported.status, JSON.stringify(imported.error)).toBe(200);
    expect(imported.data.created).toBe(3);
    // a contact with a number and no email (Business Search leads and phone-only campaign rows make them)
    await t.db.insert(contacts).values({
      workspaceId: user.id,
      firstName: "Phone",
      lastName: "Only",
      phone: "+14155550199",
      email: null,
    });
    const all = (await trpc(client, "crm.list", { limit: 50 }, "query")).data as ListPage;
    const broken = all.contacts.find((c) => c.first_name === "Broken");
    // the import kept the number as typed, with no E.164 form
    expect(broken?.phone).toBe("555-1234");

    const sms = await trpc(client, "crm.list", { limit: 50, reachable: "phone" }, "query");
    expect(sms.status, JSON.stringify(sms.error)).toBe(200);
    const page = sms.data as ListPage;
    expect(page.contacts.map((c) => c.first_name).sort()).toEqual(["Mobile", "Phone", "Valid"]);
    expect(page.pagination.total).toBe(3);
    // the same search with and without a typo, and a search by the raw number, keep the rule
    for (const search of ["phone", "phnoe", "555-1234"]) {
      const found = (await trpc(client, "crm.list", { search, reachable: "phone" }, "query"))
        .data as ListPage;
      expect(
        found.contacts.map((c) => c.first_name),
        search,
      ).not.toContain("Broken");
    }

    // the contact the picker used to offer is the one the review skips
    const preflight = await trpc(client, "campaigns.preflight", {
      channel: "sms",
      audience: { contactIds: [broken!.id] },
    });
    expect(preflight.status, JSON.stringify(preflight.error)).toBe(200);
    expect(preflight.data.skipped).toEqual({ "no valid phone number": 1 });

    // "Select all N matching" in the SMS picker: the audience is the N it listed, nobody skipped for
    // a number; the same filter without `reachable` (a saved stage, the public API) still counts him
    const all3 = await trpc(client, "campaigns.preflight", {
      channel: "sms",
      audience: { filter: { search: "o", reachable: "phone" } },
      includeNotOptedIn: true,
    });
    expect(all3.status, JSON.stringify(all3.error)).toBe(200);
    expect(all3.data.audienceSize).toBe(3);
    expect(all3.data.skipped["no valid phone number"]).toBeUndefined();
    const plain = await trpc(client, "campaigns.preflight", {
      channel: "sms",
      audience: { filter: { search: "o" } },
      includeNotOptedIn: true,
    });
    expect(plain.data.audienceSize).toBe(4);
    expect(plain.data.skipped["no valid phone number"]).toBe(1);

    // an email picker lists it (it has an email) and leaves out the contact without one
    const email = (await trpc(client, "crm.list", { limit: 50, reachable: "email" }, "query"))
      .data as ListPage;
    expect(email.contacts.map((c) => c.first_name).sort()).toEqual(["Broken", "Mobile", "Valid"]);
  });

  it("agrees with the review's rule (addressFor) for every channel, with a tag and a stage filter", async () => {
    const { client, user } = await paidUser();
    // stored values as every path may have left them, including numbers kept only as typed
    const shapes: Partial<typeof contacts.$inferInsert>[] = [
      { phone: "+14155550132" },
      { phone: null, mobile: "+442071838750" },
      { phone: "555-1234", mobile: null },
      { phone: "+1 415 555 0132" },
      { phone: "+0123456789" },
      { phone: "+123456" },
      { phone: "+1234567890123456" },
      { phone: "", mobile: "" },
      { phone: "4155550132", mobile: "+12125550187" },
      { phone: "+14155550132\n" },
      { phone: null, mobile: null, email: null },
      { phone: null, email: "" },
      { phone: "+٤١٥٥٥٥٠١٣٢" },
    ];
    const rows = await t.db
      .insert(contacts)
      .values(
        shapes.map((s, i) => ({
          workspaceId: user.id,
          firstName: `Shape${i}`,
          email: `shape${i}-${Date.now()}@example.com`,
          lifecycleStage: "lead" as const,
          ...s,
        })),
      )
      .returning();
    const tag = await client.post("/api/contacts/tags", { name: "Picked" });
    const tagId = (tag.json().tag ?? tag.json()).id as number;
    const bulk = await client.post("/api/contacts/bulk/operation", {
      contactIds: rows.map((r) => r.id),
      operation: "add_tag",
      data: { tag_id: tagId },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);

    const reachedBy = (ch: "sms" | "voice" | "voicemail" | "email") =>
      rows.filter((r: Contact) => addressFor(ch, r) !== null).map((r) => r.id);
    const phoneIds = reachedBy("sms").sort();
    expect(reachedBy("voice").sort()).toEqual(phoneIds);
    expect(reachedBy("voicemail").sort()).toEqual(phoneIds);
    expect(phoneIds.length).toBe(3);
    for (const [reachable, expected] of [
      ["phone", phoneIds],
      ["email", reachedBy("email").sort()],
    ] as const) {
      for (const filter of [{}, { tag: tagId }, { stage: "lead" }, { search: "shape" }]) {
        const r = await trpc(client, "crm.list", { limit: 50, reachable, ...filter }, "query");
        expect(r.status, JSON.stringify(r.error)).toBe(200);
        const page = r.data as ListPage;
        const what = `${reachable} ${JSON.stringify(filter)}`;
        expect(page.contacts.map((c) => c.id).sort(), what).toEqual(expected);
        expect(page.pagination.total, what).toBe(expected.length);
      }
    }
  });

  it("refuses a reachable value it does not know", async () => {
    const { client } = await paidUser();
    const r = await trpc(client, "crm.list", { reachable: "fax" }, "query");
    expect(r.status).toBe(400);
  });
});
