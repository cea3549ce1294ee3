/**
 * Settings > Team, from a QA pass: what the server tells the people involved.
 * - a resent invitation's email says it replaces the earlier one (whose link stops working);
 * - a tab's refusal after the person lost the workspace it shows says so (`shownWorkspaceMember`
 *   false, REST `shown_workspace_member`), where the dialog offered to switch back and then failed;
 * - the invitation lookup tells a signed-in person who is a member of the invitation's workspace so
 *   (`member_workspace`), and nobody else;
 * - a transfer answers who owns the workspace now and the role the previous owner was given;
 * - a person who lost their last workspace gets a fallback named after them, not after the lost one
 *   (it read as if their data was wiped), and a removed member is told by email.
 */
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages } from "../../src/server/db/schema";
import {
  type AuthedClient,
  createTestApp,
  inviteTokenFor,
  joinWorkspace,
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

const HEADER = "x-workspace-id";

/** The emails to `to` in the local outbox, newest first. */
const emailsTo = (to: string) =>
  t.db
    .select({ subject: outboxMessages.subject, body: outboxMessages.body, html: outboxMessages.html })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")))
    .orderBy(desc(outboxMessages.id));

/** A tRPC mutation as a browser tab sends it, naming the workspace the tab shows. */
async function tabMutation(client: AuthedClient, path: string, input: unknown, shown: string) {
  const res = await client.inject({
    method: "POST",
    url: `/trpc/${path}`,
    payload: { json: input },
    headers: { [HEADER]: shown },
  });
  return {
    status: res.statusCode,
    error: res.json().error?.json as
      | {
          message: string;
          data: { workspaceChanged: { id: string; name: string } | null; shownWorkspaceMember?: unknown };
        }
      | undefined,
  };
}

async function ownerWithBusinessPlan(name = "Olive Owner", business = "Olive Plumbing") {
  const owner = await signUp(t.app, { name, business_name: business });
  await setPlan(t, owner.user.id, "business");
  return owner;
}

describe("a resent invitation's email", () => {
  it("says it replaces the earlier one, whose link no longer works", async () => {
    const owner = await ownerWithBusinessPlan();
    const email = uniqueEmail("ria");
    const sent = await owner.client.post("/api/workspaces/current/invites", { email, role: "member" });
    expect(sent.statusCode, sent.body).toBe(201);
    const first = await inviteTokenFor(t, email);
    const resent = await owner.client.post(`/api/workspaces/current/invites/${sent.json().invite.id}/resend`);
    expect(resent.statusCode, resent.body).toBe(200);
    const [newest, earlier] = await emailsTo(email);
    expect(newest!.body).toContain(
      "This invitation replaces the one sent earlier: the link in that email no longer works.",
    );
    expect(newest!.html).toContain("the link in that email no longer works");
    expect(earlier!.body).not.toContain("replaces");
    // and it is so: the first link is gone
    const old = await t.app.inject({ method: "GET", url: `/api/invites/${first}` });
    expect(old.statusCode).toBe(404);
  });
});

describe("a tab's refusal says whether the person still belongs to the workspace it shows", () => {
  it("false after the person was removed from it, true after another tab switched away", async () => {
    const olive = await ownerWithBusinessPlan();
    const mia = await joinWorkspace(t, olive.client, "member", {
      name: "Mia Member",
      business_name: "Mia Design",
    });
    const shared = olive.user.id;
    const own = mia.user.id;

    // another tab switched to Mia's own workspace: she still belongs to the one this tab shows
    expect((await tabMutation(mia.client, "workspaces.switch", { workspaceId: own }, own)).status).toBe(200);
    const switched = await tabMutation(mia.client, "crm.create", { first_name: "Al" }, shared);
    expect(switched.status).toBe(409);
    expect(switched.error?.data.workspaceChanged).toEqual({ id: own, name: "Mia Design" });
    expect(switched.error?.data.shownWorkspaceMember).toBe(true);
    expect((await tabMutation(mia.client, "workspaces.switch", { workspaceId: shared }, shared)).status).toBe(
      200,
    );

    // removed: she no longer does (tRPC and REST alike), and the earlier fields are as they were
    const removed = await olive.client.del(`/api/workspaces/current/members/${mia.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    const stale = await tabMutation(mia.client, "crm.create", { first_name: "Bo" }, shared);
    expect(stale.status).toBe(409);
    expect(stale.error?.message).toMatch(/now working in ‘Mia Design’/);
    expect(stale.error?.data.workspaceChanged).toEqual({ id: own, name: "Mia Design" });
    expect(stale.error?.data.shownWorkspaceMember).toBe(false);
    const rest = await mia.client.inject({
      method: "POST",
      url: "/api/contacts",
      payload: { first_name: "Cy" },
      headers: { [HEADER]: shared },
    });
    expect(rest.statusCode).toBe(409);
    expect(rest.json()).toMatchObject({
      workspace_changed: { id: own, name: "Mia Design" },
      shown_workspace_member: false,
    });
    // a workspace id that is no workspace at all: not a member either (nothing else said about it)
    const bogus = await tabMutation(mia.client, "crm.create", { first_name: "Di" }, "not-a-uuid");
    expect(bogus.error?.data.shownWorkspaceMember).toBe(false);
  });
});

describe("the invitation lookup for a person who is a member of its workspace", () => {
  it("names the workspace to that person only (Back after accepting), not to others or signed out", async () => {
    const olive = await ownerWithBusinessPlan("Olive Owner", "Olive Bakery");
    const email = uniqueEmail("mae");
    const mae = await signUp(t.app, { name: "Mae Mate", email, business_name: "Mae Co" });
    const sent = await olive.client.post("/api/workspaces/current/invites", { email, role: "member" });
    expect(sent.statusCode, sent.body).toBe(201);
    const token = await inviteTokenFor(t, email);

    const before = await mae.client.get(`/api/invites/${token}`);
    expect(before.json().invite).toMatchObject({ status: "pending", member_workspace: null });
    expect((await mae.client.post(`/api/invites/${token}/accept`)).statusCode).toBe(200);

    const after = await mae.client.get(`/api/invites/${token}`);
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().invite).toMatchObject({
      status: "accepted",
      viewer: "invitee",
      member_workspace: { id: olive.user.id, name: "Olive Bakery" },
    });
    const rpc = await trpcCall(mae.client, "workspaces.invitation", { token }, "query");
    expect(rpc.data.member_workspace).toEqual({ id: olive.user.id, name: "Olive Bakery" });

    const stranger = await signUp(t.app, { name: "Sam Stranger" });
    const theirs = await stranger.client.get(`/api/invites/${token}`);
    expect(theirs.json().invite.member_workspace).toBeNull();
    const anon = await t.app.inject({ method: "GET", url: `/api/invites/${token}` });
    expect(anon.json().invite.member_workspace).toBeNull();
    expect(JSON.stringify(anon.json())).not.toContain(olive.user.id);
  });
});

describe("a transfer of ownership", () => {
  it("answers the workspace, its new owner and the role the previous owner now has", async () => {
    const olive = await ownerWithBusinessPlan("Olive Owner", "Olive Garage");
    const max = await joinWorkspace(t, olive.client, "admin", { name: "Max Admin" });
    const res = await trpcCall(olive.client, "workspaces.transferOwnership", { user_id: max.user.id });
    expect(res.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toEqual({
      workspace: { id: olive.user.id, name: "Olive Garage" },
      new_owner: { user_id: max.user.id, name: "Max Admin" },
      previous_owner_role: "admin",
    });
  });
});

describe("a person removed from their only workspace", () => {
  it("gets a fallback workspace named after them, and an email saying they were removed", async () => {
    // Olive hands her workspace to Max, who then removes her: she has no workspace left
    const olive = await ownerWithBusinessPlan("Olive Owner", "Olive Florist");
    const max = await joinWorkspace(t, olive.client, "admin", { name: "Max Admin" });
    const moved = await olive.client.post("/api/workspaces/current/transfer", { user_id: max.user.id });
    expect(moved.statusCode, moved.body).toBe(200);
    const mine = await max.client.post(`/api/workspaces/${olive.user.id}/switch`);
    expect(mine.statusCode, mine.body).toBe(200);
    const removed = await max.client.del(`/api/workspaces/current/members/${olive.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);

    const me = await olive.client.get("/api/auth/me");
    expect(me.statusCode, me.body).toBe(200);
    const { workspace, workspaces } = me.json();
    expect(workspace.name).toBe("Olive Owner's workspace");
    expect(workspace.id).not.toBe(olive.user.id);
    expect(workspaces.map((w: { name: string }) => w.name)).toEqual(["Olive Owner's workspace"]);

    const [notice] = await emailsTo(olive.user.email);
    expect(notice!.subject).toBe("You were removed from Olive Florist on Pitchwise");
    expect(notice!.body).toContain("Max Admin removed you from the Olive Florist workspace on Pitchwise.");
  });

  it("a member who leaves gets no removal email", async () => {
    const olive = await ownerWithBusinessPlan("Olive Owner", "Olive Dairy");
    const lea = await joinWorkspace(t, olive.client, "member", { name: "Lea Leaver" });
    const left = await lea.client.post("/api/workspaces/current/leave");
    expect(left.statusCode, left.body).toBe(200);
    const subjects = (await emailsTo(lea.user.email)).map((m) => m.subject);
    expect(subjects.some((s) => s?.startsWith("You were removed"))).toBe(false);
  });
});
