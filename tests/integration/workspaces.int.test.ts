import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceInvites, workspaces } from "../../src/server/db/schema";
import { getSenderProfile } from "../../src/server/features/workspaces/workspaces.service";
import {
  type AuthedClient,
  authedClient,
  createTestApp,
  inviteTokenFor,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
  verifyEmailThroughOutbox,
} from "../helpers";
import { multipart, silentWav } from "./studio-helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function setPlan(workspaceId: string, plan: string) {
  await t.db.update(workspaces).set({ plan }).where(eq(workspaces.id, workspaceId));
}

async function invite(owner: AuthedClient, email: string, role: "admin" | "member" = "member") {
  const res = await owner.post("/api/workspaces/current/invites", { email, role });
  expect(res.statusCode, res.body).toBe(201);
  return inviteTokenFor(t, email);
}

async function createContact(client: AuthedClient, email: string) {
  const res = await client.post("/api/contacts", { first_name: "Maria", last_name: "Lopez", email });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().contact.id as number;
}

describe("workspaces: invite, accept, share, switch, remove", () => {
  it("a member invited by email registers, accepts, works in the owner's workspace, switches, and loses it at once when removed", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner", business_name: "Olive Plumbing" });
    await setPlan(owner.user.id, "business");
    const other = await signUp(t.app, { name: "Other Tenant" });
    const contactId = await createContact(owner.client, uniqueEmail("maria"));
    const otherContact = await createContact(other.client, uniqueEmail("ozzy"));
    const campaign = await owner.client.post("/api/campaigns/email/launch", {
      campaignName: "Spring",
      subject: "Hi {{first_name|there}}",
      body: "Hello",
      contacts: [{ name: "A B", email: uniqueEmail("csv") }],
    });
    expect(campaign.statusCode, campaign.body).toBe(200);

    const memberEmail = uniqueEmail("mia");
    const token = await invite(owner.client, memberEmail);

    // the invite page needs no session: who invites to what
    const info = await t.app.inject({ method: "GET", url: `/api/invites/${token}` });
    expect(info.json()).toMatchObject({
      success: true,
      invite: {
        workspace: { name: "Olive Plumbing" },
        inviter: { name: "Olive Owner" },
        // signed out: the address is not shown in full to whoever holds the link
        email: `m•••@example.com`,
        role: "member",
        status: "pending",
        viewer: "signed_out",
        refusal: null,
      },
    });

    // a new person registers first, then accepts (the link lands them back on the invite)
    const member = await signUp(t.app, { name: "Mia Member", email: memberEmail, business_name: "" });
    const accepted = await member.client.post(`/api/invites/${token}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().workspace).toEqual({
      id: owner.user.id,
      name: "Olive Plumbing",
      role: "member",
      plan: "business",
    });

    const me = (await member.client.get("/api/auth/me")).json();
    expect(me.workspace).toEqual({
      id: owner.user.id,
      name: "Olive Plumbing",
      role: "member",
      plan: "business",
    });
    expect(me.user.plan).toBe("business");
    expect(me.workspaces.map((w: { id: string }) => w.id).sort()).toEqual(
      [member.user.id, owner.user.id].sort(),
    );

    // the member sees the workspace's contacts, campaigns and media; never another workspace's
    expect((await member.client.get(`/api/contacts/${contactId}`)).statusCode).toBe(200);
    const list = (await member.client.get("/api/contacts")).json();
    expect(list.contacts.map((c: { id: number }) => c.id)).toContain(contactId);
    expect((await member.client.get(`/api/contacts/${otherContact}`)).statusCode).toBe(404);
    const campaigns = (await member.client.get("/api/campaigns")).json().campaigns as { id: number }[];
    expect(campaigns.map((c) => c.id)).toContain(campaign.json().campaignId);
    const upload = await owner.client.inject({
      method: "POST",
      url: "/api/media/upload",
      ...multipart(
        { name: "Greeting" },
        { field: "file", filename: "greeting.wav", content: silentWav(0.2) },
      ),
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const media = (await member.client.get("/api/media/list")).json().media as { id: number; name: string }[];
    expect(media.map((m) => m.name)).toContain("Greeting");
    expect((await other.client.get("/api/media/list")).json().media).toEqual([]);
    // what the member creates belongs to the workspace and records who did it
    const note = await member.client.post(`/api/contacts/${contactId}/notes`, {
      note_text: "Called, call back Friday",
    });
    expect(note.statusCode, note.body).toBe(200);
    const ownerView = (await owner.client.get(`/api/contacts/${contactId}`)).json();
    expect(JSON.stringify(ownerView)).toContain("Called, call back Friday");
    const [noteRow] =
      await t.sql`select workspace_id, created_by from notes where id = ${note.json().note.id}`;
    expect(noteRow).toEqual({ workspace_id: owner.user.id, created_by: member.user.id });

    // switch to the member's own workspace and back; a workspace they are not in is 404
    const sw = await member.client.post(`/api/workspaces/${member.user.id}/switch`);
    expect(sw.statusCode).toBe(200);
    expect((await member.client.get(`/api/contacts/${contactId}`)).statusCode).toBe(404);
    expect((await member.client.post(`/api/workspaces/${other.user.id}/switch`)).statusCode).toBe(404);
    expect((await member.client.post(`/api/workspaces/not-a-uuid/switch`)).statusCode).toBe(404);
    expect((await member.client.post(`/api/workspaces/${owner.user.id}/switch`)).statusCode).toBe(200);
    expect((await member.client.get(`/api/contacts/${contactId}`)).statusCode).toBe(200);

    // the owner lists members; removes Mia: her very next request is refused the workspace's data
    const members = (await owner.client.get("/api/workspaces/current/members")).json();
    expect(members.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [owner.user.email, "owner"],
      [memberEmail, "member"],
    ]);
    expect(members.seats).toEqual({ used: 2, limit: 5, full: false });
    const removed = await owner.client.del(`/api/workspaces/current/members/${member.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await member.client.get(`/api/contacts/${contactId}`)).statusCode).toBe(404);
    const after = (await member.client.get("/api/auth/me")).json();
    expect(after.workspace.id).toBe(member.user.id);
    expect(after.workspaces.map((w: { id: string }) => w.id)).toEqual([member.user.id]);
    expect((await member.client.post(`/api/workspaces/${owner.user.id}/switch`)).statusCode).toBe(404);
    // and through tRPC too
    const trpc = await member.client.get(
      `/trpc/crm.get?input=${encodeURIComponent(JSON.stringify({ json: { id: contactId } }))}`,
    );
    expect(trpc.statusCode).toBe(404);
  });
});

