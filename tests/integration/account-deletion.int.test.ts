import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiKeys,
  campaignRecipients,
  campaigns,
  contacts,
  outboxMessages,
  users,
  workspaces,
} from "../../src/server/db/schema";
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
import { stripeTestApp, subscribeLocally } from "../stripe-app";
import { uploadTestClip } from "./studio-helpers";

/**
 * Deleting a workspace (Settings > Workspace, owner only, its name typed and the password given) and a whole account
 * (Settings > Profile, the current password and DELETE typed): the subscription ends at the vendor
 * first (a vendor outage deletes nothing), campaigns stop, rows and stored files go, other members are
 * told, and nothing of another workspace is touched.
 */

async function workspaceRow(t: TestApp, id: string) {
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, id));
  return w ?? null;
}
async function contactCount(t: TestApp, workspaceId: string) {
  return (await t.db.select().from(contacts).where(eq(contacts.workspaceId, workspaceId))).length;
}
async function emailsTo(t: TestApp, to: string) {
  return t.db.select().from(outboxMessages).where(eq(outboxMessages.to, to));
}
async function me(client: AuthedClient) {
  return client.get("/api/auth/me");
}
async function addContact(client: AuthedClient, email = uniqueEmail("contact")) {
  const res = await client.post("/api/contacts", { first_name: "Dana", last_name: "Lee", email });
  expect(res.statusCode, res.body).toBe(200);
}
describe("deleting a workspace (local providers)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it("only the owner, with the name typed exactly and the current password; members lose access and are told; other workspaces keep everything", async () => {
    const name = `Harbour Plumbing ${Date.now()}`;
    const owner = await signUp(t.app, { business_name: name });
    const wsId = owner.user.id;
    await addContact(owner.client);
    await setPlan(t, wsId, "business");
    const admin = await joinWorkspace(t, owner.client, "admin");
    expect((await me(admin.client)).json().workspace.id).toBe(wsId);
    const stranger = await signUp(t.app);
    await addContact(stranger.client);

    const byAdmin = await trpcCall(admin.client, "account.deleteWorkspace", {
      workspace_id: wsId,
      confirm_name: name,
      password: admin.password,
    });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.error?.message).toBe("Only the workspace owner can delete the workspace.");
    const misspelt = await trpcCall(owner.client, "account.deleteWorkspace", {
      workspace_id: wsId,
      confirm_name: name.toUpperCase(),
      password: owner.password,
    });
    expect(misspelt.status).toBe(400);
    expect(misspelt.error?.message).toBe(`Type the workspace's name, ${name}, exactly as it is to confirm.`);
    // the owner's session alone is not enough: the current password is asked again
    const noPassword = await trpcCall(owner.client, "account.deleteWorkspace", {
      workspace_id: wsId,
      confirm_name: name,
      password: "",
    });
    expect(noPassword.status).toBe(400);
    expect(noPassword.error?.message).toBe("Enter your current password to delete this workspace.");
    const wrongPassword = await trpcCall(owner.client, "account.deleteWorkspace", {
      workspace_id: wsId,
      confirm_name: name,
      password: "not-the-password",
    });
    expect(wrongPassword.status).toBe(403);
    expect(wrongPassword.error?.message).toBe(
      "That is not your current password. Enter your current password to delete this workspace.",
    );
    expect(await workspaceRow(t, wsId)).not.toBeNull();

    const done = await trpcCall(owner.client, "account.deleteWorkspace", {
      workspace_id: wsId,
      confirm_name: ` ${name} `,
      password: owner.password,
    });
    expect(done.status, JSON.stringify(done.error)).toBe(200);
    expect(done.data).toEqual({ success: true, deleted: { id: wsId, name }, notified: 1 });
    expect(await workspaceRow(t, wsId)).toBeNull();
    expect(await contactCount(t, wsId)).toBe(0);
    // the stranger's workspace is untouched
    expect(await contactCount(t, stranger.user.id)).toBe(1);
    // the admin is back in their own workspace, and was told who deleted which workspace
    const adminMe = await me(admin.client);
    expect(adminMe.statusCode).toBe(200);
    expect(adminMe.json().workspace.id).toBe(admin.user.id);
    const [notice] = await emailsTo(t, admin.user.email).then((m) =>
      m.filter((x) => x.subject === `${name} was deleted on Pitchwise`),
    );
    expect(notice?.body).toContain(`${owner.user.name} deleted the ${name} workspace on Pitchwise`);
    // the owner, whose only workspace it was, is signed in still, in a new empty workspace
    const ownerMe = await me(owner.client);
    expect(ownerMe.statusCode).toBe(200);
    expect(ownerMe.json().workspace.id).not.toBe(wsId);
    expect(ownerMe.json().workspace.role).toBe("owner");
    expect(await contactCount(t, ownerMe.json().workspace.id)).toBe(0);
  });

  it("cancels its scheduled campaign (nothing is sent when its time comes) and removes its media files from storage", async () => {
    const name = `Deletion Media ${Date.now()}`;
    const owner = await signUp(t.app, { business_name: name });
    const wsId = owner.user.id;
    const recipient = uniqueEmail("later");
    const launch = await owner.client.post("/api/campaigns/email/launch", {
      campaignName: "Later",
      subject: "S",
      body: "B",
      contacts: [{ name: "L", email: recipient }],
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(launch.statusCode, launch.body).toBe(200);
    const campaignId = launch.json().campaignId as number;
    const mediaId = await uploadTestClip(owner.client);
    const libraryDir = path.join(t.env.DATA_DIR, "media", "u", wsId);
    expect(fs.readdirSync(path.join(libraryDir, "m", String(mediaId))).length).toBeGreaterThan(0);
    // voicemail audio as it was stored before it was kept per workspace (voicemail-notice/<campaign
    // id>-<media id>-<hash>.mp3): one of this workspace's voicemail campaign, one of another's
    const stranger = await signUp(t.app);
    const voicemailOf = async (workspaceId: string) => {
      const [c] = await t.db
        .insert(campaigns)
        .values({ workspaceId, name: "Drop", channel: "voicemail", status: "completed", content: {} })
        .returning({ id: campaigns.id });
      const key = `voicemail-notice/${c!.id}-${mediaId}-${"a1".repeat(12)}.mp3`;
      await t.providers.storage.put(key, Readable.from([Buffer.from("mp3")]), { contentType: "audio/mpeg" });
      return key;
    };
    const ours = await voicemailOf(wsId);
    const theirs = await voicemailOf(stranger.user.id);

    const done = await trpcCall(owner.client, "account.deleteWorkspace", {
      workspace_id: wsId,
      confirm_name: name,
      password: owner.password,
    });
    expect(done.status, JSON.stringify(done.error)).toBe(200);
    expect(fs.existsSync(libraryDir)).toBe(false);
    expect(await t.providers.storage.stat(ours)).toBeNull();
    expect(await t.providers.storage.stat(theirs)).not.toBeNull();
    expect(await t.db.select().from(campaigns).where(eq(campaigns.id, campaignId))).toEqual([]);
    // the campaign's time comes: its fan-out finds nothing to send
    await t.jobs.runDeferred();
    expect(await emailsTo(t, recipient)).toEqual([]);
  });
});

