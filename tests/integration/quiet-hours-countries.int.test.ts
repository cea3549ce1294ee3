import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// Quiet hours (08:00-21:00 where the person is) for contacts outside the US: the contact's country
// (the `country` field, else its phone number's country) decides which time zone(s) count; a
// 5-digit postal code of another country is not a US ZIP, and a country with several zones waits
// for the hours open in all of them.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** `hh:mm` UTC two days from now (always in the future, whatever the test's clock). */
function utcAt(hhmm: string): string {
  const d = new Date(Date.now() + 2 * 86_400_000);
  return `${d.toISOString().slice(0, 10)}T${hhmm}:00.000Z`;
}

type Fields = Partial<Pick<typeof contacts.$inferInsert, "country" | "city" | "postalCode" | "phone">>;

async function preflightOne(fields: Fields, at: string) {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "business");
  const [id] = await findOrCreateContacts(t.ctx, s.user.id, [
    { name: "Camille Martin", email: `camille-${Date.now()}@example.fr` },
  ]);
  await t.db
    .update(contacts)
    .set({ ...fields, smsOptIn: true, callOptIn: true })
    .where(eq(contacts.id, id as number));
  const res = await s.client.post("/api/campaigns/preflight", {
    channel: "sms",
    contacts: [{ id }],
    scheduledAt: at,
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { willSendNow: number; deferred: { count: number; nextWindowStart: string | null } };
}

describe("quiet hours outside the US", () => {
  it("Paris 75001, France, at 02:30Z (night in Paris) is deferred to 08:00 Paris, not read as Addison, Texas", async () => {
    const r = await preflightOne(
      { phone: "+33612345678", city: "Paris", postalCode: "75001", country: "France" },
      utcAt("02:30"),
    );
    expect(r.willSendNow).toBe(0);
    expect(r.deferred.count).toBe(1);
    // 08:00 Paris is 07:00Z in winter, 06:00Z in summer
    expect(r.deferred.nextWindowStart).toMatch(/T0[67]:00:00\.000Z$/);
    // and at noon UTC it goes
    const day = await preflightOne(
      { phone: "+33612345678", city: "Paris", postalCode: "75001", country: "France" },
      utcAt("12:00"),
    );
    expect(day.willSendNow).toBe(1);
  });

  it("Berlin 10115 (country by ISO code) is judged in Berlin, not New York", async () => {
    // 22:00Z: 23:00 in Berlin, 17:00 in New York
    const r = await preflightOne(
      { phone: "+493012345678", city: "Berlin", postalCode: "10115", country: "DE" },
      utcAt("22:00"),
    );
    expect(r.willSendNow).toBe(0);
    expect(r.deferred.count).toBe(1);
  });

  it("a UK or Australian number with no address is judged in its country's time", async () => {
    const uk = await preflightOne({ phone: "+447911123456" }, utcAt("01:30"));
    expect(uk.willSendNow).toBe(0);
    // Australia has several zones: the window must be open in all of them (03:30 in Sydney)
    const au = await preflightOne({ phone: "+61412345678" }, utcAt("16:30"));
    expect(au.willSendNow).toBe(0);
    expect(au.deferred.count).toBe(1);
  });

  it("a US contact is still placed by its ZIP code", async () => {
    // 94103 San Francisco: 12:00 or 13:00 there at 20:00Z; 05:00 or 06:00 at 13:00Z (08:00 or 09:00
    // at the New York number's area code: the ZIP code comes first)
    const phone = "+12125550100";
    expect(
      (await preflightOne({ phone, postalCode: "94103", country: "US" }, utcAt("20:00"))).willSendNow,
    ).toBe(1);
    expect((await preflightOne({ phone, postalCode: "94103" }, utcAt("13:00"))).willSendNow).toBe(0);
  });
});
