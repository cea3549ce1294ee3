import { describe, expect, it } from "vitest";
import { createTestApp, uniqueEmail } from "../helpers";

// Per-IP limits keyed IPv6 clients by their full address, and one host holds a whole /64 (2^64
// addresses): 60 logins from one /64 were all 401, never 429. An IPv6 client is now keyed by its /64
// prefix, an IPv4-mapped IPv6 address (::ffff:a.b.c.d) by its IPv4 address.

/** Production-like settings: real per-IP limits, behind one trusted proxy. */
const PROD = {
  NODE_ENV: "production",
  APP_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
  AUTH_RATE_LIMIT_PER_IP: "30",
  AUTH_RATE_LIMIT_PER_IP_EMAIL: "10",
  DEMO_RATE_LIMIT_PER_IP: "5",
  TRUST_PROXY: "1",
};

type App = Awaited<ReturnType<typeof createTestApp>>["app"];
const login = (app: App, email: string, ip: string) =>
  app.inject({
    method: "POST",
    url: "/api/auth/login",
    payload: { email, password: "wrong-password" },
    headers: { "x-forwarded-for": ip },
  });

describe("per-IP rate limits and IPv6", () => {
  it("60 logins from 60 addresses of one /64 hit the per-IP 429 from the 31st; another /64 is not affected", async () => {
    const t = await createTestApp(PROD);
    try {
      const codes: number[] = [];
      for (let i = 1; i <= 60; i++)
        codes.push((await login(t.app, uniqueEmail("v6"), `2001:db8:1:2::${i.toString(16)}`)).statusCode);
      expect(codes.slice(0, 30)).toEqual(Array(30).fill(401));
      expect(codes.slice(30)).toEqual(Array(30).fill(429));
      // the same /64 written another way (full form, upper case)
      expect((await login(t.app, uniqueEmail("v6"), "2001:0DB8:0001:0002:FFFF:0:0:1")).statusCode).toBe(429);
      expect((await login(t.app, uniqueEmail("v6"), "2001:db8:1:3::1")).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });

  it("an IPv4-mapped IPv6 address shares its IPv4 address's bucket", async () => {
    const t = await createTestApp(PROD);
    try {
      const codes: number[] = [];
      for (let i = 0; i < 35; i++) {
        const ip = i % 2 ? "203.0.113.7" : "::ffff:203.0.113.7";
        codes.push((await login(t.app, uniqueEmail("v4"), ip)).statusCode);
      }
      expect(codes.slice(0, 30)).toEqual(Array(30).fill(401));
      expect(codes.slice(30)).toEqual(Array(5).fill(429));
    } finally {
      await t.close();
    }
  });

  it("the (address, email) login limit and the demo form's per-IP limit key by the /64 too", async () => {
    const t = await createTestApp(PROD);
    try {
      const email = uniqueEmail("v6-one");
      const codes: number[] = [];
      for (let i = 1; i <= 12; i++) codes.push((await login(t.app, email, `2001:db8:9:9::${i}`)).statusCode);
      expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(codes.slice(10)).toEqual([429, 429]);
      const demo: number[] = [];
      for (let i = 1; i <= 7; i++) {
        const r = await t.app.inject({
          method: "POST",
          url: "/api/demo/send",
          payload: { name: "Visitor", email: uniqueEmail("demo") },
          headers: { "x-forwarded-for": `2001:db8:7:7:${i}::1` },
        });
        demo.push(r.statusCode);
      }
      expect(demo.slice(5)).toEqual([429, 429]);
    } finally {
      await t.close();
    }
  });
});
