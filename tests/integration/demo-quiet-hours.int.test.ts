import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import { sendDemoJob } from "../../src/server/features/demo/demo.jobs";
import { getDemoRequest, insertDemoRequest } from "../../src/server/features/demo/demo.queries";
import { authedClient, createTestApp, type TestApp, trpcCall } from "../helpers";

// The public demo texts and calls any number typed into the landing page: it keeps the quiet hours
// of every other text and call (08:00-21:00 where the number is; 47 CFR 64.1200(c)(1)). Outside
// them the request is refused up front with a sentence giving the local time, and a queued demo that
// has fallen outside them when its job runs sends neither the text nor the call.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** Numbers in places without daylight saving time, with their fixed UTC offsets in hours. */
const PLACES = [
  { phone: "+18085550123", shown: "+1 808 555 0123", offset: -10 }, // Hawaii
  { phone: "+5491123456789", shown: "+54 9 11 2345 6789", offset: -3 }, // Buenos Aires
  { phone: "+919812345678", shown: "+91 98123 45678", offset: 5.5 }, // India
  { phone: "+819012345678", shown: "+81 90 1234 5678", offset: 9 }, // Japan
];

/** Local hour (fractional) of a place now. */
function localHour(offset: number): number {
  const d = new Date();
  return (((d.getUTCHours() + d.getUTCMinutes() / 60 + offset) % 24) + 24) % 24;
}

/** A place where it is now well inside the night (22:00-07:00), and one well inside the day (09:00-20:00). */
function nightAndDay() {
  const night = PLACES.find((p) => {
    const h = localHour(p.offset);
    return h >= 22 || h < 7;
  });
  const day = PLACES.find((p) => {
    const h = localHour(p.offset);
    return h >= 9 && h < 20;
  });
  if (!night || !day) throw new Error("no night/day place now: extend PLACES");
  return { night, day };
}

async function sentTo(phone: string) {
  return (await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, phone)))
    .map((m) => m.channel)
    .filter((c) => c === "sms" || c === "voice");
}

describe("the public demo keeps quiet hours", () => {
  it("at night where the number is, the request is refused with the local time and nothing is sent", async () => {
    const { night } = nightAndDay();
    const before = (await sentTo(night.phone)).length;
    const res = await t.app.inject({
      method: "POST",
      url: "/api/demo/send",
      payload: { name: "Kai", phone: night.phone },
    });
    expect(res.statusCode).toBe(422);
    const sentence = res.json().error as string;
    expect(sentence).toMatch(
      new RegExp(
        `^It is (1[0-2]|[1-9]):[0-5]\\d (AM|PM) where ${night.shown.replace("+", "\\+")} is; demo texts and calls are sent between 8 AM and 9 PM there\\. Try again later or use another number\\.$`,
      ),
    );
    // the landing page's form calls tRPC demo.send and shows the server's sentence (demo-form.tsx)
    const viaTrpc = await trpcCall(authedClient(t.app, ""), "demo.send", { name: "Kai", phone: night.phone });
    expect(viaTrpc.status).toBe(422);
    expect(viaTrpc.error?.message).toBe(sentence);
    expect((await sentTo(night.phone)).length).toBe(before);
  });

  it("in the day there, the demo texts and calls", async () => {
    const { day } = nightAndDay();
    const before = (await sentTo(day.phone)).length;
    const res = await t.app.inject({
      method: "POST",
      url: "/api/demo/send",
      payload: { name: "Kai", phone: day.phone },
    });
    expect(res.statusCode).toBe(200);
    await expect.poll(async () => (await sentTo(day.phone)).length).toBe(before + 2);
  });

  it("a queued demo whose job runs at night there is dropped: no text, no call", async () => {
    const { night } = nightAndDay();
    const before = (await sentTo(night.phone)).length;
    const id = await insertDemoRequest(t.db, {
      name: "Kai",
      phone: night.phone,
      email: null,
      ip: "198.51.100.9",
    });
    await t.jobs.send(sendDemoJob, { demoRequestId: id });
    await expect.poll(async () => (await getDemoRequest(t.db, id))?.status).toBe("sent");
    expect((await sentTo(night.phone)).length).toBe(before);
  });
});
