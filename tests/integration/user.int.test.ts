import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accountLinkToken,
  createTestApp,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
  verifyEmailThroughOutbox,
} from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("PUT /api/user/profile", () => {
  it("updates name, email, business name and phone (stored as E.164)", async () => {
    const { client, user, password } = await signUp(t.app);
    const email = `new-${user.email}`;
    const res = await client.put("/api/user/profile", {
      name: "New Name",
      email,
      businessName: "New Biz",
      phone: "(415) 555-2671",
      currentPassword: password,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      user: { name: "New Name", email, business_name: "New Biz", phone: "+14155552671" },
    });
    const me = await client.get("/api/auth/me");
    expect(me.json().user).toMatchObject({ name: "New Name", email, business_name: "New Biz" });
  });

  it("a changed email address is not verified: sending is refused until the new address's link is followed (REST and tRPC)", async () => {
    const launch = (c: Awaited<ReturnType<typeof signUp>>["client"]) =>
      c.post("/api/campaigns/email/launch", {
        campaignName: "After the switch",
        subject: "Hi",
        body: "Hello",
        contacts: [{ name: "A B", email: uniqueEmail("recipient") }],
      });
    const { client, user, password } = await signUp(t.app); // verified through the emailed link
    expect((await client.get("/api/auth/me")).json().user.email_verified).toBe(true);

    // a name-only change keeps the verification
    expect(
      (await client.put("/api/user/profile", { name: "Same Address", email: user.email })).statusCode,
    ).toBe(200);
    expect((await client.get("/api/auth/me")).json().user.email_verified).toBe(true);

    const taken = uniqueEmail("not-mine");
    const res = await client.put("/api/user/profile", {
      name: "Switcher",
      email: taken,
      currentPassword: password,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().user).toMatchObject({ email: taken, email_verified: false });
    expect((await client.get("/api/auth/me")).json().user.email_verified).toBe(false);
    const refused = await launch(client);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatch(/^Please verify your email address before sending/);

    // the new address got its own link; following it verifies the account again
    expect(await accountLinkToken(t.app, taken, "verify-email")).toBeTruthy();
    await verifyEmailThroughOutbox(t.app, taken);
    expect((await client.get("/api/auth/me")).json().user.email_verified).toBe(true);
    expect((await launch(client)).statusCode).toBe(200);

    // the tRPC mutation of the settings screen follows the same rule
    const other = uniqueEmail("trpc-switch");
    const viaTrpc = await trpcCall(client, "user.updateProfile", {
      name: "Switcher",
      email: other,
      currentPassword: password,
    });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.data.user).toMatchObject({ email: other, email_verified: false });
    expect(await accountLinkToken(t.app, other, "verify-email")).toBeTruthy();
    expect((await launch(client)).statusCode).toBe(403);
  });

  it("requires name and email, and refuses another account's email", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const missing = await a.client.put("/api/user/profile", { name: "", email: a.user.email });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ success: false, error: "Name is required" });
    const taken = await a.client.put("/api/user/profile", {
      name: "A",
      email: b.user.email.toUpperCase(),
      currentPassword: a.password,
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ success: false, error: "That email is already used by another account" });
    const badPhone = await a.client.put("/api/user/profile", { name: "A", email: a.user.email, phone: "12" });
    expect(badPhone.statusCode).toBe(400);
    expect(badPhone.json().error).toMatch(/^Please enter a valid phone number/);
  });

  it("is 401 when signed out", async () => {
    const res = await t.app.inject({
      method: "PUT",
      url: "/api/user/profile",
      payload: { name: "x", email: "x@y.co" },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().success).toBe(false);
  });
});