describe("workspace roles", () => {
  it("members cannot manage members or bulk delete; admins can manage members but not transfer ownership; the owner can", async () => {
    const owner = await signUp(t.app, { name: "Owen Owner" });
    await setPlan(owner.user.id, "business");
    const memberEmail = uniqueEmail("member");
    const adminEmail = uniqueEmail("admin");
    const memberToken = await invite(owner.client, memberEmail, "member");
    const adminToken = await invite(owner.client, adminEmail, "admin");
    const member = await signUp(t.app, { email: memberEmail });
    const admin = await signUp(t.app, { email: adminEmail });
    expect((await member.client.post(`/api/invites/${memberToken}/accept`)).statusCode).toBe(200);
    expect((await admin.client.post(`/api/invites/${adminToken}/accept`)).statusCode).toBe(200);

    // member: every member-management route is 403 with a sentence
    const denied = [
      await member.client.post("/api/workspaces/current/invites", {
        email: uniqueEmail("x"),
        role: "member",
      }),
      await member.client.del(`/api/workspaces/current/members/${admin.user.id}`),
      await member.client.inject({
        method: "PATCH",
        url: `/api/workspaces/current/members/${admin.user.id}`,
        payload: { role: "member" },
      }),
      await member.client.post("/api/workspaces/current/transfer", { user_id: member.user.id }),
      await member.client.inject({
        method: "PATCH",
        url: "/api/workspaces/current",
        payload: { name: "Mine now" },
      }),
    ];
    for (const res of denied) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error).toMatch(/^Only the workspace owner/);
    }
    // same rule through tRPC
    const trpcInvite = await member.client.inject({
      method: "POST",
      url: "/trpc/workspaces.invite",
      payload: { json: { email: uniqueEmail("y"), role: "member" } },
    });
    expect(trpcInvite.statusCode).toBe(403);
    // a member sees members but not pending invites
    const memberView = (await member.client.get("/api/workspaces/current/members")).json();
    expect(memberView.invites).toEqual([]);

    // member: deleting one contact is fine; more than one at a time is refused, and nothing is deleted
    const ids = [
      await createContact(owner.client, uniqueEmail("c1")),
      await createContact(owner.client, uniqueEmail("c2")),
      await createContact(owner.client, uniqueEmail("c3")),
    ];
    const bulk = await member.client.post("/api/contacts/bulk/operation", {
      operation: "delete",
      contactIds: ids,
    });
    expect(bulk.statusCode).toBe(403);
    expect(bulk.json().error).toBe(
      "Only the workspace owner or an admin can delete more than one contact at a time.",
    );
    const one = await member.client.post("/api/contacts/bulk/operation", {
      operation: "delete",
      contactIds: [ids[0]],
    });
    expect(one.json()).toMatchObject({ success: true, deleted: 1 });
    expect((await member.client.get(`/api/contacts/${ids[1]}`)).statusCode).toBe(200);

    // admin: manages members (role change, invite), may bulk delete, cannot transfer ownership or demote the owner
    const promote = await admin.client.inject({
      method: "PATCH",
      url: `/api/workspaces/current/members/${member.user.id}`,
      payload: { role: "admin" },
    });
    expect(promote.json()).toEqual({ success: true, member: { user_id: member.user.id, role: "admin" } });
    const demoteOwner = await admin.client.inject({
      method: "PATCH",
      url: `/api/workspaces/current/members/${owner.user.id}`,
      payload: { role: "member" },
    });
    expect(demoteOwner.statusCode).toBe(403);
    expect((await admin.client.del(`/api/workspaces/current/members/${owner.user.id}`)).statusCode).toBe(403);
    const transfer = await admin.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id });
    expect(transfer.statusCode).toBe(403);
    expect(transfer.json().error).toBe("Only the workspace owner can transfer ownership.");
    const adminBulk = await admin.client.post("/api/contacts/bulk/operation", {
      operation: "delete",
      contactIds: ids.slice(1),
    });
    expect(adminBulk.json()).toMatchObject({ success: true, deleted: 2 });

    // owner: transfers ownership to the admin and becomes an admin; the owner cannot leave, others can
    expect((await owner.client.post("/api/workspaces/current/leave")).statusCode).toBe(400);
    const tr = await owner.client.post("/api/workspaces/current/transfer", { user_id: admin.user.id });
    expect(tr.statusCode, tr.body).toBe(200);
    const roles = (await admin.client.get("/api/workspaces/current/members")).json().members as {
      user_id: string;
      role: string;
    }[];
    expect(Object.fromEntries(roles.map((m) => [m.user_id, m.role]))).toEqual({
      [owner.user.id]: "admin",
      [admin.user.id]: "owner",
      [member.user.id]: "admin",
    });
    expect((await member.client.post("/api/workspaces/current/leave")).statusCode).toBe(200);
    expect((await member.client.get("/api/auth/me")).json().workspace.id).toBe(member.user.id);
  });

  it("bad input gets a sentence, never a 500", async () => {
    const owner = await signUp(t.app);
    await setPlan(owner.user.id, "business");
    const cases: [unknown, string][] = [
      [{ email: "nope", role: "member" }, "Please enter a valid email address"],
      [{ email: uniqueEmail(), role: "owner" }, "Role must be admin or member"],
      [[1, 2], "The request body must be a JSON object"],
    ];
    for (const [payload, message] of cases) {
      const res = await owner.client.post("/api/workspaces/current/invites", payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain(message.split(":")[0]!);
    }
    expect((await owner.client.del("/api/workspaces/current/members/12")).statusCode).toBe(404);
    const patch = await owner.client.inject({
      method: "PATCH",
      url: "/api/workspaces/current",
      payload: { brand_color: "red" },
    });
    expect(patch.json()).toEqual({
      success: false,
      error: "Brand colour must look like #1a2b3c",
    });
  });
});