describe("deleting an account (local providers)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it("needs DELETE typed and the current password; then the account, its own workspace and its sessions are gone", async () => {
    const u = await subscribeLocally(t, "professional");
    const wsId = u.user.id;
    await addContact(u.client);
    const preview = await trpcCall(u.client, "account.deletionPreview", undefined, "query");
    expect(preview.data).toEqual({
      blocking: [],
      deleted: [{ id: wsId, name: "Acme", plan: "professional", subscribed: true }],
      left: [],
    });

    const noWord = await trpcCall(u.client, "account.deleteAccount", {
      password: u.password,
      confirm: "delete me",
    });
    expect(noWord.status).toBe(400);
    expect(noWord.error?.message).toBe("Type DELETE to confirm that the account should be deleted.");
    const wrong = await trpcCall(u.client, "account.deleteAccount", {
      password: "not-my-password",
      confirm: "DELETE",
    });
    expect(wrong.status).toBe(403);
    expect(wrong.error?.message).toBe(
      "That is not your current password. Enter your current password to delete your account.",
    );
    expect(await workspaceRow(t, wsId)).not.toBeNull();

    const res = await u.client.inject({
      method: "POST",
      url: "/trpc/account.deleteAccount",
      payload: { json: { password: u.password, confirm: "DELETE" } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result.data.json).toEqual({ success: true, deleted_workspaces: 1, left_workspaces: 0 });
    // the cookie is cleared and the session no longer exists
    expect(res.cookies.find((c) => c.name === "pw_session")?.value ?? "").toBe("");
    expect((await me(u.client)).statusCode).toBe(401);
    expect(await t.db.select().from(users).where(eq(users.id, u.user.id))).toEqual([]);
    expect(await workspaceRow(t, wsId)).toBeNull();
    expect(await contactCount(t, wsId)).toBe(0);
    // signing in again is refused; the confirmation went to the address
    const login = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: u.user.email, password: u.password },
    });
    expect(login.statusCode).toBe(401);
    const sent = await emailsTo(t, u.user.email);
    expect(sent.some((m) => m.subject === "Your Pitchwise account was deleted")).toBe(true);
  });

  it("an owned workspace with other members blocks it until handed over; then it leaves, its API keys there revoked", async () => {
    const name = `Shared Studio ${Date.now()}`;
    const owner = await signUp(t.app, { business_name: name });
    await setPlan(t, owner.user.id, "business");
    const teammate = await joinWorkspace(t, owner.client, "admin");
    const blocked = await trpcCall(owner.client, "account.deleteAccount", {
      password: owner.password,
      confirm: "DELETE",
    });
    expect(blocked.status).toBe(409);
    expect(blocked.error?.message).toBe(
      `You own ${name}, which has other members. Transfer its ownership (Settings > Team) or delete it (Settings > Workspace) first.`,
    );
    expect((await trpcCall(owner.client, "account.deletionPreview", undefined, "query")).data).toEqual({
      blocking: [{ id: owner.user.id, name, other_members: 1 }],
      deleted: [],
      left: [],
    });

    // the teammate (admin of the shared workspace) makes a key there, then deletes their account
    const key = await teammate.client.post("/api/api-keys", { name: "Zapier", scopes: ["contacts:read"] });
    expect(key.statusCode, key.body).toBe(200);
    const preview = await trpcCall(teammate.client, "account.deletionPreview", undefined, "query");
    expect(preview.data.left).toEqual([{ id: owner.user.id, name, role: "admin" }]);
    expect(preview.data.deleted.map((w: { id: string }) => w.id)).toEqual([teammate.user.id]);
    const gone = await trpcCall(teammate.client, "account.deleteAccount", {
      password: teammate.password,
      confirm: "DELETE",
    });
    expect(gone.status, JSON.stringify(gone.error)).toBe(200);
    expect(gone.data).toEqual({ success: true, deleted_workspaces: 1, left_workspaces: 1 });
    // the shared workspace stays with its owner; the teammate's key is revoked and no longer works
    expect(await workspaceRow(t, owner.user.id)).not.toBeNull();
    expect(await workspaceRow(t, teammate.user.id)).toBeNull();
    const [k] = await t.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.workspaceId, owner.user.id), eq(apiKeys.name, "Zapier")));
    expect(k?.revokedAt).not.toBeNull();
    const call = await t.app.inject({
      method: "GET",
      url: "/api/v1/contacts",
      headers: { authorization: `Bearer ${key.json().key}` },
    });
    expect(call.statusCode).toBe(401);
    const members = (await owner.client.get("/api/workspaces/current/members")).json().members;
    expect(members.map((m: { user_id: string }) => m.user_id)).toEqual([owner.user.id]);
    // now alone, the owner can delete theirs
    const ok = await trpcCall(owner.client, "account.deleteAccount", {
      password: owner.password,
      confirm: "DELETE",
    });
    expect(ok.status, JSON.stringify(ok.error)).toBe(200);
  });
});