describe("changing the account email needs the current password (a stolen session cannot take the account)", () => {
  /** Emails in the local provider's outbox to `to` (newest first). */
  async function outboxTo(to: string) {
    const res = await t.app.inject({
      method: "GET",
      url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
    });
    return res.json().messages as { subject: string; body: string }[];
  }

  it("refuses a new email without or with a wrong password (REST and tRPC), accepts it with the password and tells the old address", async () => {
    const { client, user, password } = await signUp(t.app, { name: "Nora Owner" });
    const next = uniqueEmail("nora-new");
    const profile = { name: "Nora Owner", email: next, businessName: "Acme", phone: "" };

    const missing = await client.put("/api/user/profile", profile);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      success: false,
      error: "Enter your current password to change your email.",
    });
    const empty = await client.put("/api/user/profile", { ...profile, currentPassword: "" });
    expect(empty.statusCode).toBe(400);
    const wrong = await client.put("/api/user/profile", { ...profile, currentPassword: "not-my-password" });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error).toBe(
      "That is not your current password. Enter your current password to change your email.",
    );
    const viaTrpc = await trpcCall(client, "user.updateProfile", profile);
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error?.message).toBe("Enter your current password to change your email.");
    const wrongTrpc = await trpcCall(client, "user.updateProfile", {
      ...profile,
      currentPassword: "nope-nope",
    });
    expect(wrongTrpc.status).toBe(403);
    // nothing changed, nothing was sent to either address
    expect((await client.get("/api/auth/me")).json().user).toMatchObject({
      email: user.email,
      email_verified: true,
    });
    expect(await outboxTo(next)).toHaveLength(0);
    expect((await outboxTo(user.email)).filter((m) => /email was changed/.test(m.subject))).toHaveLength(0);

    // other profile changes keep working without the password
    const nameOnly = await client.put("/api/user/profile", {
      name: "Nora Renamed",
      email: user.email,
      businessName: "Acme Two",
      phone: "(415) 555-2671",
    });
    expect(nameOnly.statusCode, nameOnly.body).toBe(200);
    expect(nameOnly.json().user).toMatchObject({ name: "Nora Renamed", business_name: "Acme Two" });

    // with the password: changed, the new address gets its link, the old one a notice with the
    // new address masked
    const ok = await client.put("/api/user/profile", { ...profile, currentPassword: password });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().user).toMatchObject({ email: next, email_verified: false });
    expect(await accountLinkToken(t.app, next, "verify-email")).toBeTruthy();
    const notices = (await outboxTo(user.email)).filter(
      (m) => m.subject === "Your Pitchwise email was changed",
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]!.body).toContain("Your Pitchwise email was changed to n•••@example.com");
    expect(notices[0]!.body).toContain("If this wasn't you");
    expect(notices[0]!.body).not.toContain(next);

    // the tRPC mutation of Settings > Profile: the same rule and the same notice
    const third = uniqueEmail("nora-third");
    const viaTrpcOk = await trpcCall(client, "user.updateProfile", {
      ...profile,
      email: third,
      currentPassword: password,
    });
    expect(viaTrpcOk.status).toBe(200);
    expect(viaTrpcOk.data.user.email).toBe(third);
    expect(
      (await outboxTo(next)).filter((m) => m.subject === "Your Pitchwise email was changed"),
    ).toHaveLength(1);
  });

  it("signs out the account's other sessions like a password change, keeps the current one (REST and tRPC)", async () => {
    const { client, user, password } = await signUp(t.app);
    const loginCookie = async (email: string) => {
      const res = await t.app.inject({
        method: "POST",
        url: "/api/auth/login",
        payload: { email, password },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.cookies.find((c) => c.name === "pw_session")!.value;
    };
    const meWith = (cookie: string) =>
      t.app.inject({ method: "GET", url: "/api/auth/me", cookies: { pw_session: cookie } });

    // a name-only change signs nobody out
    const second = await loginCookie(user.email);
    await client.put("/api/user/profile", { name: "Renamed", email: user.email });
    expect((await meWith(second)).statusCode).toBe(200);

    const next = uniqueEmail("moved");
    const res = await client.put("/api/user/profile", {
      name: "Renamed",
      email: next,
      currentPassword: password,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await meWith(second)).statusCode).toBe(401);
    const me = await client.get("/api/auth/me");
    expect(me.statusCode).toBe(200);
    expect(me.json().user.email).toBe(next);

    // the tRPC mutation of Settings > Profile does the same
    const third = await loginCookie(next);
    const viaTrpc = await trpcCall(client, "user.updateProfile", {
      name: "Renamed",
      email: uniqueEmail("moved-again"),
      currentPassword: password,
    });
    expect(viaTrpc.status).toBe(200);
    expect((await meWith(third)).statusCode).toBe(401);
    expect((await client.get("/api/auth/me")).statusCode).toBe(200);
  });

  it("limits the password checks per account like PUT /api/user/password (one shared window)", async () => {
    const limited = await createTestApp({ AUTH_RATE_LIMIT_PER_IP_EMAIL: "4" });
    try {
      const { client, password } = await signUp(limited.app);
      const profile = { name: "Guesser", email: uniqueEmail("guess") };
      const codes: number[] = [];
      for (let i = 0; i < 3; i++)
        codes.push(
          (await client.put("/api/user/profile", { ...profile, currentPassword: `guess-${i}` })).statusCode,
        );
      // the fourth guess goes to PUT /api/user/password: the same per-account window
      codes.push(
        (await client.put("/api/user/password", { currentPassword: "guess-3", newPassword: "owned-123" }))
          .statusCode,
      );
      codes.push(
        (await client.put("/api/user/profile", { ...profile, currentPassword: "guess-4" })).statusCode,
      );
      expect(codes).toEqual([403, 403, 403, 400, 429]);
      // the right password is refused too while the window lasts; a name change still works
      const blocked = await client.put("/api/user/profile", { ...profile, currentPassword: password });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toMatch(
        /^Too many password attempts\. Please try again in \d+ minutes?\.$/,
      );
      const me = (await client.get("/api/auth/me")).json().user;
      expect((await client.put("/api/user/profile", { name: "Still Me", email: me.email })).statusCode).toBe(
        200,
      );
    } finally {
      await limited.close();
    }
  });
});

