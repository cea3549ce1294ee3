/**
 * A resend brings back no invitation whose address has joined since, or has been invited again: an
 * invitation that expired stays in the workspace's table, a newer one to the same address can be
 * sent (expired ones hold no seat), and resending the old one afterwards emailed a member an
 * invitation to their own workspace, or gave one address two pending invitations and two seats.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceInvites } from "../../src/server/db/schema";
import {
  type AuthedClient,
  createTestApp,
  inviteTokenFor,
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

async function invite(by: AuthedClient, email: string) {
  const res = await by.post("/api/workspaces/current/invites", { email, role: "member" });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().invite.id as string;
}

async function expire(inviteId: string) {
  await t.db
    .update(workspaceInvites)
    .set({ expiresAt: new Date(Date.now() - 86_400_000) })
    .where(eq(workspaceInvites.id, inviteId));
}

const seatsOf = async (c: AuthedClient) => (await c.get("/api/workspaces/current/members")).json().seats;

describe("resending an old invitation", () => {
  it("is refused (409) once its address is a member: no email, the invitation stays expired", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    const email = uniqueEmail("eve");
    const old = await invite(owner.client, email);
    await expire(old);
    await invite(owner.client, email);
    const token = await inviteTokenFor(t, email);
    const eve = await signUp(t.app, { name: "Eve", email });
    const accepted = await eve.client.post(`/api/invites/${token}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(200);
    const emailsBefore = (await outboxCountsTo(t, [email])).get(email);
    const seatsBefore = await seatsOf(owner.client);

    const res = await owner.client.post(`/api/workspaces/current/invites/${old}/resend`);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error).toBe(`${email} is already a member of this workspace.`);
    const rpc = await trpcCall(owner.client, "workspaces.resendInvite", { inviteId: old });
    expect(rpc.status).toBe(409);
    expect(rpc.error?.message).toBe(`${email} is already a member of this workspace.`);

    expect((await outboxCountsTo(t, [email])).get(email)).toBe(emailsBefore);
    const [row] = await t.db.select().from(workspaceInvites).where(eq(workspaceInvites.id, old));
    expect(row!.expiresAt.getTime()).toBeLessThan(Date.now());
    expect(await seatsOf(owner.client)).toEqual(seatsBefore);
  });

  it("is refused (409) while a newer invitation to the same address is pending: one invitation, one seat", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    const email = uniqueEmail("ida");
    const old = await invite(owner.client, email);
    await expire(old);
    await invite(owner.client, email);
    expect(await seatsOf(owner.client)).toEqual({ used: 2, limit: 5, full: false });

    const res = await owner.client.post(`/api/workspaces/current/invites/${old}/resend`);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error).toBe(
      `${email} already has a pending invitation. Resend it from the list instead.`,
    );
    expect(await seatsOf(owner.client)).toEqual({ used: 2, limit: 5, full: false });
    const pending = (await owner.client.get("/api/workspaces/current/members")).json().invites;
    expect(pending.filter((i: { email: string }) => i.email === email)).toHaveLength(1);

    // the pending one itself is resent as before
    const current = pending.find((i: { email: string }) => i.email === email).id;
    const again = await owner.client.post(`/api/workspaces/current/invites/${current}/resend`);
    expect(again.statusCode, again.body).toBe(200);
  });
});
