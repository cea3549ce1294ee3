import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../src/server/db/schema";
import {
  type AuthedClient,
  createTestApp,
  inviteTokenFor,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
} from "../helpers";

// The API keys a person created in a workspace are revoked when they are removed from it or leave it
// (as GitHub and Slack end user-bound tokens), in the removal's transaction: marked revoked with the
// reason, kept in the list, and not brought back when the person is invited again. Keys made by the
// owner and by other admins keep working. Before, a departed admin's key was only refused while they
// were away (the creator's membership checked on each request) and worked again once they were
// re-invited as an admin, its row never marked revoked.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function createKey(client: AuthedClient, name: string) {
  const res = await client.post("/api/api-keys", { name, scopes: ["contacts:read"] });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().key as string;
}

const contactsWith = (key: string) =>
  t.app.inject({ method: "GET", url: "/api/v1/contacts", headers: { authorization: `Bearer ${key}` } });

const statusWith = async (key: string) => (await contactsWith(key)).statusCode;

type ListedKey = {
  prefix: string;
  revoked_at: string | null;
  revoked_reason: string | null;
  creator_name: string | null;
};
async function listed(client: AuthedClient): Promise<Record<string, ListedKey>> {
  const res = await client.get("/api/api-keys");
  expect(res.statusCode, res.body).toBe(200);
  return Object.fromEntries((res.json().apiKeys as ListedKey[]).map((k) => [k.prefix, k]));
}
const prefixOf = (key: string) => key.slice(0, 12);

/** The stored rows of `keys` (never deleted by a departure): revoked_at set or not, and the reason. */
async function storedRows(workspaceId: string, keys: string[]) {
  const rows = await t.db.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId));
  return keys.map((k) => {
    const row = rows.find((r) => r.prefix === prefixOf(k));
    return row ? { revoked: row.revokedAt !== null, reason: row.revokedReason } : null;
  });
}

/** The owner invites `person` (already signed up) again as admin and they accept. */
async function reinviteAsAdmin(
  owner: AuthedClient,
  person: { user: { email: string }; client: AuthedClient },
) {
  const inv = await owner.post("/api/workspaces/current/invites", {
    email: person.user.email,
    role: "admin",
  });
  expect(inv.statusCode, inv.body).toBe(201);
  const token = await inviteTokenFor(t, person.user.email);
  const accepted = await person.client.post(`/api/invites/${token}/accept`);
  expect(accepted.statusCode, accepted.body).toBe(200);
}

