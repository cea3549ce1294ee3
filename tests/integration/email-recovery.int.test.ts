import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authTokens, users, webhookEndpoints, workspaceInvites } from "../../src/server/db/schema";
import { RECOVERY_DISABLED_REASON } from "../../src/server/features/webhooks/webhooks.service";
import {
  type AuthedClient,
  authedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
  verifyEmailThroughOutbox,
} from "../helpers";

// The email-changed notice carries a "this wasn't me" link: single use, 7 days, only its SHA-256
// stored (auth_tokens, purpose email_recovery). Confirming moves the account back to the old
// address (verified), ends every session, revokes the API keys made since the change and leads to
// the reset-password screen.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** The recovery token in the newest email-changed notice sent to `to`, or null. */
async function recoveryToken(to: string): Promise<string | null> {
  const res = await t.app.inject({
    method: "GET",
    url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
  });
  for (const m of res.json().messages as { subject: string; body: string }[]) {
    const match = m.body.match(/\/account\/recover-email\?token=([a-z2-7]+)/);
    if (m.subject === "Your Pitchwise email was changed" && match) return match[1]!;
  }
  return null;
}

async function login(email: string, password: string) {
  const res = await t.app.inject({ method: "POST", url: "/api/auth/login", payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  return authedClient(t.app, `pw_session=${res.cookies.find((c) => c.name === "pw_session")!.value}`);
}

async function createKey(client: AuthedClient, name: string) {
  const res = await client.post("/api/api-keys", { name, scopes: ["contacts:read"] });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().key as string;
}

const v1With = (key: string) =>
  t.app.inject({ method: "GET", url: "/api/v1/contacts", headers: { authorization: `Bearer ${key}` } });

const check = (token: string) =>
  t.app.inject({ method: "GET", url: `/api/auth/recover-email?token=${encodeURIComponent(token)}` });
const recover = (token: string) =>
  t.app.inject({ method: "POST", url: "/api/auth/recover-email", payload: { token } });

/** Signs up the owner, then "someone with the password" signs in elsewhere and moves the account. */
async function hijacked() {
  const owner = await signUp(t.app, { name: "Olive Owner" });
  await setPlan(t, owner.user.id, "business");
  const keyBefore = await createKey(owner.client, "owner's zapier");
  const thief = await login(owner.user.email, owner.password);
  const thiefEmail = uniqueEmail("thief");
  const moved = await thief.put("/api/user/profile", {
    name: "Olive Owner",
    email: thiefEmail,
    currentPassword: owner.password,
  });
  expect(moved.statusCode, moved.body).toBe(200);
  const keyAfter = await createKey(thief, "thief's key");
  const token = await recoveryToken(owner.user.email);
  expect(token, "the notice to the old address carries a recovery link").toBeTruthy();
  return { owner, thief, thiefEmail, keyBefore, keyAfter, token: token! };
}

describe("the email-changed notice's recovery link", () => {
  it("restores the old address (verified) once, ends every session, revokes keys made since and leads to a new password", async () => {
    const { owner, thief, thiefEmail, keyBefore, keyAfter, token } = await hijacked();
    // the link is stored hashed only
    const [stored] = await t.db
      .select()
      .from(authTokens)
      .where(sql`${authTokens.purpose} = 'email_recovery' and ${authTokens.userId} = ${owner.user.id}`);
    expect(stored!.id).not.toContain(token);
    expect(stored!.id).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.email).toBe(owner.user.email);
    const days = (stored!.expiresAt.getTime() - stored!.createdAt.getTime()) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);

    // the page's first look: what would be restored; nothing used yet
    const peek = await check(token);
    expect(peek.statusCode, peek.body).toBe(200);
    expect(peek.json()).toEqual({ success: true, email: owner.user.email, available: true });
    expect((await thief.get("/api/auth/me")).statusCode).toBe(200);

    const ok = await recover(token);
    expect(ok.statusCode, ok.body).toBe(200);
    const body = ok.json();
    expect(body).toMatchObject({ success: true, email: owner.user.email });
    expect(body.message).toBe(
      `Your account is back on ${owner.user.email} and every device was signed out. Now choose a new password.`,
    );
    expect(body.reset_token).toMatch(/^[a-z2-7]{32}$/);

    // every session is gone (the thief's, and the owner's own)
    expect((await thief.get("/api/auth/me")).statusCode).toBe(401);
    expect((await owner.client.get("/api/auth/me")).statusCode).toBe(401);
    // the key made after the change is revoked, the owner's older key still works
    const revoked = await v1With(keyAfter);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.message).toBe("This API key has been revoked.");
    expect((await v1With(keyBefore)).statusCode).toBe(200);
    // the thief's address no longer signs in; the old password does not survive the reset below
    const thiefLogin = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: thiefEmail, password: owner.password },
    });
    expect(thiefLogin.statusCode).toBe(401);

    // the reset token sets a new password and signs in on the restored, verified address
    const reset = await t.app.inject({
      method: "POST",
      url: "/api/auth/reset-password",
      payload: { token: body.reset_token, password: "mine-again-123" },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().user).toMatchObject({ email: owner.user.email, email_verified: true });
    const oldPassword = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: owner.user.email, password: owner.password },
    });
    expect(oldPassword.statusCode).toBe(401);
    await login(owner.user.email, "mine-again-123");

    // a second use is refused, with a sentence saying so
    const again = await recover(token);
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toMatch(/^This recovery link was already used/);
    expect((await check(token)).json().error).toMatch(/^This recovery link was already used/);
  });

  it("refuses a tampered, missing or expired link with a sentence, and changes nothing", async () => {
    const { owner, thief, thiefEmail, token } = await hijacked();
    const last = token.at(-1) === "a" ? "b" : "a";
    const tampered = `${token.slice(0, -1)}${last}`;
    for (const bad of [tampered, "not-a-token!", `${token}x`]) {
      const res = await recover(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error).toBe(
        "This recovery link is not valid. Please open the link from the email exactly as it is.",
      );
      expect((await check(bad)).statusCode).toBe(400);
    }
    const empty = await recover("");
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toBe("This link is incomplete. Please use the link from the email.");
    const noBody = await t.app.inject({ method: "POST", url: "/api/auth/recover-email", payload: {} });
    expect(noBody.statusCode).toBe(400);
    // tRPC answers the same sentences
    const viaTrpc = await trpcCall(thief, "auth.recoverEmail", { token: tampered });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error?.message).toMatch(/^This recovery link is not valid/);
    // nothing changed
    expect((await thief.get("/api/auth/me")).json().user.email).toBe(thiefEmail);

    // expired: 7 days passed
    await t.db
      .update(authTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authTokens.userId, owner.user.id));
    const expired = await recover(token);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error).toMatch(/^This recovery link has expired \(links work for 7 days\)/);
    expect((await thief.get("/api/auth/me")).statusCode).toBe(200);
  });

  it("says so when another account took the old address meanwhile, and changes nothing", async () => {
    const { owner, thief, thiefEmail, token } = await hijacked();
    // the freed address is held for the link (registering or moving to it is refused: see
    // "the old address is held for its owner" below); an account that got it anyway (written here
    // directly, as a race past that check would) makes the recovery refuse
    const other = await signUp(t.app, {});
    await t.db.update(users).set({ email: owner.user.email }).where(eq(users.id, other.user.id));
    const peek = await check(token);
    expect(peek.statusCode).toBe(200);
    expect(peek.json()).toEqual({ success: true, email: owner.user.email, available: false });
    const res = await recover(token);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe(
      `We cannot move the account back to ${owner.user.email}: that address now belongs to another Pitchwise account. Nothing was changed. Reply to the email we sent so we can help you get the account back.`,
    );
    expect((await thief.get("/api/auth/me")).json().user.email).toBe(thiefEmail);
    // the link was not used up by the refusal
    expect((await check(token)).statusCode).toBe(200);
  });

  it("disables the webhook endpoints and revokes the pending invitations the account made since the change; earlier ones stay", async () => {
    const owner = await signUp(t.app, { name: "Wren Owner" });
    await setPlan(t, owner.user.id, "business");
    const endpoint = (label: string, createdAt?: Date) =>
      t.db
        .insert(webhookEndpoints)
        .values({
          workspaceId: owner.user.id,
          url: `https://hooks.example.com/${label}`,
          events: ["contact.created"],
          secret: "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=",
          createdBy: owner.user.id,
          ...(createdAt ? { createdAt } : {}),
        })
        .returning({ id: webhookEndpoints.id })
        .then((r) => r[0]!.id);
    const invite = async (client: AuthedClient, email: string) => {
      const res = await client.post("/api/workspaces/current/invites", { email, role: "member" });
      expect(res.statusCode, res.body).toBe(201);
    };
    const ownersEndpoint = await endpoint("crm-sync", new Date(Date.now() - 3_600_000));
    const colleague = uniqueEmail("colleague");
    await invite(owner.client, colleague);
    const thief = await login(owner.user.email, owner.password);
    const thiefEmail = uniqueEmail("thief");
    const moved = await thief.put("/api/user/profile", {
      name: "Wren Owner",
      email: thiefEmail,
      currentPassword: owner.password,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    // the thief reads the new address, so confirms it (an unverified account cannot send invitations)
    await verifyEmailThroughOutbox(t.app, thiefEmail);
    // after the change: a copy of every new contact, and a way back in under another address
    const thiefsEndpoint = await endpoint("exfiltrate");
    const accomplice = uniqueEmail("accomplice");
    await invite(thief, accomplice);

    const ok = await recover((await recoveryToken(owner.user.email))!);
    expect(ok.statusCode, ok.body).toBe(200);
    const endpoints = await t.db
      .select({
        id: webhookEndpoints.id,
        enabled: webhookEndpoints.enabled,
        reason: webhookEndpoints.disabledReason,
      })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.workspaceId, owner.user.id));
    expect(endpoints.find((e) => e.id === ownersEndpoint)).toMatchObject({ enabled: true, reason: null });
    expect(endpoints.find((e) => e.id === thiefsEndpoint)).toMatchObject({
      enabled: false,
      reason: RECOVERY_DISABLED_REASON,
    });
    const invites = await t.db
      .select({ email: workspaceInvites.email, revokedAt: workspaceInvites.revokedAt })
      .from(workspaceInvites)
      .where(eq(workspaceInvites.workspaceId, owner.user.id));
    expect(invites.find((i) => i.email === colleague)?.revokedAt).toBeNull();
    expect(invites.find((i) => i.email === accomplice)?.revokedAt).toBeInstanceOf(Date);
  });

  it("works over tRPC as the page calls it (query, then mutation)", async () => {
    const { owner, thief, token } = await hijacked();
    const peek = await trpcCall(thief, "auth.checkEmailRecovery", { token }, "query");
    expect(peek.status).toBe(200);
    expect(peek.data).toEqual({ email: owner.user.email, available: true });
    const done = await trpcCall(thief, "auth.recoverEmail", { token });
    expect(done.status, JSON.stringify(done.error)).toBe(200);
    expect(done.data).toMatchObject({ success: true, email: owner.user.email, revokedApiKeys: 1 });
    expect(done.data.resetToken).toMatch(/^[a-z2-7]{32}$/);
    expect((await thief.get("/api/auth/me")).statusCode).toBe(401);
  });
});

