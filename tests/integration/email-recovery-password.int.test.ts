import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessions, users } from "../../src/server/db/schema";
import { hashPassword } from "../../src/server/lib/passwords";
import {
  accountLinkToken,
  authedClient,
  createTestApp,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

// Security review: the "this wasn't me" recovery moved the account back to the owner's address but
// left the password as it was, and that password is known to whoever changed the address. They signed
// in again on the restored address, changed it once more (which also made the owner's reset token
// useless) and kept the account. A recovery now makes the current password unusable, so only whoever
// reads the restored address (the recovery's reset token, or Forgot password) can set a new one.

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

const loginRaw = (email: string, password: string) =>
  t.app.inject({ method: "POST", url: "/api/auth/login", payload: { email, password } });

async function login(email: string, password: string) {
  const res = await loginRaw(email, password);
  expect(res.statusCode, res.body).toBe(200);
  return authedClient(t.app, `pw_session=${res.cookies.find((c) => c.name === "pw_session")!.value}`);
}

const recover = (token: string) =>
  t.app.inject({ method: "POST", url: "/api/auth/recover-email", payload: { token } });
const resetPassword = (token: string, password: string) =>
  t.app.inject({ method: "POST", url: "/api/auth/reset-password", payload: { token, password } });

const sessionCount = async (userId: string) =>
  (await t.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, userId))).length;

/** The sentence of a sign-in with the password a recovery made unusable. */
const RETIRED = /^This password no longer works: the account was secured .*Forgot password/;

/** The owner signs up; "someone with the password" signs in elsewhere and moves the account to B. */
async function hijacked() {
  const owner = await signUp(t.app, { name: "Olive Owner" });
  const thief = await login(owner.user.email, owner.password);
  const thiefEmail = uniqueEmail("thief");
  const moved = await thief.put("/api/user/profile", {
    name: "Olive Owner",
    email: thiefEmail,
    currentPassword: owner.password,
  });
  expect(moved.statusCode, moved.body).toBe(200);
  const token = await recoveryToken(owner.user.email);
  expect(token, "the notice to the old address carries a recovery link").toBeTruthy();
  return { owner, thiefEmail, token: token! };
}