describe("API keys of a person who leaves the workspace or is removed from it", () => {
  it("removal revokes the removed admin's keys (401, marked revoked with the reason, not back on re-invite); the owner's and other admins' keys keep working", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner", business_name: "Keyed Roofing" });
    const workspaceId = owner.user.id;
    await setPlan(t, workspaceId, "business");
    const ada = await joinWorkspace(t, owner.client, "admin", { name: "Ada Admin", business_name: "" });
    const bo = await joinWorkspace(t, owner.client, "admin", { name: "Bo Admin", business_name: "" });
    const mo = await joinWorkspace(t, owner.client, "member", { name: "Mo Member", business_name: "" });

    const adaKeys = [await createKey(ada.client, "ada sync"), await createKey(ada.client, "ada form")];
    const boKey = await createKey(bo.client, "bo sync");
    const ownerKey = await createKey(owner.client, "owner sync");
    // one of Ada's keys already revoked by hand: it keeps its own reason
    const handRevoked = await createKey(ada.client, "ada old");
    const old = (await listed(owner.client))[prefixOf(handRevoked)]!;
    const oldId = (await t.db.select().from(apiKeys).where(eq(apiKeys.prefix, old.prefix)))[0]!.id;
    expect((await owner.client.del(`/api/api-keys/${oldId}`)).statusCode).toBe(200);
    for (const k of [...adaKeys, boKey, ownerKey]) expect(await statusWith(k)).toBe(200);

    // what the Team screen's remove confirmation asks (tRPC apiKeys.revokedOnDeparture)
    const count = (client: AuthedClient, userId: string) =>
      trpcCall(client, "apiKeys.revokedOnDeparture", { userId }, "query");
    expect((await count(owner.client, ada.user.id)).data).toEqual({ count: 2 });
    expect((await count(bo.client, ada.user.id)).data).toEqual({ count: 2 });
    expect((await count(owner.client, owner.user.id)).data).toEqual({ count: 1 });
    expect((await count(ada.client, ada.user.id)).data).toEqual({ count: 2 });
    expect((await count(mo.client, mo.user.id)).data).toEqual({ count: 0 });
    // a member may ask only about themselves; a malformed id is a 404, not a 500
    const refused = await count(mo.client, ada.user.id);
    expect(refused.status).toBe(403);
    expect(refused.error?.message).toMatch(/owner or an admin/);
    expect((await count(owner.client, "not-a-uuid")).status).toBe(404);

    // Settings > API keys names each key's creator
    const before = await listed(owner.client);
    expect(before[prefixOf(adaKeys[0]!)]).toMatchObject({ creator_name: "Ada Admin", revoked_at: null });
    expect(before[prefixOf(handRevoked)]).toMatchObject({ revoked_reason: "Revoked by an owner or admin." });

    const removed = await owner.client.del(`/api/workspaces/current/members/${ada.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);

    for (const k of adaKeys) {
      const res = await contactsWith(k);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toBe("This API key has been revoked.");
    }
    expect(await statusWith(boKey)).toBe(200);
    expect(await statusWith(ownerKey)).toBe(200);
    // kept, marked revoked with the reason; the hand-revoked key keeps its own
    expect(await storedRows(workspaceId, [...adaKeys, handRevoked, boKey, ownerKey])).toEqual([
      { revoked: true, reason: "creator_removed" },
      { revoked: true, reason: "creator_removed" },
      { revoked: true, reason: "manual" },
      { revoked: false, reason: null },
      { revoked: false, reason: null },
    ]);
    const after = await listed(owner.client);
    for (const k of adaKeys)
      expect(after[prefixOf(k)]).toMatchObject({
        revoked_at: expect.any(String),
        revoked_reason: "Revoked when its creator was removed from the workspace.",
        creator_name: null,
      });
    expect(after[prefixOf(boKey)]).toMatchObject({ revoked_at: null, creator_name: "Bo Admin" });
    expect(after[prefixOf(ownerKey)]).toMatchObject({ revoked_at: null, creator_name: "Olive Owner" });
    expect((await count(owner.client, ada.user.id)).data).toEqual({ count: 0 });

    // invited again as an admin, Ada does not get her old keys back
    await reinviteAsAdmin(owner.client, ada);
    for (const k of adaKeys) expect(await statusWith(k)).toBe(401);
    expect((await listed(owner.client))[prefixOf(adaKeys[0]!)]).toMatchObject({ creator_name: "Ada Admin" });
    // a key she makes now works
    expect(await statusWith(await createKey(ada.client, "ada new"))).toBe(200);
  });

  it("leaving revokes the leaving admin's keys (also over tRPC); the owner's and other admins' keys keep working", async () => {
    const owner = await signUp(t.app, { name: "Lee Owner", business_name: "Keyed Glazing" });
    const workspaceId = owner.user.id;
    await setPlan(t, workspaceId, "business");
    const cy = await joinWorkspace(t, owner.client, "admin", { name: "Cy Admin", business_name: "" });
    const di = await joinWorkspace(t, owner.client, "admin", { name: "Di Admin", business_name: "" });

    const cyKey = await createKey(cy.client, "cy sync");
    const diKey = await createKey(di.client, "di sync");
    const ownerKey = await createKey(owner.client, "owner sync");

    const left = await cy.client.post("/api/workspaces/current/leave");
    expect(left.statusCode, left.body).toBe(200);
    const res = await contactsWith(cyKey);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toBe("This API key has been revoked.");
    expect(await statusWith(diKey)).toBe(200);
    expect(await statusWith(ownerKey)).toBe(200);
    expect(await storedRows(workspaceId, [cyKey, diKey, ownerKey])).toEqual([
      { revoked: true, reason: "creator_left" },
      { revoked: false, reason: null },
      { revoked: false, reason: null },
    ]);
    expect((await listed(owner.client))[prefixOf(cyKey)]).toMatchObject({
      revoked_reason: "Revoked when its creator left the workspace.",
      creator_name: null,
    });

    // back as an admin: the key stays revoked
    await reinviteAsAdmin(owner.client, cy);
    expect(await statusWith(cyKey)).toBe(401);

    // Di leaves through tRPC (the Team screen's Leave workspace)
    const diLeft = await trpcCall(di.client, "workspaces.leave", undefined);
    expect(diLeft.status, JSON.stringify(diLeft.error)).toBe(200);
    expect(await statusWith(diKey)).toBe(401);
    expect(await statusWith(ownerKey)).toBe(200);
    const [diRow] = await t.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.prefix, prefixOf(diKey))));
    expect(diRow?.revokedReason).toBe("creator_left");
  });
});
