/**
 * A workspace has exactly one owner, also when requests race: two ownership transfers at once, a
 * transfer racing a role change or a removal of the new owner. Each write takes the workspace lock
 * first and re-reads the caller's role (and the target's) under it, so the second request sees the
 * first one's result. Real concurrency: the requests run side by side (Promise.all), several times.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceMembers, workspaces } from "../../src/server/db/schema";
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

const RUNS = 4;

/** An owner on Business with two admins, A and M. */
async function team() {
  const owner = await signUp(t.app, { name: "Olive Owner" });
  await setPlan(t, owner.user.id, "business");
  const join = async (name: string) => {
    const email = uniqueEmail(name);
    const res = await owner.client.post("/api/workspaces/current/invites", { email, role: "admin" });
    expect(res.statusCode, res.body).toBe(201);
    const person = await signUp(t.app, { name, email });
    const accepted = await person.client.post(`/api/invites/${await inviteTokenFor(t, email)}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(200);
    return person;
  };
  return { owner, a: await join("ann"), m: await join("max"), workspaceId: owner.user.id };
}

/** Roles by user id, and the workspace's owner_id. */
async function state(workspaceId: string) {
  const rows = await t.db
    .select({ userId: workspaceMembers.userId, role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(eq(workspaceMembers.workspaceId, workspaceId));
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
  return { roles: Object.fromEntries(rows.map((r) => [r.userId, r.role])), ownerId: w!.ownerId };
}

/** Exactly one member is owner, and it is the workspace's owner_id. */
function expectOneOwner(s: Awaited<ReturnType<typeof state>>) {
  const owners = Object.entries(s.roles).filter(([, r]) => r === "owner");
  expect(owners.map(([id]) => id)).toEqual([s.ownerId]);
}

const transfer = (c: AuthedClient, userId: string) =>
  c.post("/api/workspaces/current/transfer", { user_id: userId });

describe("ownership under concurrent requests", () => {
  it("two transfers at once: one wins, the other is refused, one owner", async () => {
    for (let run = 0; run < RUNS; run++) {
      const { owner, a, m, workspaceId } = await team();
      const [ra, rm] = await Promise.all([
        transfer(owner.client, a.user.id),
        transfer(owner.client, m.user.id),
      ]);
      const codes = [ra.statusCode, rm.statusCode].sort();
      expect(codes, `${ra.body} ${rm.body}`).toEqual([200, 403]);
      const loser = ra.statusCode === 403 ? ra : rm;
      expect(loser.json().error).toBe("Only the workspace owner can transfer ownership.");
      const s = await state(workspaceId);
      expectOneOwner(s);
      expect(s.ownerId).toBe(ra.statusCode === 200 ? a.user.id : m.user.id);
      expect(s.roles[owner.user.id]).toBe("admin");
    }
  });

  it("a transfer racing a demotion or a removal of the new owner leaves one owner", async () => {
    for (let run = 0; run < RUNS; run++) {
      const { owner, a, workspaceId } = await team();
      const [tr, demote] = await Promise.all([
        transfer(owner.client, a.user.id),
        owner.client.inject({
          method: "PATCH",
          url: `/api/workspaces/current/members/${a.user.id}`,
          payload: { role: "member" },
        }),
      ]);
      expect(tr.statusCode, tr.body).toBe(200);
      // the demotion either ran first (then the transfer made A owner) or saw A as owner and was refused
      expect([200, 403], demote.body).toContain(demote.statusCode);
      const s = await state(workspaceId);
      expectOneOwner(s);
      expect(s.ownerId).toBe(a.user.id);
    }
    for (let run = 0; run < RUNS; run++) {
      const { owner, a, workspaceId } = await team();
      const [tr, remove] = await Promise.all([
        transfer(owner.client, a.user.id),
        owner.client.del(`/api/workspaces/current/members/${a.user.id}`),
      ]);
      const s = await state(workspaceId);
      expectOneOwner(s);
      if (remove.statusCode === 200) {
        // the removal ran first: A was no member when the transfer looked
        expect(tr.statusCode, tr.body).toBe(404);
        expect(s.ownerId).toBe(owner.user.id);
        expect(s.roles[a.user.id]).toBeUndefined();
      } else {
        expect(tr.statusCode, tr.body).toBe(200);
        expect(remove.statusCode, remove.body).toBe(403);
        expect(s.ownerId).toBe(a.user.id);
      }
    }
  });

  it("the new owner leaving while the transfer runs cannot leave the workspace ownerless", async () => {
    for (let run = 0; run < RUNS; run++) {
      const { owner, a, workspaceId } = await team();
      const [tr, leave] = await Promise.all([
        transfer(owner.client, a.user.id),
        a.client.post("/api/workspaces/current/leave"),
      ]);
      const s = await state(workspaceId);
      expectOneOwner(s);
      if (leave.statusCode === 200) {
        expect(tr.statusCode, tr.body).toBe(404);
        expect(s.ownerId).toBe(owner.user.id);
      } else {
        expect(tr.statusCode, tr.body).toBe(200);
        expect(leave.statusCode, leave.body).toBe(400);
        expect(s.ownerId).toBe(a.user.id);
      }
      const member = await t.db
        .select()
        .from(workspaceMembers)
        .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, a.user.id)));
      expect(member.length).toBe(leave.statusCode === 200 ? 0 : 1);
    }
  });
});
