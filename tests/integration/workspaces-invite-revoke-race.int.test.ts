/**
 * Revoking an invitation while its invitee accepts it: exactly one of them happens. A revoke that
 * answers 200 means the invitee did not join; an accept that answers 200 means the revoke is refused
 * (the invitation was no longer pending). The interleaving is forced: a transaction of the test holds
 * the invitation's row, the accept queues on it (holding the workspace lock), then the revoke is sent.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceInvites, workspaceMembers } from "../../src/server/db/schema";
import { createTestApp, inviteTokenFor, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Backends blocked (directly) by any of `pids`, polled up to 5 s until there are `n`. */
async function waitForBlocked(pids: number[], n: number): Promise<number[]> {
  let blocked: number[] = [];
  for (let i = 0; i < 200; i++) {
    const rows = await t.sql<{ pid: number }[]>`
      select pid from pg_stat_activity where pg_blocking_pids(pid) && ${pids}::int[]`;
    blocked = rows.map((r) => r.pid);
    if (blocked.length >= n) break;
    await sleep(25);
  }
  return blocked;
}

describe("revoking an invitation while it is accepted", () => {
  it("the accept that gets in first wins and the revoke answers 404; the invitee is a member", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    const email = uniqueEmail("rita");
    const sent = await owner.client.post("/api/workspaces/current/invites", { email });
    expect(sent.statusCode, sent.body).toBe(201);
    const inviteId = sent.json().invite.id as string;
    const token = await inviteTokenFor(t, email);
    const rita = await signUp(t.app, { name: "Rita", email });

    let accept: Promise<{ statusCode: number; body: string }> | undefined;
    let revoke: Promise<{ statusCode: number; body: string }> | undefined;
    await t.sql.begin(async (tx) => {
      const [{ pid }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await tx`select id from workspace_invites where id = ${inviteId} for update`;
      accept = rita.client.post(`/api/invites/${token}/accept`);
      const [acceptPid] = await waitForBlocked([pid], 1);
      expect(acceptPid, "the accept waits on the invitation's row").toBeDefined();
      revoke = owner.client.del(`/api/workspaces/current/invites/${inviteId}`);
      const waiting = await waitForBlocked([pid, acceptPid!], 2);
      expect(waiting.length, "the revoke waits too").toBeGreaterThanOrEqual(2);
    });
    const [acc, rev] = await Promise.all([accept!, revoke!]);

    expect(acc.statusCode, acc.body).toBe(200);
    expect(rev.statusCode, rev.body).toBe(404);
    expect(JSON.parse(rev.body).error).toBe("Invitation not found");
    const [row] = await t.db.select().from(workspaceInvites).where(eq(workspaceInvites.id, inviteId));
    expect(row!.acceptedAt).not.toBeNull();
    expect(row!.revokedAt).toBeNull();
    const members = await t.db
      .select({ userId: workspaceMembers.userId })
      .from(workspaceMembers)
      .where(eq(workspaceMembers.workspaceId, owner.user.id));
    expect(members.map((m) => m.userId)).toContain(rita.user.id);
  });

  it("a revoke that gets in first stops the accept: the invitee is told it was revoked and does not join", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    const email = uniqueEmail("ravi");
    const sent = await owner.client.post("/api/workspaces/current/invites", { email });
    const inviteId = sent.json().invite.id as string;
    const token = await inviteTokenFor(t, email);
    const ravi = await signUp(t.app, { name: "Ravi", email });
    const [rev, acc] = await Promise.all([
      owner.client.del(`/api/workspaces/current/invites/${inviteId}`),
      (async () => {
        // the revoke has committed before the accept looks
        for (let i = 0; i < 200; i++) {
          const [row] = await t.db.select().from(workspaceInvites).where(eq(workspaceInvites.id, inviteId));
          if (row?.revokedAt) break;
          await sleep(10);
        }
        return ravi.client.post(`/api/invites/${token}/accept`);
      })(),
    ]);
    expect(rev.statusCode, rev.body).toBe(200);
    expect(acc.statusCode, acc.body).toBe(400);
    expect(acc.json().error).toBe("This invitation was revoked. Ask for a new one.");
    const members = await t.db
      .select({ userId: workspaceMembers.userId })
      .from(workspaceMembers)
      .where(eq(workspaceMembers.workspaceId, owner.user.id));
    expect(members.map((m) => m.userId)).not.toContain(ravi.user.id);
  });

  it("an invitation revoked while the accept waits for the workspace is refused as revoked, not as used", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    const email = uniqueEmail("rosa");
    const sent = await owner.client.post("/api/workspaces/current/invites", { email });
    const inviteId = sent.json().invite.id as string;
    const token = await inviteTokenFor(t, email);
    const rosa = await signUp(t.app, { name: "Rosa", email });

    let accept: Promise<{ statusCode: number; body: string }> | undefined;
    await t.sql.begin(async (tx) => {
      const [{ pid }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await tx`select id from workspaces where id = ${owner.user.id} for update`;
      // the accept has read the invitation (pending) and waits for the workspace
      accept = rosa.client.post(`/api/invites/${token}/accept`);
      expect(await waitForBlocked([pid], 1)).toHaveLength(1);
      // meanwhile it is revoked without the workspace lock (as an account recovery revokes what its
      // account sent since the change)
      await t.sql`update workspace_invites set revoked_at = now() where id = ${inviteId}`;
    });
    const acc = await accept!;
    expect(acc.statusCode, acc.body).toBe(400);
    expect(JSON.parse(acc.body).error).toBe("This invitation was revoked. Ask for a new one.");
  });
});