describe("PUT /api/user/password", () => {
  it("verifies the current password, enforces 6 characters, and signs out other sessions", async () => {
    const { client, user, password } = await signUp(t.app);
    const other = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: user.email, password },
    });
    const otherCookie = other.cookies.find((c) => c.name === "pw_session")!.value;

    const wrong = await client.put("/api/user/password", {
      currentPassword: "not-it",
      newPassword: "abcdef",
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ success: false, error: "Current password is incorrect" });
    const short = await client.put("/api/user/password", { currentPassword: password, newPassword: "abc" });
    expect(short.statusCode).toBe(400);
    expect(short.json().error).toBe("Password must be at least 6 characters");
    const missing = await client.put("/api/user/password", {});
    expect(missing.statusCode).toBe(400);

    const ok = await client.put("/api/user/password", {
      currentPassword: password,
      newPassword: "brand-new-pw",
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ success: true });
    // this session still works, the other one is gone
    expect((await client.get("/api/auth/me")).statusCode).toBe(200);
    const stale = await t.app.inject({
      method: "GET",
      url: "/api/auth/me",
      cookies: { pw_session: otherCookie },
    });
    expect(stale.statusCode).toBe(401);
    const login = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: user.email, password: "brand-new-pw" },
    });
    expect(login.statusCode).toBe(200);
  });
});

