/**
 * Editing a contact (the contact page's form, PUT /api/contacts/{id}, tRPC crm.update and
 * PATCH /api/v1/contacts/{id}: one service, crm.contacts updateContact).
 * - An import keeps a phone it cannot read as typed and reports it ("Fix the number on the contact").
 *   The form sends every field back, so saving any other field of such a contact failed with
 *   "'229.077.5154' is not a valid phone number" (70 of datablist-customers-100's rows). The number
 *   sent back unchanged is no longer checked again; a changed one still must be valid, and the v1
 *   error names the field (`param: "phone"`).
 * - Add Contact requires a first name, yet an edit could clear it (200, first_name null). Clearing a
 *   stored first name is now "First name is required".
 * - POST /api/v1/contacts with a first name of the wrong type said "First name is required".
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { importCsv } from "../contacts-import";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function account() {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", {
    name: "edit",
    scopes: ["contacts:read", "contacts:write"],
  });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const v1 = (method: "PATCH" | "POST", url: string, payload: object) =>
    t.app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${key}` }, payload });
  return { ...u, v1 };
}

describe("editing a contact", () => {
  it("a phone an import kept as typed does not block saving the other fields; a new invalid one is refused", async () => {
    const u = await account();
    const email = uniqueEmail("sheryl");
    const imp = await importCsv(
      u.client,
      `First Name,Last Name,Email,Phone\nSheryl,Baxter,${email},229.077.5154\n`,
    );
    expect(imp).toMatchObject({ status: "completed", created: 1 });
    const listed = (await u.client.get(`/api/contacts?search=${encodeURIComponent(email)}`)).json().contacts;
    expect(listed).toHaveLength(1);
    const c = listed[0] as Record<string, unknown> & { id: number };
    expect(c.phone).toBe("229.077.5154");

    // the whole form back, the number as shown, one field changed
    const form = {
      first_name: c.first_name,
      last_name: c.last_name,
      email: c.email,
      phone: c.phone,
      mobile: c.mobile ?? "",
      company: c.company ?? "",
      lifecycle_stage: "customer",
    };
    const saved = await u.client.put(`/api/contacts/${c.id}`, form);
    expect(saved.statusCode, saved.body).toBe(200);
    const after = (await u.client.get(`/api/contacts/${c.id}`)).json().contact;
    expect(after).toMatchObject({ lifecycle_stage: "customer", phone: "229.077.5154" });
    // the same through tRPC (the contact page) and v1
    const trpc = await trpcCall(u.client, "crm.update", {
      id: c.id,
      data: { ...form, lead_status: "contacted" },
    });
    expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
    const patched = await u.v1("PATCH", `/contacts/${c.id}`, { phone: "229.077.5154", lead_score: 40 });
    expect(patched.statusCode, patched.body).toBe(200);

    // a changed number is checked
    const bad = await u.client.put(`/api/contacts/${c.id}`, { ...form, phone: "229.077.515" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/^'229\.077\.515' is not a valid phone number/);
    const badV1 = await u.v1("PATCH", `/contacts/${c.id}`, { phone: "12" });
    expect(badV1.statusCode).toBe(400);
    expect(badV1.json().error).toMatchObject({ param: "phone" });
    // a valid new number replaces it
    const fixed = await u.client.put(`/api/contacts/${c.id}`, { ...form, phone: "(229) 555-0154" });
    expect(fixed.statusCode, fixed.body).toBe(200);
  });

  it("a stored first name cannot be cleared; a wrong type is named as such", async () => {
    const u = await account();
    const made = await u.client.post("/api/contacts", { first_name: "Ann", email: uniqueEmail("ann") });
    expect(made.statusCode, made.body).toBe(200);
    const id = made.json().contact.id as number;
    for (const first_name of ["", "   ", null]) {
      const res = await u.client.put(`/api/contacts/${id}`, { first_name });
      expect(res.statusCode, JSON.stringify(first_name)).toBe(400);
      expect(res.json().error).toBe("First name is required");
    }
    const v1 = await u.v1("PATCH", `/contacts/${id}`, { first_name: null });
    expect(v1.statusCode).toBe(400);
    expect(v1.json().error).toMatchObject({ message: "First name is required", param: "first_name" });
    expect((await u.client.get(`/api/contacts/${id}`)).json().contact.first_name).toBe("Ann");
    // other fields still save, and so does a new first name
    expect((await u.client.put(`/api/contacts/${id}`, { first_name: "Anna", company: "" })).statusCode).toBe(
      200,
    );

    const typed = await u.v1("POST", "/contacts", { first_name: 123, email: uniqueEmail("typed") });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().error).toMatchObject({ message: "First name must be text", param: "first_name" });
    const missing = await u.v1("POST", "/contacts", { email: uniqueEmail("missing") });
    expect(missing.json().error).toMatchObject({ message: "First name is required", param: "first_name" });
  });
});
