/**
 * Invitation emails: who may send them and how many. Sending or resending an invitation needs a
 * verified email address (auth's assertCanSend, the campaign gate's rule and 403 sentence); a resend
 * is limited per invitation (one a minute, five a day) and the workspace's invitation emails per day
 * (new and resent) are bounded, each with a 429 saying when to try again. A resend that brings an
 * expired invitation back takes a seat again, so it is checked against the plan's seats (402), as a
 * new invitation is.
 */
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { users, workspaceInvites } from "../../src/server/db/schema";
import { UNVERIFIED_SEND_MESSAGE } from "../../src/server/features/auth/auth.service";
import { INVITE_EMAILS_PER_WORKSPACE_PER_DAY } from "../../src/server/lib/rate-limit";
import {
  type AuthedClient,
  createTestApp,
  outboxCountsTo,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function invite(by: AuthedClient, email = uniqueEmail("inv")) {
  const res = await by.post("/api/workspaces/current/invites", { email, role: "member" });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().invite as { id: string; email: string };
}

const resend = (by: AuthedClient, id: string) => by.post(`/api/workspaces/current/invites/${id}/resend`);

/** A minute passes for invitation `id`'s resends (its one-a-minute window ends). */
async function aMinuteLater(id: string) {
  await t.ctx.limiters.inviteResendMinute.delete(id);
}

describe("invitation emails need a verified sender", () => {
  it("an unverified account cannot invite or resend (REST and tRPC), and nothing is emailed", async () => {
    const owner = await signUp(t.app, { name: "Your bank security team" }, { verify: false });
    await setPlan(t, owner.user.id, "business");
    await owner.client.inject({
      method: "PATCH",
      url: "/api/workspaces/current",
      payload: { name: "URGENT: verify your account at evil.example" },
    });
    const target = uniqueEmail("victim");
    const res = await owner.client.post("/api/workspaces/current/invites", { email: target, role: "member" });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().error).toBe(UNVERIFIED_SEND_MESSAGE);
    const rpc = await trpcCall(owner.client, "workspaces.invite", { email: target, role: "member" });
    expect(rpc.status).toBe(403);
    expect(rpc.error?.message).toBe(UNVERIFIED_SEND_MESSAGE);
    expect((await outboxCountsTo(t, [target])).get(target) ?? 0).toBe(0);

    // an invitation sent while verified cannot be resent once the address is unverified again
    // (an email change clears email_verified_at)
    await t.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, owner.user.id));
    const sent = await invite(owner.client, target);
    await t.db.update(users).set({ emailVerifiedAt: null }).where(eq(users.id, owner.user.id));
    const again = await resend(owner.client, sent.id);
    expect(again.statusCode, again.body).toBe(403);
    expect(again.json().error).toBe(UNVERIFIED_SEND_MESSAGE);
    const rpcAgain = await trpcCall(owner.client, "workspaces.resendInvite", { inviteId: sent.id });
    expect(rpcAgain.status).toBe(403);
    expect((await outboxCountsTo(t, [target])).get(target)).toBe(1);
  });
});