describe("PUT /api/user/settings", () => {
  it("saves the theme and merges preferences", async () => {
    const { client } = await signUp(t.app);
    const theme = await client.put("/api/user/settings", { theme: "ocean-deep" });
    expect(theme.statusCode).toBe(200);
    expect(theme.json().user.theme).toBe("ocean-deep");
    const prefs = await client.put("/api/user/settings", {
      preferences: { emailSignature: "— Ann, Ann's Plumbing", weeklyReports: true },
    });
    expect(prefs.statusCode).toBe(200);
    expect(prefs.json().user.preferences).toEqual({
      emailSignature: "— Ann, Ann's Plumbing",
      emailNotifications: true,
      campaignNotifications: true,
      weeklyReports: true,
    });
    expect(prefs.json().user.theme).toBe("ocean-deep");
    // the navigation layout (issue 14) is one more preference, kept with the others
    const layout = await client.put("/api/user/settings", { preferences: { navLayout: "topbar" } });
    expect(layout.statusCode).toBe(200);
    expect(layout.json().user.preferences).toMatchObject({ navLayout: "topbar", weeklyReports: true });
    const me = await client.get("/api/auth/me");
    expect(me.json().user.preferences.navLayout).toBe("topbar");
  });

  it("refuses unknown themes, unknown preference keys, wrong types and empty bodies", async () => {
    const { client } = await signUp(t.app);
    for (const body of [
      { theme: "hot-dog" },
      { preferences: { admin: true } },
      { preferences: { weeklyReports: "yes" } },
      { preferences: { navLayout: "floating" } },
      {},
    ]) {
      const res = await client.put("/api/user/settings", body);
      expect(res.statusCode).toBe(400);
      expect(res.json().success).toBe(false);
      expect(res.json().error.length).toBeGreaterThan(5);
    }
  });
});

describe("tenant isolation", () => {
  it("a second user never sees or changes the first user's data", async () => {
    const a = await signUp(t.app, { name: "Alice" });
    const b = await signUp(t.app, { name: "Bob" });
    await a.client.put("/api/user/settings", { theme: "gold-luxe" });
    const bMe = await b.client.get("/api/auth/me");
    expect(bMe.json().user).toMatchObject({ name: "Bob", theme: "monochrome-elite" });
    const bStats = await b.client.get("/api/dashboard/stats");
    expect(bStats.statusCode).toBe(200);
    const aMe = await a.client.get("/api/auth/me");
    expect(aMe.json().user).toMatchObject({ name: "Alice", theme: "gold-luxe" });
  });
});

describe("tRPC user router", () => {
  it("maps AppError to the tRPC code from the error table", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const res = await a.client.inject({
      method: "POST",
      url: "/trpc/user.updateProfile",
      payload: { json: { name: "A", email: b.user.email, currentPassword: a.password } },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.json.message).toBe("That email is already used by another account");
    expect(res.json().error.json.data.code).toBe("CONFLICT");
  });
});

describe("tRPC user router: the calls of the settings screens", () => {
  it("updates the profile, changes the password and saves preferences with the REST sentences", async () => {
    const a = await signUp(t.app);
    const call = (path: string, input: unknown) =>
      a.client.inject({ method: "POST", url: `/trpc/${path}`, payload: { json: input } });

    const profile = await call("user.updateProfile", {
      name: "Ada Byron",
      email: a.user.email,
      businessName: "Engines Ltd",
      phone: "",
    });
    expect(profile.statusCode).toBe(200);
    expect(profile.json().result.data.json.user).toMatchObject({
      name: "Ada Byron",
      business_name: "Engines Ltd",
    });

    const long = await call("user.updateProfile", { name: "x".repeat(121), email: a.user.email });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.json.message).toBe("Name is too long");

    const wrong = await call("user.changePassword", {
      currentPassword: "nope-nope",
      newPassword: "another-pass",
    });
    expect(wrong.statusCode).toBeGreaterThanOrEqual(400);
    expect(wrong.statusCode).toBeLessThan(500);
    const short = await call("user.changePassword", { currentPassword: "x", newPassword: "abc" });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.json.message).toBe("Password must be at least 6 characters");

    const prefs = await call("user.updateSettings", {
      preferences: { navLayout: "topbar", weeklyReports: true },
    });
    expect(prefs.statusCode).toBe(200);
    expect(prefs.json().result.data.json.user.preferences).toMatchObject({
      navLayout: "topbar",
      weeklyReports: true,
    });
  });
});
