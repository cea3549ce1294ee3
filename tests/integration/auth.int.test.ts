import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signUp, TEST_ORIGIN, type TestApp, uniqueEmail } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("POST /api/auth/register", () => {
  it("creates the user, returns the spec's user shape and sets an HttpOnly SameSite=Lax cookie", async () => {
    const email = uniqueEmail("reg");
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { name: "Ada", business_name: "Ada's Bakery", email, password: "longenough" },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.user).toMatchObject({
      name: "Ada",
      email,
      business_name: "Ada's Bakery",
      plan: "free",
      subscription_status: null,
      subscription_tier: null,
      theme: "monochrome-elite",
      preferences: {
        emailSignature: "",
        emailNotifications: true,
        campaignNotifications: true,
        weeklyReports: false,
      },
    });
    expect(typeof body.user.id).toBe("string");
    expect(Number.isNaN(Date.parse(body.user.created_at))).toBe(false);
    expect(body.user.password_hash).toBeUndefined();
    expect(body.user.passwordHash).toBeUndefined();
    const setCookie = String(res.headers["set-cookie"]);
    expect(setCookie).toMatch(/pw_session=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/); // test env is not production
  });

  it("rejects a short password with the spec's message", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { name: "A", email: uniqueEmail(), password: "short" },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: "Password must be at least 8 characters" });
  });

  it("treats emails case-insensitively: a second account with the same email in other case is refused", async () => {
    const email = uniqueEmail("Case");
    await signUp(t.app, { email });
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { name: "B", email: email.toUpperCase(), password: "longenough" },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ success: false, error: "An account with this email already exists" });
  });

  it.each([
    [{}, "Name is required"],
    [{ name: "x", email: "not-an-email", password: "longenough" }, "Please enter a valid email address"],
    [{ name: 42, email: uniqueEmail(), password: "longenough" }, "Name is required"],
    [{ name: "x", email: uniqueEmail(), password: ["a"] }, "Password is required"],
  ])("bad input %j -> 400 with a clear message", async (payload, message) => {
    const res = await t.app.inject({ method: "POST", url: "/api/auth/register", payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().success).toBe(false);
    expect(res.json().error).toContain(message.split(":")[0]);
  });

  it("refuses malformed JSON and oversized bodies with 4xx", async () => {
    const bad = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ success: false, error: "The request body is not valid JSON" });
    const big = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({
        name: "x".repeat(2 * 1024 * 1024),
        email: uniqueEmail(),
        password: "longenough",
      }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ success: false, error: "Request body is too large" });
  });
});

describe("POST /api/auth/login, GET /api/auth/me, POST /api/auth/logout", () => {
  it("logs in with any email case and returns the user; /me returns {user, workspace, workspaces}", async () => {
    const { user, password } = await signUp(t.app);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: user.email.toUpperCase(), password },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, user: { id: user.id, email: user.email } });
    const cookie = res.cookies.find((c) => c.name === "pw_session")!;
    const me = await t.app.inject({
      method: "GET",
      url: "/api/auth/me",
      cookies: { pw_session: cookie.value },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({
      user: expect.objectContaining({ id: user.id, name: "Test User", plan: "free" }),
      // issue 10: the active workspace and every workspace of the user (the personal one here)
      workspace: { id: user.id, name: expect.any(String), role: "owner", plan: "free" },
      workspaces: [{ id: user.id, name: expect.any(String), role: "owner", plan: "free" }],
    });
  });

  it("gives the same error for a wrong password and an unknown email", async () => {
    const { user } = await signUp(t.app);
    const wrong = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: user.email, password: "nope-nope" },
    });
    const unknown = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: uniqueEmail("ghost"), password: "nope-nope" },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ success: false, error: "Invalid email or password" });
    expect(unknown.json()).toEqual(wrong.json());
  });

  it("/me is 401 when signed out or with a forged cookie", async () => {
    const anon = await t.app.inject({ method: "GET", url: "/api/auth/me" });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toEqual({ success: false, error: "Please sign in to continue" });
    const forged = await t.app.inject({
      method: "GET",
      url: "/api/auth/me",
      cookies: { pw_session: "abcdefghijklmnopqrstuvwxyz234567" },
    });
    expect(forged.statusCode).toBe(401);
  });

  it("logout invalidates the session on the server: the old cookie no longer works", async () => {
    const { cookie, client } = await signUp(t.app);
    expect((await client.get("/api/auth/me")).statusCode).toBe(200);
    const out = await client.post("/api/auth/logout");
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ success: true });
    const again = await t.app.inject({ method: "GET", url: "/api/auth/me", headers: { cookie } });
    expect(again.statusCode).toBe(401);
  });

  it("refuses cookie-carrying mutations from another origin (CSRF)", async () => {
    const { cookie } = await signUp(t.app);
    const res = await t.app.inject({
      method: "PUT",
      url: "/api/user/settings",
      headers: { cookie, origin: "https://evil.example" },
      payload: { theme: "ocean-deep" },
    });
    expect(res.statusCode).toBe(403);
    const noOrigin = await t.app.inject({
      method: "PUT",
      url: "/api/user/settings",
      headers: { cookie },
      payload: { theme: "ocean-deep" },
    });
    expect(noOrigin.statusCode).toBe(403);
    const ok = await t.app.inject({
      method: "PUT",
      url: "/api/user/settings",
      headers: { cookie, origin: TEST_ORIGIN },
      payload: { theme: "ocean-deep" },
    });
    expect(ok.statusCode).toBe(200);
  });
});

describe("rate limits", () => {
  it("limits login attempts per (IP, email) and per IP with 429 and a readable message", async () => {
    const strict = await createTestApp({ AUTH_RATE_LIMIT_PER_IP_EMAIL: "3", AUTH_RATE_LIMIT_PER_IP: "5" });
    try {
      const email = uniqueEmail("rl");
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await strict.app.inject({
          method: "POST",
          url: "/api/auth/login",
          payload: { email, password: "whatever1" },
          remoteAddress: "10.0.0.1",
        });
        codes.push(r.statusCode);
      }
      expect(codes).toEqual([401, 401, 401, 429]);
      const ipCodes: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await strict.app.inject({
          method: "POST",
          url: "/api/auth/login",
          payload: { email: uniqueEmail("ip"), password: "whatever1" },
          remoteAddress: "10.9.9.9",
        });
        ipCodes.push(r.statusCode);
      }
      expect(ipCodes.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expect(ipCodes[5]).toBe(429);
      const last = await strict.app.inject({
        method: "POST",
        url: "/api/auth/login",
        payload: { email, password: "x" },
        remoteAddress: "10.0.0.1",
      });
      expect(last.json().error).toMatch(/^Too many login attempts\. Please try again in \d+ minutes?\.$/);
    } finally {
      await strict.close();
    }
  });
});

describe("tRPC auth router", () => {
  it("registers, reads me and rejects unauthenticated calls through /trpc", async () => {
    const email = uniqueEmail("trpc");
    const reg = await t.app.inject({
      method: "POST",
      url: "/trpc/auth.register",
      payload: { json: { name: "T", email, password: "longenough" } },
    });
    expect(reg.statusCode).toBe(200);
    expect(reg.json().result.data.json.user.email).toBe(email);
    const anon = await t.app.inject({ method: "GET", url: "/trpc/auth.me" });
    expect(anon.statusCode).toBe(401);
  });
});
