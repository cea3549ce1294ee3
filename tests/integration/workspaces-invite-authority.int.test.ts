/**
 * An invitation carries its sender's authority, and only while they still have it (as an API key
 * carries its creator's): removing a member, demoting an admin to member, or a member leaving revokes
 * the pending invitations they sent in that workspace; and accepting checks again, under the
 * workspace lock, that the sender may still give the invited role (owner or admin: admin or member).
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceInvites, workspaceMembers } from "../../src/server/db/schema";
import {
  type AuthedClient,
  createTestApp,
  inviteTokenFor,
  setPlan,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function invite(by: AuthedClient, email: string, role: "admin" | "member") {
  const res = await by.post("/api/workspaces/current/invites", { email, role });
  expect(res.statusCode, res.body).toBe(201);
  return inviteTokenFor(t, email);
}

/** An owner on Business and an admin A who joined by invitation. */
async function ownerAndAdmin() {
  const owner = await signUp(t.app, { name: "Olive Owner", business_name: "Olive Plumbing" });
  await setPlan(t, owner.user.id, "business");
  const adminEmail = uniqueEmail("admin");
  const token = await invite(owner.client, adminEmail, "admin");
  const admin = await signUp(t.app, { name: "Ada Admin", email: adminEmail });
  expect((await admin.client.post(`/api/invites/${token}/accept`)).statusCode).toBe(200);
  return { owner, admin, workspaceId: owner.user.id };
}

/** A second account (the one the admin controls) registered at `email`. */
const accountAt = (email: string) => signUp(t.app, { name: "Second Account", email });

async function roleOf(workspaceId: string, userId: string) {
  const [m] = await t.db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  return m?.role ?? null;
}

async function pendingInviteEmails(owner: AuthedClient) {
  const res = await owner.get("/api/workspaces/current/members");
  return (res.json().invites as { email: string }[]).map((i) => i.email);
}

describe("invitations end with their sender's authority", () => {
  it("removing an admin revokes the invitations they sent: the invitee cannot join", async () => {
    const { owner, admin, workspaceId } = await ownerAndAdmin();
    const secondEmail = uniqueEmail("second");
    const token = await invite(admin.client, secondEmail, "admin");
    const keptEmail = uniqueEmail("kept");
    const kept = await invite(owner.client, keptEmail, "member");

    const removed = await owner.client.del(`/api/workspaces/current/members/${admin.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await pendingInviteEmails(owner.client)).toEqual([keptEmail]);

    const second = await accountAt(secondEmail);
    const info = (await second.client.get(`/api/invites/${token}`)).json();
    expect(info.invite.status).toBe("revoked");
    const accepted = await second.client.post(`/api/invites/${token}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(400);
    expect(accepted.json().error).toBe("This invitation was revoked. Ask for a new one.");
    expect(await roleOf(workspaceId, second.user.id)).toBeNull();

    // the owner's own invitation is untouched
    const keeper = await accountAt(keptEmail);
    expect((await keeper.client.post(`/api/invites/${kept}/accept`)).statusCode).toBe(200);
  });

  it("demoting an admin to member revokes their invitations; tRPC too", async () => {
    const { owner, admin, workspaceId } = await ownerAndAdmin();
    const secondEmail = uniqueEmail("second");
    const token = await invite(admin.client, secondEmail, "admin");
    const demoted = await owner.client.inject({
      method: "PATCH",
      url: `/api/workspaces/current/members/${admin.user.id}`,
      payload: { role: "member" },
    });
    expect(demoted.statusCode, demoted.body).toBe(200);
    expect(await pendingInviteEmails(owner.client)).toEqual([]);
    const second = await accountAt(secondEmail);
    const accepted = await second.client.inject({
      method: "POST",
      url: "/trpc/workspaces.acceptInvite",
      payload: { json: { token } },
    });
    expect(accepted.statusCode, accepted.body).toBe(400);
    expect(await roleOf(workspaceId, second.user.id)).toBeNull();
  });

  it("an admin who leaves takes their pending invitations with them", async () => {
    const { owner, admin, workspaceId } = await ownerAndAdmin();
    const secondEmail = uniqueEmail("second");
    const token = await invite(admin.client, secondEmail, "member");
    expect((await admin.client.post("/api/workspaces/current/leave")).statusCode).toBe(200);
    expect(await pendingInviteEmails(owner.client)).toEqual([]);
    const second = await accountAt(secondEmail);
    expect((await second.client.post(`/api/invites/${token}/accept`)).statusCode).toBe(400);
    expect(await roleOf(workspaceId, second.user.id)).toBeNull();
  });

  it("accepting checks the sender's role now: an invitation gives no more than its sender may give", async () => {
    const { owner, admin, workspaceId } = await ownerAndAdmin();
    const secondEmail = uniqueEmail("second");
    const token = await invite(admin.client, secondEmail, "admin");
    // the sender lost the right to invite without the invitation being revoked (a path that forgot to)
    await t.db
      .update(workspaceMembers)
      .set({ role: "member" })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, admin.user.id)));
    const second = await accountAt(secondEmail);
    const accepted = await second.client.post(`/api/invites/${token}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(400);
    expect(accepted.json().error).toBe(
      "This invitation is no longer valid: the person who sent it can no longer invite people to Olive Plumbing. Ask for a new one.",
    );
    expect(await roleOf(workspaceId, second.user.id)).toBeNull();
    // still open: were the sender made an admin again, it could be accepted
    const [row] = await t.db
      .select({ acceptedAt: workspaceInvites.acceptedAt })
      .from(workspaceInvites)
      .where(eq(workspaceInvites.email, secondEmail));
    expect(row?.acceptedAt).toBeNull();

    // an owner who hands ownership over is an admin and keeps their invitations
    const otherEmail = uniqueEmail("other");
    const other = await invite(owner.client, otherEmail, "admin");
    await t.db
      .update(workspaceMembers)
      .set({ role: "admin" })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, admin.user.id)));
    expect(
      (await owner.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id })).statusCode,
    ).toBe(200);
    expect(await pendingInviteEmails(admin.client)).toContain(otherEmail);
    const joiner = await accountAt(otherEmail);
    const ok = await joiner.client.post(`/api/invites/${other}/accept`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await roleOf(workspaceId, joiner.user.id)).toBe("admin");
  });
});
