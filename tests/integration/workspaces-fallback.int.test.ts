/**
 * A person left without any workspace (they handed their own over and were then removed from it)
 * gets one new personal workspace on their next requests, also when those requests arrive together,
 * as an open app's queries do (resolveTenant's fallbackWorkspace).
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceMembers } from "../../src/server/db/schema";
import { createTestApp, inviteTokenFor, setPlan, signUp, type TestApp, trpcCall } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Fran hands her own workspace to Olive (invite, accept, transfer) and Olive removes her. */
async function franLeftWithout() {
  const fran = await signUp(t.app, { name: "Fran Freelancer" });
  const olive = await signUp(t.app, { name: "Olive Owner" });
  await setPlan(t, fran.user.id, "business");
  const invited = await fran.client.post("/api/workspaces/current/invites", {
    email: olive.user.email,
    role: "admin",
  });
  expect(invited.statusCode, invited.body).toBe(201);
  const accepted = await olive.client.post(
    `/api/invites/${await inviteTokenFor(t, olive.user.email)}/accept`,
  );
  expect(accepted.statusCode, accepted.body).toBe(200);
  const transfer = await fran.client.post("/api/workspaces/current/transfer", { user_id: olive.user.id });
  expect(transfer.statusCode, transfer.body).toBe(200);
  const removed = await olive.client.del(`/api/workspaces/current/members/${fran.user.id}`);
  expect(removed.statusCode, removed.body).toBe(200);
  return { fran, olive };
}

const membershipsOf = (userId: string) =>
  t.db.select().from(workspaceMembers).where(eq(workspaceMembers.userId, userId));

describe("a person without any workspace", () => {
  it("gets exactly one new personal workspace when several requests arrive at once", async () => {
    for (let run = 0; run < 3; run++) {
      const { fran, olive } = await franLeftWithout();
      expect(await membershipsOf(fran.user.id)).toEqual([]);

      // the app's queries on its next load, side by side: REST and tRPC
      const [current, ...others] = await Promise.all([
        fran.client.get("/api/workspaces/current"),
        fran.client.get("/api/auth/me"),
        fran.client.get("/api/workspaces/current/members"),
        fran.client.get("/api/contacts"),
        trpcCall(fran.client, "workspaces.current", undefined, "query"),
        trpcCall(fran.client, "workspaces.list", undefined, "query"),
      ]);
      expect(current.statusCode, current.body).toBe(200);
      for (const r of others) expect("status" in r ? r.status : r.statusCode).toBe(200);

      const rows = await membershipsOf(fran.user.id);
      expect(rows.map((r) => r.role)).toEqual(["owner"]);
      const own = rows[0]!.workspaceId;
      expect(own).not.toBe(fran.user.id); // that one is Olive's now
      // named after her, not after her business (the workspace she handed over was "Acme" too)
      expect(current.json().workspace).toMatchObject({
        id: own,
        role: "owner",
        name: "Fran Freelancer's workspace",
      });
      const me = (await fran.client.get("/api/auth/me")).json();
      expect(me.workspaces.map((w: { id: string }) => w.id)).toEqual([own]);
      // Olive keeps what Fran handed over
      const oliveMe = (await olive.client.get("/api/auth/me")).json();
      expect(oliveMe.workspaces.map((w: { id: string; role: string }) => [w.id, w.role])).toContainEqual([
        fran.user.id,
        "owner",
      ]);
    }
  });
});