describe("invitation emails are rate limited", () => {
  it("a resend at most once a minute and five times a day per invitation, with a 429 saying when", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    const sent = await invite(owner.client);

    expect((await resend(owner.client, sent.id)).statusCode).toBe(200);
    const tooSoon = await resend(owner.client, sent.id);
    expect(tooSoon.statusCode, tooSoon.body).toBe(429);
    expect(tooSoon.json().error).toMatch(
      /^This invitation was sent less than a minute ago\. You can resend it in \d+ seconds?\.$/,
    );
    const rpc = await trpcCall(owner.client, "workspaces.resendInvite", { inviteId: sent.id });
    expect(rpc.status).toBe(429);

    for (let i = 2; i <= 5; i++) {
      await aMinuteLater(sent.id);
      const r = await resend(owner.client, sent.id);
      expect(r.statusCode, `resend ${i}: ${r.body}`).toBe(200);
    }
    await aMinuteLater(sent.id);
    const sixth = await resend(owner.client, sent.id);
    expect(sixth.statusCode, sixth.body).toBe(429);
    expect(sixth.json().error).toMatch(
      /^This invitation has been resent 5 times today\. You can resend it in (\d+ hours?|\d+ minutes?)\.$/,
    );
    // the invitation and five resends: six emails, no more
    expect((await outboxCountsTo(t, [sent.email])).get(sent.email)).toBe(6);

    // another invitation of the same workspace has its own count
    const other = await invite(owner.client);
    expect((await resend(owner.client, other.id)).statusCode).toBe(200);
  });

  it(`a workspace sends at most ${INVITE_EMAILS_PER_WORKSPACE_PER_DAY} invitation emails a day, new or resent`, async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "enterprise");
    const first = await invite(owner.client);
    for (let i = 1; i < INVITE_EMAILS_PER_WORKSPACE_PER_DAY - 1; i++) await invite(owner.client);
    expect((await resend(owner.client, first.id)).statusCode).toBe(200);
    const target = uniqueEmail("over");
    const over = await owner.client.post("/api/workspaces/current/invites", {
      email: target,
      role: "member",
    });
    expect(over.statusCode, over.body).toBe(429);
    expect(over.json().error).toMatch(
      new RegExp(
        `^This workspace has sent ${INVITE_EMAILS_PER_WORKSPACE_PER_DAY} invitation emails today, the daily limit\\. You can send more in (\\d+ hours?|\\d+ minutes?)\\.$`,
      ),
    );
    expect((await outboxCountsTo(t, [target])).get(target) ?? 0).toBe(0);
    // refused, it holds no seat and no row
    const rows = await t.db.select().from(workspaceInvites).where(eq(workspaceInvites.email, target));
    expect(rows).toEqual([]);
    await aMinuteLater(first.id);
    expect((await resend(owner.client, first.id)).statusCode).toBe(429);
  });
});

describe("resending an expired invitation takes a seat again", () => {
  it("is refused with the plan's 402 when the seats are taken, and allowed when one is free", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business"); // 5 seats: the owner + 4
    const expired = [];
    for (let i = 0; i < 4; i++) expired.push(await invite(owner.client));
    await t.db
      .update(workspaceInvites)
      .set({ expiresAt: new Date(Date.now() - 86_400_000) })
      .where(
        inArray(
          workspaceInvites.id,
          expired.map((e) => e.id),
        ),
      );
    const fresh = [];
    for (let i = 0; i < 4; i++) fresh.push(await invite(owner.client));
    const overInvite = await owner.client.post("/api/workspaces/current/invites", {
      email: uniqueEmail("fifth"),
      role: "member",
    });
    expect(overInvite.statusCode).toBe(402);

    for (const e of expired) {
      const r = await resend(owner.client, e.id);
      expect(r.statusCode, r.body).toBe(402);
      expect(r.json().error).toBe(overInvite.json().error);
      const rpc = await trpcCall(owner.client, "workspaces.resendInvite", { inviteId: e.id });
      // tRPC has no 402: PAYMENT_REQUIRED travels as FORBIDDEN with the same sentence
      expect(rpc.error?.message).toBe(overInvite.json().error);
    }
    const seats = (await owner.client.get("/api/workspaces/current/members")).json().seats;
    expect(seats).toEqual({ used: 5, limit: 5, full: true });
    expect((await outboxCountsTo(t, [expired[0]!.email])).get(expired[0]!.email)).toBe(1);

    // a pending (not expired) invitation holds its seat already: resending it is fine
    expect((await resend(owner.client, fresh[0]!.id)).statusCode).toBe(200);
    // a seat freed: an expired invitation can be brought back
    expect((await owner.client.del(`/api/workspaces/current/invites/${fresh[1]!.id}`)).statusCode).toBe(200);
    const back = await resend(owner.client, expired[0]!.id);
    expect(back.statusCode, back.body).toBe(200);
    expect((await owner.client.get("/api/workspaces/current/members")).json().seats).toEqual({
      used: 5,
      limit: 5,
      full: true,
    });
    expect((await resend(owner.client, expired[1]!.id)).statusCode).toBe(402);
  });
});
