/**
 * A browser tab that shows one workspace while the session now works in another (switched in another
 * tab, or the person was removed) is refused, 409 with the active workspace named, and nothing of the
 * call is done (workspaces.service assertShownWorkspace; lib/shown-workspace). Before, the tab's next
 * action landed in the other workspace while the tab still named the first.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { createTestApp, joinWorkspace, setPlan, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const HEADER = "x-workspace-id";
/** Addresses unique to this run (a reused test database keeps earlier runs' contacts). */
const run = Date.now().toString(36);
const at = (name: string) => `${name}-${run}@tab.test`;

/** A tRPC mutation as a tab sends it: its workspace in the header (none: an outside client). */
async function tabMutation(
  client: Awaited<ReturnType<typeof signUp>>["client"],
  path: string,
  input: unknown,
  shown?: string,
) {
  const res = await client.inject({
    method: "POST",
    url: `/trpc/${path}`,
    payload: { json: input },
    headers: shown ? { [HEADER]: shown } : {},
  });
  const body = res.json();
  return {
    status: res.statusCode,
    data: body.result?.data?.json,
    error: body.error?.json as
      | { message: string; data: { workspaceChanged: { id: string; name: string } | null } }
      | undefined,
  };
}

const contactsNamed = (email: string) =>
  t.db.select({ workspaceId: contacts.workspaceId }).from(contacts).where(eq(contacts.email, email));

/** Olive's workspace (Business) with Mia as a member; Mia's session works in it after accepting. */
async function oliveAndMia() {
  const olive = await signUp(t.app, { name: "Olive Owner", business_name: "Olive Plumbing" });
  await setPlan(t, olive.user.id, "business");
  const mia = await joinWorkspace(t, olive.client, "member", {
    name: "Mia Member",
    business_name: "Mia Design",
  });
  return { olive, mia, shared: olive.user.id, own: mia.user.id };
}

describe("a tab showing a workspace the session no longer works in", () => {
  it("is refused after another tab switched workspace; nothing is created anywhere", async () => {
    const { mia, shared, own } = await oliveAndMia();
    // the tab shows the shared workspace and works there
    const first = await tabMutation(
      mia.client,
      "crm.create",
      { first_name: "Ada", email: at("ada") },
      shared,
    );
    expect(first.status, JSON.stringify(first.error)).toBe(200);

    // another tab switches the session to Mia's own workspace
    const switched = await tabMutation(mia.client, "workspaces.switch", { workspaceId: own }, own);
    expect(switched.status, JSON.stringify(switched.error)).toBe(200);

    // the first tab, still showing the shared workspace, adds a contact: refused, nothing created
    const stale = await tabMutation(mia.client, "crm.create", { first_name: "Bo", email: at("bo") }, shared);
    expect(stale.status).toBe(409);
    expect(stale.error?.message).toMatch(/now working in ‘Mia Design’.*another tab.*Nothing was changed/);
    expect(stale.error?.data.workspaceChanged).toEqual({ id: own, name: "Mia Design" });
    expect(await contactsNamed(at("bo"))).toEqual([]);

    // the same through REST (uploads and the app's other REST calls), and a download link's parameter
    const rest = await mia.client.inject({
      method: "POST",
      url: "/api/contacts",
      payload: { first_name: "Cy", email: at("cy") },
      headers: { [HEADER]: shared },
    });
    expect(rest.statusCode).toBe(409);
    expect(rest.json()).toMatchObject({ success: false, workspace_changed: { id: own, name: "Mia Design" } });
    expect(await contactsNamed(at("cy"))).toEqual([]);
    const exported = await mia.client.get(`/api/contacts/export.csv?workspace=${shared}`);
    expect(exported.statusCode).toBe(409);
    const results = await mia.client.get(`/api/campaigns/1/recipients.csv?workspace=${shared}`);
    expect(results.statusCode).toBe(409);
    // a query too (the dialog appears when the tab refetches)
    const me = await mia.client.inject({
      method: "GET",
      url: "/trpc/auth.me",
      headers: { [HEADER]: shared },
    });
    expect(me.statusCode).toBe(409);

    // a tab showing the active workspace, and outside clients (no header), work as before
    const fresh = await tabMutation(mia.client, "crm.create", { first_name: "Di", email: at("di") }, own);
    expect(fresh.status, JSON.stringify(fresh.error)).toBe(200);
    const outside = await mia.client.post("/api/contacts", { first_name: "Ed", email: at("ed") });
    expect(outside.statusCode, outside.body).toBe(200);
    expect(await contactsNamed(at("di"))).toEqual([{ workspaceId: own }]);
    expect(await contactsNamed(at("ed"))).toEqual([{ workspaceId: own }]);
    // the export's workspace parameter is not a filter: the tab's own workspace exports as before
    const ownExport = await mia.client.get(
      `/api/contacts/export.csv?workspace=${own}&search=${encodeURIComponent(at("di"))}`,
    );
    expect(ownExport.statusCode, ownExport.body).toBe(200);
    expect(ownExport.body).toContain(at("di"));
    expect(ownExport.body).not.toContain(at("ed"));

    // the stale tab may switch the session back to the workspace it shows, then it works again
    const back = await tabMutation(mia.client, "workspaces.switch", { workspaceId: shared }, shared);
    expect(back.status, JSON.stringify(back.error)).toBe(200);
    const again = await tabMutation(mia.client, "crm.create", { first_name: "Bo", email: at("bo") }, shared);
    expect(again.status, JSON.stringify(again.error)).toBe(200);
    expect(await contactsNamed(at("bo"))).toEqual([{ workspaceId: shared }]);
  });

  it("is refused after the person was removed from the workspace the tab shows", async () => {
    const { olive, mia, shared, own } = await oliveAndMia();
    const removed = await olive.client.del(`/api/workspaces/current/members/${mia.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);

    const stale = await tabMutation(mia.client, "crm.create", { first_name: "Fe", email: at("fe") }, shared);
    expect(stale.status).toBe(409);
    expect(stale.error?.data.workspaceChanged).toEqual({ id: own, name: "Mia Design" });
    expect(await contactsNamed(at("fe"))).toEqual([]);
    // switching back is refused without revealing anything: she is no longer a member
    const back = await tabMutation(mia.client, "workspaces.switch", { workspaceId: shared }, shared);
    expect(back.status).toBe(404);
    expect(
      await t.db
        .select()
        .from(contacts)
        .where(and(eq(contacts.workspaceId, own), eq(contacts.email, at("fe")))),
    ).toEqual([]);
  });
});
