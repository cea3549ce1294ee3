import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages as outbox } from "../../src/server/db/schema";
import { createTestApp, joinWorkspace, setPlan, signUp, type TestApp, trpcCall } from "../helpers";

// Found by a QA pass of a small team's week. (1) The invitation email did not say which role it gave:
// an owner who left the Team screen's role on Admin from the previous invitation made the next
// teammate an admin, and the invitee could not tell before joining. It now says "as an admin (...)"
// or "as a member (...)", also when resent. (2) Settings > Team decided who may invite, transfer or
// leave from the role's name in the browser; the members answer now carries the server's
// permissions, with the sentence a member is refused with.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function emailsTo(address: string) {
  const rows = await t.db.select().from(outbox).where(eq(outbox.to, address));
  return rows.sort((a, b) => a.id - b.id);
}

describe("Team QA: invitations name their role, the members answer carries the permissions", () => {
  it("the invitation email says the role it gives, new and resent", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const adminAddress = `ben-${Date.now()}@example.com`;
    const memberAddress = `cara-${Date.now()}@example.com`;
    const a = await owner.client.post("/api/workspaces/current/invites", {
      email: adminAddress,
      role: "admin",
    });
    expect(a.statusCode, a.body).toBe(201);
    const m = await owner.client.post("/api/workspaces/current/invites", {
      email: memberAddress,
      role: "member",
    });
    expect(m.statusCode, m.body).toBe(201);
    const [toAdmin] = await emailsTo(adminAddress);
    expect(toAdmin?.body).toContain(
      "Ana Owner invited you to join the Acme Roofing workspace on Pitchwise as an admin (you can manage its team, settings, API keys and webhooks).",
    );
    const [toMember] = await emailsTo(memberAddress);
    expect(toMember?.body).toContain(
      "invited you to join the Acme Roofing workspace on Pitchwise as a member (you can work with its contacts, media and campaigns).",
    );
    const resent = await owner.client.post(`/api/workspaces/current/invites/${a.json().invite.id}/resend`);
    expect(resent.statusCode, resent.body).toBe(200);
    const again = await emailsTo(adminAddress);
    expect(again).toHaveLength(2);
    expect(again[1]?.body).toContain("on Pitchwise as an admin (");
  });

  it("the members answer says what the caller may do: owner, admin and member, over REST and tRPC", async () => {
    const owner = await signUp(t.app, { name: "Olga Owner", business_name: "Leafy Lawns" });
    await setPlan(t, owner.user.id, "business");
    const admin = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const member = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const asOwner = await owner.client.get("/api/workspaces/current/members");
    expect(asOwner.json().permissions).toEqual({
      manage_members: true,
      transfer_ownership: true,
      leave_workspace: false,
      manage_members_refusal: null,
    });
    const asAdmin = await trpcCall(admin.client, "workspaces.members", undefined, "query");
    expect(asAdmin.data.permissions).toEqual({
      manage_members: true,
      transfer_ownership: false,
      leave_workspace: true,
      manage_members_refusal: null,
    });
    const asMember = await member.client.get("/api/workspaces/current/members");
    expect(asMember.json().permissions).toEqual({
      manage_members: false,
      transfer_ownership: false,
      leave_workspace: true,
      manage_members_refusal: "Only the workspace owner or an admin can manage team members.",
    });
    // the sentence is the one the server refuses the member with
    const refused = await member.client.post("/api/workspaces/current/invites", {
      email: `x-${Date.now()}@example.com`,
      role: "member",
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe(asMember.json().permissions.manage_members_refusal);
  });
});
