import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers";

// Attack re-test: the public demo's per-target limit (DEMO_RATE_LIMIT_PER_TARGET a day) counted an
// email address by its exact lower-cased text, so one inbox got the demo again and again through
// the forms that reach it: plus-addressing (anna+1@, anna+2@, honoured by Gmail, Outlook, iCloud,
// Fastmail and most mail servers) and, at Gmail, dots in the local part and googlemail.com. With a
// new client address for each (the per-IP limit), anyone could flood a stranger's inbox with demo
// emails and AI avatar videos.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ DEMO_RATE_LIMIT_PER_TARGET: "1" });
});
afterAll(async () => t?.close());

const demo = (email: string, ip: string) =>
  t.app.inject({ method: "POST", url: "/api/demo/send", payload: { name: "Ann", email }, remoteAddress: ip });

describe("the demo's per-address limit", () => {
  it("counts the forms of one Gmail inbox as that inbox", async () => {
    const user = `anna${Date.now()}`;
    expect((await demo(`${user}@gmail.com`, "10.7.0.1")).statusCode).toBe(200);
    for (const [i, form] of [
      `${user}+1@gmail.com`,
      `${user.slice(0, 2)}.${user.slice(2)}@gmail.com`,
      `${user.toUpperCase()}+x@GoogleMail.com`,
    ].entries()) {
      const res = await demo(form, `10.7.1.${i + 1}`);
      expect(res.statusCode, form).toBe(429);
      expect(res.json().error).toMatch(/^Too many demo requests/);
    }
  });

  it("counts a +tag of any domain as its address, and keeps other addresses apart", async () => {
    const user = `bert${Date.now()}`;
    expect((await demo(`${user}@example.com`, "10.7.2.1")).statusCode).toBe(200);
    expect((await demo(`${user}+promo@example.com`, "10.7.2.2")).statusCode).toBe(429);
    // outside Gmail a dot is part of the address: another person
    expect((await demo(`${user.slice(0, 2)}.${user.slice(2)}@example.com`, "10.7.2.3")).statusCode).toBe(200);
    expect((await demo(`other${user}@example.com`, "10.7.2.4")).statusCode).toBe(200);
  });
});