describe("seat limits (spec section 9: Free and Professional 1 seat, Business 5, Enterprise unlimited)", () => {
  it("refuses an invite over the plan's seats with 402 naming the plan that allows more; pending invites hold seats", async () => {
    const owner = await signUp(t.app);
    const free = await owner.client.post("/api/workspaces/current/invites", {
      email: uniqueEmail(),
      role: "member",
    });
    expect(free.statusCode).toBe(402);
    expect(free.json().error).toBe(
      "Your Free plan includes 1 team member, counting the owner, and it is taken. Upgrade to Business for up to 5 team members.",
    );
    await setPlan(owner.user.id, "professional");
    expect(
      (await owner.client.post("/api/workspaces/current/invites", { email: uniqueEmail(), role: "member" }))
        .statusCode,
    ).toBe(402);
    await setPlan(owner.user.id, "business");
    // owner + 4 pending invites = 5 seats: the last allowed; the 5th invite is the first refused
    for (let i = 0; i < 4; i++) {
      const res = await owner.client.post("/api/workspaces/current/invites", {
        email: uniqueEmail(`s${i}`),
        role: "member",
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const over = await owner.client.post("/api/workspaces/current/invites", {
      email: uniqueEmail(),
      role: "member",
    });
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toContain("Upgrade to Enterprise for unlimited team members.");
    // revoking one frees its seat
    const pending = (await owner.client.get("/api/workspaces/current/members")).json().invites as {
      id: string;
    }[];
    expect(pending).toHaveLength(4);
    expect((await owner.client.del(`/api/workspaces/current/invites/${pending[0]!.id}`)).statusCode).toBe(
      200,
    );
    expect(
      (await owner.client.post("/api/workspaces/current/invites", { email: uniqueEmail(), role: "member" }))
        .statusCode,
    ).toBe(201);
    await setPlan(owner.user.id, "enterprise");
    expect(
      (await owner.client.post("/api/workspaces/current/invites", { email: uniqueEmail(), role: "member" }))
        .statusCode,
    ).toBe(201);
  });

  it("concurrent invites cannot pass the seat limit", async () => {
    const owner = await signUp(t.app);
    await setPlan(owner.user.id, "business");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        owner.client.post("/api/workspaces/current/invites", { email: uniqueEmail(`c${i}`), role: "member" }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(4);
    expect(results.filter((r) => r.statusCode === 402)).toHaveLength(4);
  });
});

describe("an invitation belongs to the invited address", () => {
  it("another signed-in account holding the link is refused with the masked address and does not join; the invitee joins once verified", async () => {
    const owner = await signUp(t.app, { name: "Ivy Owner", business_name: "Ivy Bakery" });
    await setPlan(owner.user.id, "business");
    const inviteeEmail = uniqueEmail("alice");
    const token = await invite(owner.client, inviteeEmail);
    const masked = "a•••@example.com";
    const refusal = `This invitation was sent to ${masked}. Sign in with that address to accept it.`;

    // a stranger (verified, another address) with the forwarded link: REST and tRPC refuse
    const stranger = await signUp(t.app, { name: "Sam Stranger" });
    const refused = await stranger.client.post(`/api/invites/${token}/accept`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe(refusal);
    expect(refused.body).not.toContain(inviteeEmail);
    const viaTrpc = await trpcCall(stranger.client, "workspaces.acceptInvite", { token });
    expect(viaTrpc.status).toBe(403);
    expect(viaTrpc.error?.message).toBe(refusal);
    // the invite page tells the stranger the same, without the full address
    const page = (await stranger.client.get(`/api/invites/${token}`)).json().invite;
    expect(page).toMatchObject({ email: masked, viewer: "other_account", refusal, status: "pending" });
    expect(JSON.stringify(page)).not.toContain(inviteeEmail);
    // not a member, cannot switch there, the invite is still open for its invitee
    const strangerSpaces = (await stranger.client.get("/api/workspaces")).json().workspaces as {
      id: string;
    }[];
    expect(strangerSpaces.map((w) => w.id)).not.toContain(owner.user.id);
    expect((await stranger.client.post(`/api/workspaces/${owner.user.id}/switch`)).statusCode).toBe(404);
    const team = (await owner.client.get("/api/workspaces/current/members")).json();
    expect(team.members.map((m: { user_id: string }) => m.user_id)).not.toContain(stranger.user.id);
    expect(team.invites.map((i: { email: string }) => i.email)).toEqual([inviteeEmail]);

    // someone registering the invited address (other letter case) cannot join before confirming it
    const invitee = await signUp(
      t.app,
      { name: "Alice Invitee", email: inviteeEmail.toUpperCase(), business_name: "" },
      { verify: false },
    );
    const early = await invitee.client.post(`/api/invites/${token}/accept`);
    expect(early.statusCode).toBe(403);
    expect(early.json().error).toBe(
      `Please confirm your email address first: open the link we emailed to ${inviteeEmail.toUpperCase()}, then accept the invitation here.`,
    );
    expect((await invitee.client.get(`/api/invites/${token}`)).json().invite).toMatchObject({
      email: inviteeEmail,
      viewer: "invitee",
      refusal: early.json().error,
    });

    // the emailed verification link confirms the address: now the invitee joins
    await verifyEmailThroughOutbox(t.app, inviteeEmail.toUpperCase());
    expect((await invitee.client.get(`/api/invites/${token}`)).json().invite.refusal).toBeNull();
    const joined = await invitee.client.post(`/api/invites/${token}/accept`);
    expect(joined.statusCode, joined.body).toBe(200);
    expect(joined.json().workspace).toMatchObject({ id: owner.user.id, role: "member" });
    const after = (await owner.client.get("/api/workspaces/current/members")).json();
    expect(after.members.map((m: { user_id: string }) => m.user_id)).toContain(invitee.user.id);
    expect(after.members.map((m: { user_id: string }) => m.user_id)).not.toContain(stranger.user.id);
  });
});

describe("invite tokens", () => {
  it("expired, reused, revoked, resent and forged tokens are refused with a sentence", async () => {
    const owner = await signUp(t.app);
    await setPlan(owner.user.id, "business");
    const email = uniqueEmail("inv");
    const token = await invite(owner.client, email);
    const person = await signUp(t.app, { email });

    // forged: 404 for the page and for accepting
    expect(
      (await t.app.inject({ method: "GET", url: "/api/invites/abcdefghijklmnopqrstuvwxyz234567" }))
        .statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: "GET", url: "/api/invites/%00%00" })).statusCode).toBeLessThan(500);
    const forged = await person.client.post("/api/invites/abcdefghijklmnopqrstuvwxyz234567/accept");
    expect(forged.statusCode).toBe(404);
    expect(forged.json().error).toBe("This invitation link is not valid. Ask for a new one.");

    // signed out: accepting needs a session
    expect(
      (
        await t.app.inject({
          method: "POST",
          url: `/api/invites/${token}/accept`,
          headers: { origin: "http://localhost:80" },
        })
      ).statusCode,
    ).toBe(401);

    // expired
    await t.db
      .update(workspaceInvites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(workspaceInvites.workspaceId, owner.user.id));
    expect((await t.app.inject({ method: "GET", url: `/api/invites/${token}` })).json().invite.status).toBe(
      "expired",
    );
    const expired = await person.client.post(`/api/invites/${token}/accept`);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error).toBe("This invitation has expired. Ask for a new one.");

    // resent: a new token and 7 fresh days; the old link no longer works
    const pending = await t.db
      .select()
      .from(workspaceInvites)
      .where(eq(workspaceInvites.workspaceId, owner.user.id));
    // expired invites are not pending any more: make it pending again to test resend of a live invite
    await t.db
      .update(workspaceInvites)
      .set({ expiresAt: new Date(Date.now() + 60_000) })
      .where(eq(workspaceInvites.id, pending[0]!.id));
    const resent = await owner.client.post(`/api/workspaces/current/invites/${pending[0]!.id}/resend`);
    expect(resent.statusCode, resent.body).toBe(200);
    expect(new Date(resent.json().invite.expires_at).getTime()).toBeGreaterThan(
      Date.now() + 6.9 * 24 * 3600 * 1000,
    );
    const outbox = (
      await t.app.inject({
        method: "GET",
        url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`,
      })
    ).json().messages as { body: string }[];
    const tokens = outbox.map((m) => m.body.match(/\/invite\/([a-z2-7]+)/)?.[1]);
    const fresh = tokens.find((x) => x && x !== token)!;
    expect(fresh).toBeTruthy();
    expect((await person.client.post(`/api/invites/${token}/accept`)).statusCode).toBe(404);

    // single use: a second accept of the same token is refused, also by another person
    expect((await person.client.post(`/api/invites/${fresh}/accept`)).statusCode).toBe(200);
    const again = await person.client.post(`/api/invites/${fresh}/accept`);
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe("This invitation has already been used.");
    const thief = await signUp(t.app);
    expect((await thief.client.post(`/api/invites/${fresh}/accept`)).statusCode).toBe(400);

    // revoked
    const email2 = uniqueEmail("rev");
    const token2 = await invite(owner.client, email2);
    const id2 = (await owner.client.get("/api/workspaces/current/members")).json().invites[0].id;
    expect((await owner.client.del(`/api/workspaces/current/invites/${id2}`)).statusCode).toBe(200);
    const p2 = await signUp(t.app, { email: email2 });
    const revoked = await p2.client.post(`/api/invites/${token2}/accept`);
    expect(revoked.statusCode).toBe(400);
    expect(revoked.json().error).toBe("This invitation was revoked. Ask for a new one.");
  });

  it("an existing member cannot be invited twice; the same email cannot hold two pending invites", async () => {
    const owner = await signUp(t.app);
    await setPlan(owner.user.id, "business");
    const self = await owner.client.post("/api/workspaces/current/invites", {
      email: owner.user.email,
      role: "member",
    });
    expect(self.statusCode).toBe(409);
    const email = uniqueEmail();
    await invite(owner.client, email);
    const dup = await owner.client.post("/api/workspaces/current/invites", {
      email: email.toUpperCase(),
      role: "admin",
    });
    expect(dup.statusCode).toBe(409);
  });
});

describe("workspace settings", () => {
  it("renames and brands the workspace; white-label only on Enterprise", async () => {
    const owner = await signUp(t.app);
    const c = authedClient(t.app, owner.cookie);
    const patch = (payload: unknown) =>
      c.inject({ method: "PATCH", url: "/api/workspaces/current", payload: payload as object });
    const ok = await patch({
      name: "Sam's Plumbing",
      sender_name: "Sam at Sam's Plumbing",
      brand_color: "#0a7d4f",
    });
    expect(ok.json().workspace).toMatchObject({
      name: "Sam's Plumbing",
      sender_name: "Sam at Sam's Plumbing",
      brand_color: "#0a7d4f",
      hide_branding: false,
      white_label_available: false,
    });
    const wl = await patch({ hide_branding: true });
    expect(wl.statusCode).toBe(402);
    expect(wl.json().error).toBe(
      "White-label options are not included in your Free plan. Upgrade to Enterprise to use white-label options.",
    );
    await setPlan(owner.user.id, "enterprise");
    expect((await patch({ hide_branding: true })).json().workspace.hide_branding).toBe(true);
    expect((await c.get("/api/auth/me")).json().workspace.name).toBe("Sam's Plumbing");
  });

  it("white label stops while an Enterprise subscription is unpaid or paused (the plan in force is Free), and returns with payment", async () => {
    const owner = await signUp(t.app);
    const c = authedClient(t.app, owner.cookie);
    await setPlan(owner.user.id, "enterprise");
    const on = await c.inject({
      method: "PATCH",
      url: "/api/workspaces/current",
      payload: { hide_branding: true },
    });
    expect(on.json().workspace).toMatchObject({ hide_branding: true, white_label_available: true });
    const status = (s: string) =>
      t.db.update(workspaces).set({ subscriptionStatus: s }).where(eq(workspaces.id, owner.user.id));
    for (const held of ["unpaid", "paused"]) {
      await status(held);
      expect((await c.get("/api/workspaces/current")).json().workspace.white_label_available, held).toBe(
        false,
      );
      expect((await getSenderProfile(t.ctx, owner.user.id)).hideBranding, held).toBe(false);
    }
    await status("active");
    expect((await c.get("/api/workspaces/current")).json().workspace.white_label_available).toBe(true);
    expect((await getSenderProfile(t.ctx, owner.user.id)).hideBranding).toBe(true);
  });
});