// Security review (after the recovery link shipped): whoever changed the address knows the
// password, so they can also act with other accounts, change the address again and use the links
// those changes send to them. Neither may leave the owner's link useless.
describe("the owner's recovery link survives what the thief can do", () => {
  it("the old address is held for its owner: registering it or moving another account to it is refused, and the recovery works", async () => {
    const { owner, thief, thiefEmail, token } = await hijacked();
    // a new account on the freed address
    const squat = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { name: "Squatter", email: owner.user.email, password: "squatter-pass-123" },
    });
    expect(squat.statusCode, squat.body).toBe(409);
    expect(squat.json().error).toBe("An account with this email already exists");
    // and in upper case
    const upper = await t.app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: { name: "Squatter", email: owner.user.email.toUpperCase(), password: "squatter-pass-123" },
    });
    expect(upper.statusCode, upper.body).toBe(409);
    // another account of the thief's moved onto it (its own password, REST and tRPC)
    const second = await signUp(t.app, { name: "Second" });
    const moved = await second.client.put("/api/user/profile", {
      name: "Second",
      email: owner.user.email,
      currentPassword: second.password,
    });
    expect(moved.statusCode, moved.body).toBe(409);
    expect(moved.json().error).toBe("That email is already used by another account");
    const viaTrpc = await trpcCall(second.client, "user.updateProfile", {
      name: "Second",
      email: owner.user.email,
      currentPassword: second.password,
    });
    expect(viaTrpc.status).toBe(409);
    expect((await second.client.get("/api/auth/me")).json().user.email).not.toBe(owner.user.email);

    // the owner's link still works
    expect((await check(token)).json()).toEqual({ success: true, email: owner.user.email, available: true });
    const ok = await recover(token);
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await thief.get("/api/auth/me")).statusCode).toBe(401);
    expect(thiefEmail).not.toBe(owner.user.email);
  });

  it("the account itself may move back to its old address (the hold is for its own recovery)", async () => {
    const owner = await signUp(t.app, { name: "Mover" });
    const newEmail = uniqueEmail("mover-new");
    const away = await owner.client.put("/api/user/profile", {
      name: "Mover",
      email: newEmail,
      currentPassword: owner.password,
    });
    expect(away.statusCode, away.body).toBe(200);
    const back = await owner.client.put("/api/user/profile", {
      name: "Mover",
      email: owner.user.email,
      currentPassword: owner.password,
    });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().user.email).toBe(owner.user.email);
  });

  it("a recovery made with a later change's link does not retire the owner's earlier link", async () => {
    const { owner, thief, thiefEmail, token } = await hijacked();
    // the thief changes the address again: the notice (and its link) goes to the thief's address
    const third = uniqueEmail("thief-again");
    const again = await thief.put("/api/user/profile", {
      name: "Olive Owner",
      email: third,
      currentPassword: owner.password,
    });
    expect(again.statusCode, again.body).toBe(200);
    const thiefToken = await recoveryToken(thiefEmail);
    expect(thiefToken).toBeTruthy();
    // and "recovers" to their own address with it
    const theirs = await recover(thiefToken!);
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.json().email).toBe(thiefEmail);

    // the owner's link, from the earlier change, still moves the account back to the owner
    const peek = await check(token);
    expect(peek.statusCode, peek.body).toBe(200);
    expect(peek.json()).toEqual({ success: true, email: owner.user.email, available: true });
    const mine = await recover(token);
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().email).toBe(owner.user.email);
    // and retires the later one for good
    const replay = await recover(thiefToken!);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error).toMatch(/^This recovery link was already used/);
    const reset = await t.app.inject({
      method: "POST",
      url: "/api/auth/reset-password",
      payload: { token: mine.json().reset_token, password: "owner-again-123" },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().user).toMatchObject({ email: owner.user.email, email_verified: true });
  });
});
