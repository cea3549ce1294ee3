import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("imports apply the single-contact length limits (crm.schemas CONTACT_TEXT_LIMITS: job title 200, postal code 20, phone 40)", () => {
  it("an over-long job title and postal code are left out with a warning; the imported contact can be saved by the edit form", async () => {
    const { client } = await signUp(t.app);
    const jobTitle = `Head of ${"Strategic ".repeat(20)}Partnerships`; // 220 characters
    expect(jobTitle.length).toBe(220);
    const res = await client.post("/api/contacts/import", {
      contacts: [
        {
          email: "long@limits.example",
          first_name: "Lena",
          company: "Acme",
          job_title: jobTitle,
          postal_code: "SW1A 1AA, Westminster London",
          phone: `+44 20 7946 0958 ext. ${"1".repeat(30)}`,
        },
        { email: "ok@limits.example", first_name: "Olly", job_title: "CTO", postal_code: "SW1A 1AA" },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, imported: 2 });
    const warnings = JSON.stringify(body);
    expect(warnings).toMatch(/Job title '.*' is longer than 200 characters: contact imported without it/);
    expect(warnings).toMatch(/Postal code 'SW1A 1AA, Westminster London' is longer than 20 characters/);
    expect(warnings).toMatch(/Phone '.*' is longer than 40 characters/);

    const list = (await client.get("/api/contacts?search=limits.example")).json();
    const lena = list.contacts.find((c: { email: string }) => c.email === "long@limits.example");
    expect(lena).toMatchObject({ job_title: null, postal_code: null, phone: null, company: "Acme" });
    // the edit form sends the contact's own fields back with one change: accepted
    const detail = (await client.get(`/api/contacts/${lena.id}`)).json();
    const c = detail.contact ?? detail;
    const put = await client.put(`/api/contacts/${lena.id}`, {
      first_name: c.first_name,
      last_name: c.last_name,
      email: c.email,
      phone: c.phone,
      company: c.company,
      job_title: c.job_title,
      postal_code: c.postal_code,
      lead_status: "contacted",
    });
    expect(put.statusCode, put.body).toBe(200);
  });
});