describe("after an email recovery the old password is unusable", () => {
  it("the thief cannot sign in again, so the account stays on the owner's address and the owner's reset token works", async () => {
    const { owner, token } = await hijacked();
    const ok = await recover(token);
    expect(ok.statusCode, ok.body).toBe(200);
    const resetToken = ok.json().reset_token as string;

    // the thief signs in with the restored address and the password they know: refused, with a sentence
    const again = await loginRaw(owner.user.email, owner.password);
    expect(again.statusCode, again.body).toBe(401);
    expect(again.json().error).toMatch(RETIRED);
    expect(again.cookies.find((c) => c.name === "pw_session")).toBeUndefined();
    // tRPC says the same
    const viaTrpc = await trpcCall(authedClient(t.app, ""), "auth.login", {
      email: owner.user.email,
      password: owner.password,
    });
    expect(viaTrpc.status).toBe(401);
    expect(viaTrpc.error?.message).toMatch(RETIRED);
    expect(await sessionCount(owner.user.id)).toBe(0);
    // a wrong password gets the usual answer (the sentence tells nothing to someone guessing)
    const wrong = await loginRaw(owner.user.email, "not-the-password-1");
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe("Invalid email or password");

    // the account is still on the owner's address, and the reset token from the recovery works
    const [row] = await t.db.select().from(users).where(eq(users.id, owner.user.id));
    expect(row!.email).toBe(owner.user.email);
    const reset = await resetPassword(resetToken, "owner-again-123");
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().user).toMatchObject({ email: owner.user.email, email_verified: true });
    await login(owner.user.email, "owner-again-123");
    const old = await loginRaw(owner.user.email, owner.password);
    expect(old.statusCode).toBe(401);
    expect(old.json().error).toBe("Invalid email or password");
  });

  it("a forgot-password request for the restored address leaves the password unusable and sends a working link there", async () => {
    const { owner, token } = await hijacked();
    const ok = await recover(token);
    expect(ok.statusCode, ok.body).toBe(200);
    const forgot = await t.app.inject({
      method: "POST",
      url: "/api/auth/forgot-password",
      payload: { email: owner.user.email },
    });
    expect(forgot.statusCode, forgot.body).toBe(200);
    // the request changes nothing for whoever knows the old password
    const thief = await loginRaw(owner.user.email, owner.password);
    expect(thief.statusCode).toBe(401);
    expect(thief.json().error).toMatch(RETIRED);
    // the link went to the restored address, and it works
    const emailed = await accountLinkToken(t.app, owner.user.email, "reset-password");
    expect(emailed).toBeTruthy();
    expect(emailed).not.toBe(ok.json().reset_token);
    const reset = await resetPassword(emailed!, "owner-mailbox-123");
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().user.email).toBe(owner.user.email);
    await login(owner.user.email, "owner-mailbox-123");
  });

  it("an attacker who registered with someone else's address and moved away cannot sign in once that address's owner secures it", async () => {
    const victimAddress = uniqueEmail("victim");
    const attacker = await signUp(t.app, { name: "Mallory", email: victimAddress }, { verify: false });
    const attackerEmail = uniqueEmail("mallory");
    const moved = await attacker.client.put("/api/user/profile", {
      name: "Mallory",
      email: attackerEmail,
      currentPassword: attacker.password,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const token = await recoveryToken(victimAddress);
    expect(token).toBeTruthy();

    const ok = await recover(token!);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().email).toBe(victimAddress);
    // back on the victim's address, verified: the click on the link sent there proves it
    const [row] = await t.db.select().from(users).where(eq(users.id, attacker.user.id));
    expect(row!.email).toBe(victimAddress);
    expect(row!.emailVerifiedAt).toBeInstanceOf(Date);
    // the attacker's password works with neither address
    const onVictim = await loginRaw(victimAddress, attacker.password);
    expect(onVictim.statusCode).toBe(401);
    expect(onVictim.json().error).toMatch(RETIRED);
    const onOwn = await loginRaw(attackerEmail, attacker.password);
    expect(onOwn.statusCode).toBe(401);
    expect(onOwn.json().error).toBe("Invalid email or password");
    expect((await attacker.client.get("/api/auth/me")).statusCode).toBe(401);
    // only the address's owner (the reset token) sets the password
    const reset = await resetPassword(ok.json().reset_token, "victim-now-123");
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().user).toMatchObject({ email: victimAddress, email_verified: true });
  });

  it("a sign-in whose password check ran before the password changed does not open a session after it", async () => {
    const owner = await signUp(t.app, { name: "Race Owner" });
    const newHash = await hashPassword("changed-meanwhile-123");
    let pending: ReturnType<typeof loginRaw> | null = null;
    // hold the account's row as a recovery (or a reset) does while it changes the password and ends
    // every session; a sign-in started meanwhile has checked the old password already
    await t.sql.begin(async (tx) => {
      await tx`select id from users where id = ${owner.user.id} for update`;
      pending = loginRaw(owner.user.email, owner.password);
      const deadline = Date.now() + 15_000;
      for (;;) {
        const [w] = await t.sql`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and state = 'active'
            and pid <> pg_backend_pid() and (query ilike '%sessions%' or query ilike '%for share%')`;
        if (w!.n > 0) break;
        if (Date.now() > deadline) throw new Error("the sign-in never waited for the account's row");
        await new Promise((r) => setTimeout(r, 20));
      }
      await tx`update users set password_hash = ${newHash} where id = ${owner.user.id}`;
      await tx`delete from sessions where user_id = ${owner.user.id}`;
    });
    const res = await pending!;
    expect(res.statusCode, res.body).toBe(401);
    expect(await sessionCount(owner.user.id)).toBe(0);
    expect((await owner.client.get("/api/auth/me")).statusCode).toBe(401);
    // the new password signs in as usual
    await login(owner.user.email, "changed-meanwhile-123");
    expect(
      (
        await t.db
          .select({ n: sql<number>`count(*)::int` })
          .from(sessions)
          .where(eq(sessions.userId, owner.user.id))
      )[0]!.n,
    ).toBe(1);
  });
});
