import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, outboxMessages, usageMeters } from "../../src/server/db/schema";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, daytimeZone, setPlan, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";

// A single SMS or AI call from the contact page follows the same quiet hours as a campaign send
// (08:00-21:00 in the contact's time zone; 47 CFR 64.1200(c)(1)): outside them it is refused with a
// sentence that says the contact's local time and when sending opens, and nothing is sent or counted.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** An Etc/GMT zone where the local time is now 03:xx (inside quiet hours). */
function nightZone(): { zone: string } {
  const o = ((3 - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return { zone: o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}` };
}

/** A number no other test of this run is given (tests/unique-phone.ts). */
const freshPhone = () => uniquePhone("646");

async function contactIn(zone: string) {
  const s = await signUp(t.app);
  await setPlan(t, s.user.id, "business");
  const phone = await freshPhone();
  const [id] = await findOrCreateContacts(t.ctx, s.user.id, [{ name: "Nia", phone }]);
  await t.db
    .update(contacts)
    .set({ timezone: zone, smsOptIn: true, callOptIn: true })
    .where(inArray(contacts.id, [id as number]));
  return { ...s, id: id as number, phone };
}

async function sentTo(phone: string) {
  return (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, phone))).length;
}

async function used(workspaceId: string, meter: string) {
  const [row] = await t.db
    .select({ used: usageMeters.used })
    .from(usageMeters)
    .where(and(eq(usageMeters.workspaceId, workspaceId), eq(usageMeters.meter, meter)));
  return row?.used ?? 0;
}

describe("contact-page SMS and calls keep quiet hours", () => {
  it("at 03:xx the contact's time, a single SMS and a call are refused with their local time and when sending opens", async () => {
    const { zone } = nightZone();
    const c = await contactIn(zone);
    const sms = await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "Hello" });
    expect(sms.statusCode).toBe(422);
    const sentence = sms.json().error as string;
    expect(sentence).toMatch(
      new RegExp(
        `^It is 03:\\d\\d for this contact \\(${zone.replace("+", "\\+")}\\): texts and calls may go out only between 08:00 and 21:00 their time\\. Sending opens at 08:00 their time, in [45] h \\d+ min\\.$`,
      ),
    );
    const call = await c.client.post(`/api/contacts/${c.id}/make-call`, { script: "Hello" });
    expect(call.statusCode).toBe(422);
    expect(call.json().error).toMatch(/^It is 03:\d\d for this contact .* Sending opens at 08:00 their time/);
    expect(await sentTo(c.phone)).toBe(0);
    // nothing counted against the plan
    expect([await used(c.user.id, "smsMessages"), await used(c.user.id, "voiceCalls")]).toEqual([0, 0]);
  });

  it("inside the window both go (the contact's own time zone decides, not the server's)", async () => {
    const c = await contactIn(daytimeZone());
    expect((await c.client.post(`/api/contacts/${c.id}/send-sms`, { message: "Hello" })).statusCode).toBe(
      200,
    );
    expect((await c.client.post(`/api/contacts/${c.id}/make-call`, { script: "Hello" })).statusCode).toBe(
      200,
    );
    expect(await sentTo(c.phone)).toBe(2);
  });
});
