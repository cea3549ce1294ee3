import { Writable } from "node:stream";
import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authTokens, campaignRecipients, campaigns, outboxMessages, users } from "../../src/server/db/schema";
import { avatarVideos } from "../../src/server/db/schema/avatar";
import { sendPasswordResetJob } from "../../src/server/features/auth/auth.jobs";
import { requestPasswordReset } from "../../src/server/features/auth/auth.service";
import { loggerOptions } from "../../src/server/lib/logger";
import {
  accountLinkToken,
  authedClient,
  createTestApp,
  setPlan,
  signUp,
  TEST_ORIGIN,
  type TestApp,
  uniqueEmail,
} from "../helpers";
import { uniqueDaytimePhone } from "../unique-phone";

/** Issue 11, hardening: click signing, demo text, login CSRF, log redaction, CSP, account links. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function outboxTo(to: string) {
  return t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
}

describe("click tracking is signed per message (issue 11)", () => {
  it("redirects only through the signed link of that message; unsigned, altered, borrowed or re-pointed links are refused", async () => {
    const { client } = await signUp(t.app);
    const a = uniqueEmail("click-a");
    const b = uniqueEmail("click-b");
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Signed",
      subject: "S",
      body: "Go https://example.com/offer and https://example.com/other",
      contacts: [
        { name: "A", email: a },
        { name: "B", email: b },
      ],
    });
    expect(res.statusCode).toBe(200);
    const campaignId = res.json().campaignId as number;
    const recipients = await t.db
      .select()
      .from(campaignRecipients)
      .where(eq(campaignRecipients.campaignId, campaignId));
    const ra = recipients.find((r) => r.address === a)!;
    const rb = recipients.find((r) => r.address === b)!;
    const linksIn = async (to: string) => {
      const [m] = await outboxTo(to);
      return [...m.body.matchAll(/http:\/\/localhost:80(\/c\/[^\s)\]]+)/g)].map((x) => x[1]);
    };
    const [la0, la1] = await linksIn(a);
    const [lb0] = await linksIn(b);
    expect(la0).toMatch(new RegExp(`^/c/${ra.token}/0/[A-Za-z0-9_-]{22}$`));
    expect(la1).toMatch(new RegExp(`^/c/${ra.token}/1/[A-Za-z0-9_-]{22}$`));

    const go = (url: string) => t.app.inject({ method: "GET", url });
    const ok = await go(la0);
    expect(ok.statusCode).toBe(302);
    expect(ok.headers.location).toBe("https://example.com/offer");
    expect((await go(la1)).headers.location).toBe("https://example.com/other");

    // unsigned (the old form), altered, another link's signature, another recipient's signature
    const sigA0 = la0.split("/").pop()!;
    const sigB0 = lb0.split("/").pop()!;
    const flipped = `${sigA0.slice(0, -1)}${sigA0.endsWith("A") ? "B" : "A"}`;
    for (const url of [
      `/c/${ra.token}/0`,
      `/c/${ra.token}/0/${flipped}`,
      `/c/${ra.token}/0/${la1.split("/").pop()}`,
      `/c/${ra.token}/0/${sigB0}`,
      `/c/${rb.token}/0/${sigA0}`,
      `/c/${ra.token}/0/${sigA0}x`,
    ]) {
      const r = await go(url);
      expect(r.statusCode, url).toBe(404);
      expect(r.headers.location).toBeUndefined();
      expect(r.body).toContain("This link is not valid");
    }

    // the tenant re-points the stored link after sending: the sent signature no longer matches
    const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, campaignId));
    await t.db
      .update(campaigns)
      .set({ content: { ...c.content, links: ["https://evil.example/phish", "https://example.com/other"] } })
      .where(eq(campaigns.id, campaignId));
    const repointed = await go(la0);
    expect(repointed.statusCode).toBe(404);
    expect(repointed.headers.location).toBeUndefined();
    expect((await go(lb0)).statusCode).toBe(404);
  });
});

describe("public demo carries no visitor links (issue 11)", () => {
  it("email, SMS, call and avatar script hold only a cleaned, capped first name in fixed texts", async () => {
    const names = [
      "Claim http://evil.example/login now",
      "evil.example/win Bob",
      "www.evil.example",
      "x".repeat(120),
    ];
    for (const [i, name] of names.entries()) {
      const email = uniqueEmail(`demo-${i}`);
      // a number where it is day now: the demo keeps quiet hours (demo-quiet-hours.int)
      const phone = await uniqueDaytimePhone();
      const [{ last }] = await t.db
        .select({ last: sql<number>`coalesce(max(id), 0)::int` })
        .from(outboxMessages);
      const res = await t.app.inject({
        method: "POST",
        url: "/api/demo/send",
        payload: { name, email, phone },
        remoteAddress: `198.51.100.${40 + i}`,
      });
      expect(res.statusCode).toBe(200);
      const messages = [...(await outboxTo(email)), ...(await outboxTo(phone))].filter((m) => m.id > last);
      expect(messages.map((m) => m.channel).sort()).toEqual(["email", "sms", "voice"]);
      const scripts = await t.db
        .select({ script: avatarVideos.script })
        .from(avatarVideos)
        .where(sql`${avatarVideos.demoRequestId} = (select id from demo_requests where email = ${email})`);
      const everything = JSON.stringify([messages, scripts]);
      expect(everything).not.toMatch(/evil/i);
      expect(everything).not.toContain("x".repeat(25));
      const sms = messages.find((m) => m.channel === "sms")!;
      const expected = ["Claim", "Bob", "there", "x".repeat(24)][i];
      expect(sms.body).toBe(
        `Hi ${expected}, this is your Pitchwise demo text. Personal video, SMS, email and AI calls from one place. Start free: http://localhost:80/register Reply STOP to opt out.`,
      );
      const mail = messages.find((m) => m.channel === "email")!;
      expect(mail.subject).toBe(`${expected}, your Pitchwise demo is here`);
    }
  });
});

describe("login CSRF (issue 11)", () => {
  it("a cross-site form cannot sign a visitor in or register an account; same-site and non-browser calls can", async () => {
    const { user, password } = await signUp(t.app);
    const form = (url: string, body: string, headers: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url,
        payload: body,
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      });
    const creds = `email=${encodeURIComponent(user.email)}&password=${encodeURIComponent(password)}`;
    for (const headers of [
      { origin: "https://attacker.example" },
      { origin: "null" },
      { referer: "https://attacker.example/page" },
      { "sec-fetch-site": "cross-site" },
    ] as Record<string, string>[]) {
      const r = await form("/api/auth/login", creds, headers);
      expect(r.statusCode, JSON.stringify(headers)).toBe(403);
      expect(r.json().error).toBe("Cross-site request refused: the Origin header does not match this site");
      expect(r.cookies.find((c) => c.name === "pw_session")).toBeUndefined();
      const reg = await form(
        "/api/auth/register",
        `name=Mallory&email=${encodeURIComponent(uniqueEmail("csrf"))}&password=attacker-password`,
        headers,
      );
      expect(reg.statusCode).toBe(403);
    }
    // tRPC too
    const trpc = await t.app.inject({
      method: "POST",
      url: "/trpc/auth.login",
      payload: { json: { email: user.email, password } },
      headers: { origin: "https://attacker.example" },
    });
    expect(trpc.statusCode).toBe(403);
    // the app's own form and a non-browser client still sign in
    expect((await form("/api/auth/login", creds, { origin: TEST_ORIGIN })).statusCode).toBe(200);
    const plain = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: user.email, password },
    });
    expect(plain.statusCode).toBe(200);
  });
});

describe("failed-query logs hold no values (issue 11)", () => {
  it("a unique violation logged through the app's logger keeps the SQL and constraint, not the hash or email", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const log = pino({ ...loggerOptions({ LOG_LEVEL: "info", NODE_ENV: "production" }) }, sink);
    const { user } = await signUp(t.app);
    const secretHash = "$argon2id$v=19$m=19456,t=2,p=1$SECRETSALT$SECRETHASHVALUE";
    let caught: unknown;
    try {
      await t.db.insert(users).values({ name: "Dup Person", email: user.email, passwordHash: secretHash });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeTruthy();
    log.error({ err: caught }, "unhandled error");
    log.error({ err: new Error("wrapped", { cause: caught }) }, "tRPC error");
    const out = lines.join("\n");
    expect(out).toContain("Failed query: insert into");
    expect(out).toContain("users_email_lower_uq");
    expect(out).not.toContain("SECRETHASHVALUE");
    expect(out).not.toContain(user.email);
    expect(out).not.toContain("Dup Person");
  });
});

describe("Content-Security-Policy (issue 11)", () => {
  it("every response carries a policy without unsafe-eval or inline scripts, allowing the map and blob workers", async () => {
    const r = await t.app.inject({ method: "GET", url: "/api/auth/me" });
    const csp = String(r.headers["content-security-policy"] ?? "");
    const directives = Object.fromEntries(
      csp.split(";").map((d) => {
        const [k, ...v] = d.trim().split(/\s+/);
        return [k, v];
      }),
    );
    expect(directives["default-src"]).toEqual(["'self'"]);
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(csp).not.toContain("unsafe-eval");
    expect(directives["worker-src"]).toEqual(["'self'", "blob:"]);
    expect(directives["connect-src"]).toContain("https://tiles.openfreemap.org");
    expect(directives["object-src"]).toEqual(["'none'"]);
    expect(directives["form-action"]).toEqual(["'self'"]);
    // the video landing page has no inline script any more
    const js = await t.app.inject({ method: "GET", url: "/v/assets/landing.js" });
    expect(js.statusCode).toBe(200);
    expect(js.body).toContain("new Plyr(video");
  });

  it("allows MAP_STYLE_URL's origin when set, and upgrades insecure requests in production only", async () => {
    const { cspDirectives } = await import("../../src/server/http/csp");
    const dev = cspDirectives(
      { isProduction: false, MAP_STYLE_URL: "https://maps.example.net/style.json" },
      null,
    );
    expect(dev["connect-src"]).toEqual([
      "'self'",
      "https://tiles.openfreemap.org",
      "https://maps.example.net",
    ]);
    expect(dev["upgrade-insecure-requests"]).toBeNull();
    const html = '<script>\n  document.x = 1;\n</script><script type="module" src="/a.js"></script>';
    const prod = cspDirectives({ isProduction: true }, html);
    expect(prod["script-src"]).toHaveLength(2);
    expect(prod["script-src"]![1]).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/);
    expect(prod["upgrade-insecure-requests"]).toEqual([]);
  });
});

function sessionCookie(res: { cookies: { name: string; value: string }[] }) {
  const c = res.cookies.find((x) => x.name === "pw_session" && x.value);
  return c ? `pw_session=${c.value}` : null;
}

describe("forgot and reset password (issue 11)", () => {
  it("the request does the same work for a known and an unknown address: one queued job, the account looked up there", async () => {
    const { user } = await signUp(t.app);
    const queued: { name: string; data: unknown }[] = [];
    const recording = {
      ...t.ctx,
      jobs: {
        ...t.ctx.jobs,
        send: async (job: { name: string }, data: unknown) => {
          queued.push({ name: job.name, data });
          return "job-id";
        },
      },
    } as typeof t.ctx;
    const nobody = uniqueEmail("nobody");
    const a = await requestPasswordReset(
      recording,
      { email: user.email.toUpperCase() },
      { ip: "203.0.113.7" },
    );
    const b = await requestPasswordReset(recording, { email: nobody }, { ip: "203.0.113.7" });
    expect(a).toEqual(b);
    expect(queued).toEqual([
      { name: "auth.send-password-reset", data: { email: user.email.toLowerCase() } },
      { name: "auth.send-password-reset", data: { email: nobody } },
    ]);
    // the job: a link for the account, nothing for the unknown address
    await t.jobs.send(sendPasswordResetJob, { email: nobody });
    const toNobody = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, nobody));
    expect(toNobody).toEqual([]);
    await t.jobs.send(sendPasswordResetJob, { email: user.email });
    expect(await accountLinkToken(t.app, user.email, "reset-password")).toMatch(/^[a-z2-7]{32}$/);
    expect(t.jobs.failures).toEqual([]);
  });

  it("same answer for any address; a single-use, hashed, 1-hour link sets the password, ends every session and signs in", async () => {
    const { user, cookie, password } = await signUp(t.app);
    // a second device
    const other = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: user.email, password },
    });
    const otherCookie = sessionCookie(other)!;
    const ask = (email: string) =>
      t.app.inject({ method: "POST", url: "/api/auth/forgot-password", payload: { email } });
    const known = await ask(user.email.toUpperCase());
    const unknown = await ask(uniqueEmail("nobody"));
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    expect(known.json().message).toBe(
      "If an account exists for that email, we have sent it a link to reset the password. The link works once, for 1 hour.",
    );
    expect((await ask("not-an-email")).statusCode).toBe(400);

    const token = (await accountLinkToken(t.app, user.email, "reset-password"))!;
    expect(token).toMatch(/^[a-z2-7]{32}$/);
    // stored hashed, valid one hour
    const rows = await t.db.select().from(authTokens).where(eq(authTokens.userId, user.id));
    const reset = rows.filter((r) => r.purpose === "password_reset");
    expect(reset).toHaveLength(1);
    expect(reset[0].id).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(token);
    const ttl = reset[0].expiresAt.getTime() - reset[0].createdAt.getTime();
    expect(Math.abs(ttl - 3600_000)).toBeLessThan(5_000);

    const short = await t.app.inject({
      method: "POST",
      url: "/api/auth/reset-password",
      payload: { token, password: "short" },
    });
    expect(short.statusCode).toBe(400);
    expect(short.json().error).toContain("Password must be at least 8 characters");

    const done = await t.app.inject({
      method: "POST",
      url: "/api/auth/reset-password",
      payload: { token, password: "a-brand-new-password" },
    });
    expect(done.statusCode).toBe(200);
    expect(done.json().user.email).toBe(user.email);
    const fresh = sessionCookie(done)!;
    expect(fresh).toBeTruthy();
    // every earlier session ended; the new one works
    expect((await t.app.inject({ method: "GET", url: "/api/auth/me", headers: { cookie } })).statusCode).toBe(
      401,
    );
    expect(
      (await t.app.inject({ method: "GET", url: "/api/auth/me", headers: { cookie: otherCookie } }))
        .statusCode,
    ).toBe(401);
    expect((await authedClient(t.app, fresh).get("/api/auth/me")).statusCode).toBe(200);
    // single use
    const again = await t.app.inject({
      method: "POST",
      url: "/api/auth/reset-password",
      payload: { token, password: "another-new-password" },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe(
      "This password reset link is invalid, already used or expired. Please request a new one.",
    );
    // the old password no longer works, the new one does
    const login = (p: string) =>
      t.app.inject({ method: "POST", url: "/api/auth/login", payload: { email: user.email, password: p } });
    expect((await login(password)).statusCode).toBe(401);
    expect((await login("a-brand-new-password")).statusCode).toBe(200);
  });

  it("an expired or forged link is refused; tRPC has the same operations", async () => {
    const { user } = await signUp(t.app);
    const trpc = (path: string, json: unknown) =>
      t.app.inject({ method: "POST", url: `/trpc/${path}`, payload: { json } });
    const asked = await trpc("auth.forgotPassword", { email: user.email });
    expect(asked.statusCode).toBe(200);
    const token = (await accountLinkToken(t.app, user.email, "reset-password"))!;
    await t.db
      .update(authTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authTokens.userId, user.id));
    const expired = await trpc("auth.resetPassword", { token, password: "a-brand-new-password" });
    expect(expired.statusCode).toBe(400);
    expect(expired.body).toContain("invalid, already used or expired");
    const forged = await trpc("auth.resetPassword", {
      token: "a".repeat(32),
      password: "a-brand-new-password",
    });
    expect(forged.statusCode).toBe(400);
    await trpc("auth.forgotPassword", { email: user.email });
    const next = (await accountLinkToken(t.app, user.email, "reset-password"))!;
    const ok = await trpc("auth.resetPassword", { token: next, password: "a-brand-new-password" });
    expect(ok.statusCode).toBe(200);
    expect(sessionCookie(ok)).toBeTruthy();
  });

  it("is rate limited per client address", async () => {
    const limited = await createTestApp({ AUTH_RATE_LIMIT_PER_IP: "3" });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++)
        codes.push(
          (
            await limited.app.inject({
              method: "POST",
              url: "/api/auth/forgot-password",
              payload: { email: uniqueEmail("rl") },
              remoteAddress: "203.0.113.50",
            })
          ).statusCode,
        );
      expect(codes).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe("email verification (issue 11)", () => {
  it("a new account is emailed a link; until verified it cannot launch or send beyond its own address; the link verifies it", async () => {
    const { user, client } = await signUp(t.app, {}, { verify: false });
    await setPlan(t, user.id, "professional");
    const me = await client.get("/api/auth/me");
    expect(me.json().user.email_verified).toBe(false);
    const token = await accountLinkToken(t.app, user.email, "verify-email");
    expect(token).toMatch(/^[a-z2-7]{32}$/);

    const launch = () =>
      client.post("/api/campaigns/email/launch", {
        campaignName: "Early",
        subject: "S",
        body: "B",
        contacts: [{ name: "X", email: uniqueEmail("target") }],
      });
    const refused = await launch();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe(
      "Please verify your email address before sending: open the link we emailed you, or resend it from the banner at the top of the app. Until then you can send only to your own address.",
    );
    const sms = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Early SMS",
      message: "Hi",
      contacts: [{ name: "X", phone: "+15155550123" }],
    });
    expect(sms.statusCode).toBe(403);
    // one-off email: to a contact refused, to the user's own address allowed
    const stranger = await client.post("/api/contacts", { first_name: "S", email: uniqueEmail("s") });
    const self = await client.post("/api/contacts", { first_name: "Me", email: user.email });
    const strangerId = stranger.json().contact?.id ?? stranger.json().id;
    const selfId = self.json().contact?.id ?? self.json().id;
    expect(
      (await client.post(`/api/contacts/${strangerId}/send-email`, { subject: "S", body: "B" })).statusCode,
    ).toBe(403);
    expect(
      (await client.post(`/api/contacts/${selfId}/send-email`, { subject: "S", body: "B" })).statusCode,
    ).toBe(200);
    // the test email goes to the user's own address: allowed
    expect(
      (await client.post("/api/campaigns/email/test", { subject: "S", body: "B", testEmail: user.email }))
        .statusCode,
    ).toBe(200);
    // resend works (a new link replaces the old one)
    const resend = await client.post("/api/auth/resend-verification");
    expect(resend.statusCode).toBe(200);
    expect(resend.json().message).toBe(
      `We sent a new verification link to ${user.email}. It works for 7 days.`,
    );
    const newer = (await accountLinkToken(t.app, user.email, "verify-email"))!;
    expect(newer).not.toBe(token);
    const old = await t.app.inject({ method: "POST", url: "/api/auth/verify-email", payload: { token } });
    expect(old.statusCode).toBe(400);
    const ok = await t.app.inject({
      method: "POST",
      url: "/api/auth/verify-email",
      payload: { token: newer },
    });
    expect(ok.statusCode).toBe(200);
    expect((await client.get("/api/auth/me")).json().user.email_verified).toBe(true);
    expect((await launch()).statusCode).toBe(200);
  });
});
