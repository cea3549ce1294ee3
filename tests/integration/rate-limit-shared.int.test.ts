import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// Two app machines over one database (as Fly runs two `app` machines): the rate limits are windows
// in the shared rate_limits table (RATE_LIMIT_STORE=postgres, the production default), so an
// attacker spreading requests over both machines gets the limit once, not once per machine.

const PROD = {
  NODE_ENV: "production",
  APP_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
  RATE_LIMIT_STORE: "postgres",
  AUTH_RATE_LIMIT_PER_IP: "10",
  API_RATE_LIMIT_PER_MINUTE: "6",
};

let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  a = await createTestApp(PROD);
  b = await createTestApp(PROD);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

/**
 * An address of its own for each call (the windows outlive a test app): one of 25,000 in
 * 198.51.100-199.1-250, a random start then the next ones, so no two calls of a run share one (both
 * octets used to come from one number, n % 100 and n % 250, repeating every 500: the "another
 * address" of the first test was at times the limited address itself, 429 instead of 401).
 */
const ADDRESSES = 25_000;
let nextAddress = Number.parseInt(randomUUID().slice(0, 8), 16) % ADDRESSES;
function clientAddress(): string {
  const n = nextAddress++ % ADDRESSES;
  return `198.51.${100 + Math.floor(n / 250)}.${1 + (n % 250)}`;
}

describe("rate limits shared by every app machine (RATE_LIMIT_STORE=postgres)", () => {
  it("logins from one address alternating between two machines get 429 after the limit, not twice the limit", async () => {
    const ip = clientAddress();
    const codes: number[] = [];
    for (let i = 0; i < 16; i++) {
      const app = (i % 2 === 0 ? a : b).app;
      const r = await app.inject({
        method: "POST",
        url: "/api/auth/login",
        payload: { email: uniqueEmail("shared-rl"), password: "wrong-password" },
        remoteAddress: ip,
      });
      codes.push(r.statusCode);
    }
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(codes.slice(10)).toEqual(Array(6).fill(429));
    // the window is a row of the shared table, keyed by the limiter and the address
    const rows = await a.db.execute<{ points: number }>(
      sql`select points from rate_limits where key = ${`auth-ip:${ip}`}`,
    );
    expect(rows[0]?.points).toBe(16);
    // another address is not affected
    const other = await b.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: uniqueEmail("shared-rl"), password: "wrong-password" },
      remoteAddress: clientAddress(),
    });
    expect(other.statusCode).toBe(401);
  });

  it("an API key's RateLimit-Remaining counts its requests on both machines; the 7th is a 429 wherever it lands", async () => {
    const u = await signUp(a.app);
    await a.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    const created = await u.client.post("/api/api-keys", { name: "Shared", scopes: ["contacts:read"] });
    expect(created.statusCode).toBe(200);
    const key = created.json().key as string;
    const remaining: string[] = [];
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await (i % 2 === 0 ? a : b).app.inject({
        method: "GET",
        url: "/api/v1/contacts",
        headers: { authorization: `Bearer ${key}` },
      });
      codes.push(r.statusCode);
      remaining.push(String(r.headers["ratelimit-remaining"]));
    }
    expect(codes).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(remaining).toEqual(["5", "4", "3", "2", "1", "0", "0"]);
  });
});