describe("deleting an account with a Stripe subscription (real SDK, fake Stripe API)", () => {
  const { app: s, deliver, provider } = stripeTestApp("whsec_account_deletion", "sk_test_account_deletion");

  /** Opens a Stripe checkout of `plan` for the signed-in `u`; returns the session's id. */
  async function openCheckout(u: AuthedClient, plan: "professional" | "business" = "professional") {
    const res = await u.post("/api/payment/create-checkout-session", {
      priceId: `price_${plan}`,
      planName: plan,
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().url as string).split("/").pop()!;
  }

  async function subscriber(plan: "professional" | "business" = "professional") {
    const u = await signUp(s.t.app);
    const session = await openCheckout(u.client, plan);
    for (const e of s.fake.completeCheckout(session)) await deliver(e);
    return { ...u, subscriptionId: s.fake.sessions.get(session)!.subscription as string };
  }

  /** `owner` invites a new account as a member; returns it with the invitation's token. */
  async function invited(owner: AuthedClient) {
    const person = await signUp(s.t.app);
    const inv = await owner.post("/api/workspaces/current/invites", {
      email: person.user.email,
      role: "member",
    });
    expect(inv.statusCode, inv.body).toBe(201);
    return { ...person, token: await inviteTokenFor(s.t, person.user.email) };
  }

  /** Asks to delete `u`'s account while the fake Stripe answers 500 to the SDK's every try. */
  function deleteAccountWhileStripeIsDown(u: { client: AuthedClient; password: string }) {
    const down = { status: 500, json: { error: { type: "api_error", message: "Stripe is down" } } };
    s.fake.failNext(down, down, down);
    return trpcCall(u.client, "account.deleteAccount", { password: u.password, confirm: "DELETE" });
  }

  /** The amounts (cents) of the refunds the fake Stripe made since it had made `before`. */
  function refundsSince(before: number) {
    return s.fake.refunds.slice(before).map((r) => r.amount);
  }

  it("Stripe unreachable: nothing is deleted; once it answers, the subscription is cancelled now, then everything goes", async () => {
    const u = await subscriber();
    const failed = await deleteAccountWhileStripeIsDown(u);
    // BAD_GATEWAY: tRPC has no 502 and answers INTERNAL_SERVER_ERROR (500) with the sentence
    expect(failed.status).toBe(500);
    expect(failed.error?.message).toBe(
      "The payment provider could not be reached to end this workspace's subscription, so nothing was deleted. Please try again in a minute.",
    );
    expect(await workspaceRow(s.t, u.user.id)).not.toBeNull();
    expect((await me(u.client)).statusCode).toBe(200);
    expect(s.fake.subscriptions.get(u.subscriptionId)!.status).toBe("active");

    const ok = await trpcCall(u.client, "account.deleteAccount", { password: u.password, confirm: "DELETE" });
    expect(ok.status, JSON.stringify(ok.error)).toBe(200);
    const cancels = s.fake.requests.filter(
      (r) => r.method === "DELETE" && r.path === `/v1/subscriptions/${u.subscriptionId}`,
    );
    expect(cancels.length).toBeGreaterThanOrEqual(1);
    expect(s.fake.subscriptions.get(u.subscriptionId)!.status).toBe("canceled");
    expect(await workspaceRow(s.t, u.user.id)).toBeNull();
    // Stripe's later event about the ended subscription finds no workspace and is answered 200
    await deliver(s.fake.endSubscription(u.subscriptionId));
  });

  it("an invitation accepted while the deletion runs is refused and the deletion finishes; a failed deletion lets invitations be accepted again", async () => {
    const u = await subscriber("business");
    const guest = await invited(u.client);
    // the guest accepts while the deletion waits on Stripe (after its check that nobody else is a member)
    let accepted: Awaited<ReturnType<AuthedClient["post"]>> | undefined;
    s.fake.beforeReply(
      (r) => r.method === "GET" && r.path === `/v1/subscriptions/${u.subscriptionId}`,
      async () => {
        accepted = await guest.client.post(`/api/invites/${guest.token}/accept`);
      },
    );
    const ok = await trpcCall(u.client, "account.deleteAccount", { password: u.password, confirm: "DELETE" });
    expect(ok.status, JSON.stringify(ok.error)).toBe(200);
    expect(accepted?.statusCode).toBe(400);
    expect(accepted?.json().error).toMatch(
      /is being deleted by its owner, so this invitation can no longer be accepted\.$/,
    );
    expect(await workspaceRow(s.t, u.user.id)).toBeNull();
    expect(s.fake.subscriptions.get(u.subscriptionId)!.status).toBe("canceled");
    expect((await me(guest.client)).json().workspace.id).toBe(guest.user.id);

    // Stripe down: nothing is deleted, and the workspace takes its invitations again
    const v = await subscriber("business");
    const other = await invited(v.client);
    const failed = await deleteAccountWhileStripeIsDown(v);
    expect(failed.status).toBe(500);
    const joined = await other.client.post(`/api/invites/${other.token}/accept`);
    expect(joined.statusCode, joined.body).toBe(200);
    expect(s.fake.subscriptions.get(v.subscriptionId)!.status).toBe("active");
  });

  it("no campaign is launched or resent while the owner deletes the workspace; a failed deletion lets them launch again", async () => {
    /** An email campaign to one new address, sent now, or scheduled an hour ahead. */
    const launch = (c: AuthedClient, scheduledAt?: string) =>
      c.post("/api/campaigns/email/launch", {
        campaignName: "Spring offer",
        subject: "Spring",
        body: "Hello",
        contacts: [{ name: "Robin", email: uniqueEmail("spring") }],
        ...(scheduledAt ? { scheduledAt } : {}),
      });
    const u = await subscriber("business");
    const member = await joinWorkspace(s.t, u.client, "member");
    const name = (await me(u.client)).json().workspace.name as string;
    // a finished campaign with a failed recipient, which "Resend to failed" would send again
    const earlier = await launch(u.client, new Date(Date.now() + 3_600_000).toISOString());
    expect(earlier.statusCode, earlier.body).toBe(200);
    const earlierId = earlier.json().campaignId as number;
    await s.t.db.update(campaigns).set({ status: "completed" }).where(eq(campaigns.id, earlierId));
    await s.t.db
      .update(campaignRecipients)
      .set({ status: "failed", reason: "vendor said no" })
      .where(eq(campaignRecipients.campaignId, earlierId));

    // while the deletion waits on Stripe (after it marked the workspace and before it cancels campaigns)
    let launched: Awaited<ReturnType<AuthedClient["post"]>> | undefined;
    let resent: Awaited<ReturnType<AuthedClient["post"]>> | undefined;
    s.fake.beforeReply(
      (r) => r.method === "GET" && r.path === `/v1/subscriptions/${u.subscriptionId}`,
      async () => {
        launched = await launch(member.client);
        resent = await u.client.post(`/api/campaigns/${earlierId}/resend-failed`);
      },
    );
    const ok = await trpcCall(u.client, "account.deleteWorkspace", {
      workspace_id: u.user.id,
      confirm_name: name,
      password: u.password,
    });
    expect(ok.status, JSON.stringify(ok.error)).toBe(200);
    const refusal = `${name} is being deleted by its owner, so nothing more can be sent from it.`;
    expect(launched?.statusCode, launched?.body).toBe(409);
    expect(launched?.json().error).toBe(refusal);
    expect(resent?.statusCode, resent?.body).toBe(409);
    expect(resent?.json().error).toBe(refusal);
    expect(await workspaceRow(s.t, u.user.id)).toBeNull();

    // Stripe down: nothing is deleted, and the workspace's members launch again
    const v = await subscriber("business");
    const other = await joinWorkspace(s.t, v.client, "member");
    const vName = (await me(v.client)).json().workspace.name as string;
    const down = { status: 500, json: { error: { type: "api_error", message: "Stripe is down" } } };
    s.fake.failNext(down, down, down);
    const failed = await trpcCall(v.client, "account.deleteWorkspace", {
      workspace_id: v.user.id,
      confirm_name: vName,
      password: v.password,
    });
    expect(failed.status).toBe(500);
    const again = await launch(other.client);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().campaignId).toEqual(expect.any(Number));
  });

  it("a checkout paid after its workspace was deleted is ended and refunded; another deployment's checkout is left alone", async () => {
    const u = await signUp(s.t.app);
    // opened in another tab before the deletion, paid after it
    const late = await openCheckout(u.client, "professional");
    const before = s.fake.refunds.length;
    const ok = await trpcCall(u.client, "account.deleteAccount", { password: u.password, confirm: "DELETE" });
    expect(ok.status, JSON.stringify(ok.error)).toBe(200);
    for (const e of s.fake.completeCheckout(late, 4900)) await deliver(e);
    const orphan = s.fake.sessions.get(late)!.subscription as string;
    expect(s.fake.subscriptions.get(orphan)!.status).toBe("canceled");
    expect(refundsSince(before)).toEqual([4900]);
    const afterOrphan = s.fake.refunds.length;

    // a workspace this deployment never had (a Stripe account shared with another deployment)
    const foreign = await provider().client.checkout.sessions.create({
      mode: "subscription",
      success_url: "https://other.example/ok",
      client_reference_id: randomUUID(),
      line_items: [{ price: "price_professional", quantity: 1 }],
    });
    for (const e of s.fake.completeCheckout(foreign.id, 4900)) await deliver(e);
    const theirs = s.fake.sessions.get(foreign.id)!.subscription as string;
    expect(s.fake.subscriptions.get(theirs)!.status).toBe("active");
    expect(refundsSince(afterOrphan)).toEqual([]);
  });

  it("a subscription a checkout made while the deletion ran is ended once the workspace is gone", async () => {
    const owner = await signUp(s.t.app);
    // two checkouts opened before either was paid (two tabs); the first is paid now
    const first = await openCheckout(owner.client, "professional");
    const second = await openCheckout(owner.client, "business");
    for (const e of s.fake.completeCheckout(first)) await deliver(e);
    const u = { ...owner, subscriptionId: s.fake.sessions.get(first)!.subscription as string };
    const before = s.fake.refunds.length;
    let raced = "";
    // while the deletion reads the subscription: the customer ends it and pays the other checkout,
    // so the workspace moves to a new live subscription after the deletion's check of the first
    s.fake.beforeReply(
      (r) => r.method === "GET" && r.path === `/v1/subscriptions/${u.subscriptionId}`,
      async () => {
        await deliver(s.fake.endSubscription(u.subscriptionId));
        for (const e of s.fake.completeCheckout(second, 14900)) await deliver(e);
        raced = s.fake.sessions.get(second)!.subscription as string;
      },
    );
    const ok = await trpcCall(u.client, "account.deleteAccount", { password: u.password, confirm: "DELETE" });
    expect(ok.status, JSON.stringify(ok.error)).toBe(200);
    expect(raced).not.toBe("");
    expect(await workspaceRow(s.t, u.user.id)).toBeNull();
    expect(s.fake.subscriptions.get(raced)!.status).toBe("canceled");
    expect(refundsSince(before)).toEqual([14900]);
  });
});
