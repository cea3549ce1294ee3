/**
 * Settings > Team says "N of M seats used, pending invitations included" to everyone in the
 * workspace. Pending invitations are listed only for owners and admins, but they hold seats for a
 * member's view too: a member sees the same count as the owner and as Billing's usage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestApp,
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

describe("seats in use as a member sees them", () => {
  it("count the pending invitations a member is not shown", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    const mel = await joinWorkspace(t, owner.client, "member", { name: "Mel Member" });
    for (const email of [uniqueEmail("pia"), uniqueEmail("pat")]) {
      const sent = await owner.client.post("/api/workspaces/current/invites", { email });
      expect(sent.statusCode, sent.body).toBe(201);
    }

    const ownerView = (await owner.client.get("/api/workspaces/current/members")).json();
    expect(ownerView.seats).toEqual({ used: 4, limit: 5, full: false });
    const melView = (await mel.client.get("/api/workspaces/current/members")).json();
    expect(melView.invites).toEqual([]); // a member is not shown who is invited
    expect(melView.seats).toEqual({ used: 4, limit: 5, full: false });
    const rpc = await trpcCall(mel.client, "workspaces.members", undefined, "query");
    expect(rpc.data.seats).toEqual({ used: 4, limit: 5, full: false });
    const usage = (await mel.client.get("/api/billing/usage")).json();
    expect(usage.usage.seats).toEqual({ used: melView.seats.used, limit: melView.seats.limit });
  });

  it("an invitation to the address a member moves to is revoked: it holds no seat and cannot be used", async () => {
    // Mel is a member; an invitation to mel's other address waits. Mel changes her email to it: the
    // invitation can no longer be accepted (she is a member) nor resent (409), so it would hold a seat
    // until it expires
    const owner = await signUp(t.app, { name: "Owen Owner" });
    await setPlan(t, owner.user.id, "business");
    const mel = await joinWorkspace(t, owner.client, "member", { name: "Mel Moving" });
    const workAddress = uniqueEmail("mel-work");
    expect(
      (await owner.client.post("/api/workspaces/current/invites", { email: workAddress })).statusCode,
    ).toBe(201);
    expect((await owner.client.get("/api/workspaces/current/members")).json().seats.used).toBe(3);

    const moved = await mel.client.put("/api/user/profile", {
      name: "Mel Moving",
      email: workAddress.toUpperCase(),
      currentPassword: mel.password,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const view = (await owner.client.get("/api/workspaces/current/members")).json();
    expect(view.invites).toEqual([]);
    expect(view.seats).toEqual({ used: 2, limit: 5, full: false });
    expect((await owner.client.get("/api/billing/usage")).json().usage.seats.used).toBe(2);
  });
});
