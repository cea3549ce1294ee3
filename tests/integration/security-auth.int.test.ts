import { describe, expect, it } from "vitest";
import { createTestApp, signUp, uniqueEmail } from "../helpers";

/** Production-like settings: NODE_ENV=production, real per-IP limits. */
const PROD = {
  NODE_ENV: "production",
  APP_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
  AUTH_RATE_LIMIT_PER_IP: "30",
  DEMO_RATE_LIMIT_PER_IP: "5",
};

async function login(
  app: Awaited<ReturnType<typeof createTestApp>>["app"],
  email: string,
  password: string,
  headers: Record<string, string> = {},
  remoteAddress = "203.0.113.9",
) {
  return app.inject({
    method: "POST",
    url: "/api/auth/login",
    payload: { email, password },
    headers,
    remoteAddress,
  });
}

describe("client address behind proxies (issue 11, finding 3)", () => {
  it("by default X-Forwarded-For is ignored: 60 logins with a new XFF each hit the per-IP 429", async () => {
    const t = await createTestApp(PROD);
    try {
      const codes: number[] = [];
      for (let i = 0; i < 60; i++) {
        const r = await login(t.app, uniqueEmail("xff"), "wrong-password", {
          "x-forwarded-for": `198.51.100.${i + 1}`,
        });
        codes.push(r.statusCode);
      }
      expect(codes.slice(0, 30).every((c) => c === 401)).toBe(true);
      expect(codes.slice(30).every((c) => c === 429)).toBe(true);
      // the demo form too: 5 per hour per IP whatever XFF says
      const demo: number[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await t.app.inject({
          method: "POST",
          url: "/api/demo/send",
          payload: { name: "Visitor", email: uniqueEmail("demo") },
          headers: { "x-forwarded-for": `198.51.100.${i + 1}` },
          remoteAddress: "203.0.113.10",
        });
        demo.push(r.statusCode);
      }
      expect(demo.slice(5)).toEqual([429, 429, 429]);
    } finally {
      await t.close();
    }
  });

  it("TRUST_PROXY=1 takes the address the one trusted proxy saw (the last XFF entry), not the client's claims", async () => {
    const t = await createTestApp({ ...PROD, TRUST_PROXY: "1" });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 35; i++) {
        const r = await login(t.app, uniqueEmail("hop"), "wrong-password", {
          // a client-supplied first entry, then what the proxy appended
          "x-forwarded-for": `198.51.100.${i + 1}, 192.0.2.77`,
        });
        codes.push(r.statusCode);
      }
      expect(codes.slice(0, 30)).toEqual(Array(30).fill(401));
      expect(codes.slice(30).every((c) => c === 429)).toBe(true);
      // another real client behind the same proxy is not affected
      const other = await login(t.app, uniqueEmail("hop"), "wrong-password", {
        "x-forwarded-for": "192.0.2.78",
      });
      expect(other.statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });

  it("TRUST_PROXY as a CIDR list trusts only those proxies; a bad value fails at boot with a sentence", async () => {
    const t = await createTestApp({ ...PROD, TRUST_PROXY: "10.0.0.0/8" });
    try {
      // peer inside the trusted range: its XFF is used
      const codes: number[] = [];
      for (let i = 0; i < 31; i++)
        codes.push(
          (await login(t.app, uniqueEmail("cidr"), "x", { "x-forwarded-for": "192.0.2.5" }, "10.1.2.3"))
            .statusCode,
        );
      expect(codes[30]).toBe(429);
      // a peer outside it cannot choose its address with XFF
      const outside = await login(
        t.app,
        uniqueEmail("cidr"),
        "x",
        { "x-forwarded-for": "192.0.2.99" },
        "192.0.2.5",
      );
      expect(outside.statusCode).toBe(429);
    } finally {
      await t.close();
    }
    await expect(createTestApp({ TRUST_PROXY: "true" })).rejects.toThrow(/TRUST_PROXY/);
  });

  it("on Fly (FLY_APP_NAME set) the address comes from Fly-Client-IP; XFF is ignored", async () => {
    const t = await createTestApp({ ...PROD, FLY_APP_NAME: "pitchwise" });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 31; i++) {
        const r = await login(
          t.app,
          uniqueEmail("fly"),
          "x",
          { "fly-client-ip": "192.0.2.200", "x-forwarded-for": `198.51.100.${i + 1}` },
          "172.16.0.2",
        );
        codes.push(r.statusCode);
      }
      expect(codes[29]).toBe(401);
      expect(codes[30]).toBe(429);
      const someoneElse = await login(
        t.app,
        uniqueEmail("fly"),
        "x",
        { "fly-client-ip": "192.0.2.201" },
        "172.16.0.2",
      );
      expect(someoneElse.statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});

describe("no account lockout by strangers (issue 11, finding 4)", () => {
  it("wrong passwords from other addresses never lock the owner out; one address is throttled per (IP, email)", async () => {
    const t = await createTestApp({
      AUTH_RATE_LIMIT_PER_IP: "1000",
      AUTH_RATE_LIMIT_PER_EMAIL: "10",
      AUTH_RATE_LIMIT_PER_IP_EMAIL: "10",
      AUTH_SLOWDOWN_MAX_MS: "300",
    });
    try {
      const { user, password } = await signUp(t.app);
      // one attacker address: 10 tries, then 429
      const one: number[] = [];
      for (let i = 0; i < 11; i++)
        one.push((await login(t.app, user.email, `guess-${i}`, {}, "198.51.100.1")).statusCode);
      expect(one.slice(0, 10).every((c) => c === 401)).toBe(true);
      expect(one[10]).toBe(429);
      // many attacker addresses: 60 more failures for the email, never a 429
      const many: number[] = [];
      for (let i = 0; i < 60; i++)
        many.push(
          (await login(t.app, user.email, `guess-${i}`, {}, `198.51.100.${(i % 30) + 2}`)).statusCode,
        );
      expect(many.every((c) => c === 401)).toBe(true);
      // the owner, from home: slowed down, then signed in
      const started = Date.now();
      const owner = await login(t.app, user.email, password, {}, "192.0.2.10");
      expect(owner.statusCode).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      await t.close();
    }
  });

  it("the attempts of one address against one email are counted again after the owner signs in from it", async () => {
    const t = await createTestApp({ AUTH_RATE_LIMIT_PER_IP_EMAIL: "3" });
    try {
      const { user, password } = await signUp(t.app);
      for (let i = 0; i < 2; i++) expect((await login(t.app, user.email, "nope-nope")).statusCode).toBe(401);
      expect((await login(t.app, user.email, password)).statusCode).toBe(200);
      for (let i = 0; i < 3; i++) expect((await login(t.app, user.email, "nope-nope")).statusCode).toBe(401);
      expect((await login(t.app, user.email, password)).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });

  it("PUT /api/user/password limits current-password guesses with a stolen session (429), REST and tRPC", async () => {
    const t = await createTestApp({ AUTH_RATE_LIMIT_PER_IP_EMAIL: "5" });
    try {
      const { client, password } = await signUp(t.app);
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await client.put("/api/user/password", {
          currentPassword: `guess-${i}`,
          newPassword: "owned-123",
        });
        codes.push(r.statusCode);
      }
      expect(codes).toEqual([400, 400, 400, 400, 400, 429]);
      const trpc = await client.inject({
        method: "POST",
        url: "/trpc/user.changePassword",
        payload: { json: { currentPassword: "guess-x", newPassword: "owned-123" } },
      });
      expect(trpc.statusCode).toBe(429);
      const still = await client.put("/api/user/password", {
        currentPassword: password,
        newPassword: "owned-123",
      });
      expect(still.statusCode).toBe(429);
      expect(still.json().error).toMatch(/^Too many password attempts\. Please try again in \d+ minutes?\.$/);
    } finally {
      await t.close();
    }
  });
});
