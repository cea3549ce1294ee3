import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceInvites, workspaces } from "../../src/server/db/schema";
import { createTestApp, type TestApp, uniqueEmail } from "../helpers";
import { subscribeLocally } from "../stripe-app";

/**
 * The local billing portal checks a plan change against the workspace's seats (members and pending
 * invitations), and the plan is then written by the payment event's delivery. An invitation sent at
 * the same moment used to pass its own seat check against the old plan between the two, so a
 * Business workspace moved to Professional (1 team member) holding an invitation it had no seat for.
 * The check and the delivery now hold the workspace's seat-change lock, which invitations take too:
 * whichever comes second is checked against what the first did.
 */
describe("a local-portal plan change and an invitation sent at the same moment", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("never both pass: the workspace never ends on a plan with fewer seats than it uses", async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 12; round++) {
      // a Business workspace (5 team members) of one: Professional (1) fits until someone is invited
      const owner = await subscribeLocally(t, "business");
      const [change, invite] = await Promise.all([
        owner.client.inject({
          method: "POST",
          url: "/local-portal/change",
          payload: { plan: "professional" },
        }),
        owner.client.post("/api/workspaces/current/invites", { email: uniqueEmail("race"), role: "member" }),
      ]);
      const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, owner.user.id));
      const pending = await t.db
        .select()
        .from(workspaceInvites)
        .where(and(eq(workspaceInvites.workspaceId, owner.user.id), isNull(workspaceInvites.acceptedAt)));
      outcomes.push(`${change.statusCode}/${invite.statusCode}`);
      // never both: either the plan changed and the invitation was refused (no seat on Professional,
      // or refused while the change ran), or the change was refused for the invitation's seat
      if (change.statusCode === 200) {
        expect(w?.plan).toBe("professional");
        expect(pending).toHaveLength(0);
        if (invite.statusCode === 409)
          expect(invite.json().error).toContain(
            "plan is being changed right now. Send the invitation again in a moment.",
          );
        else expect(invite.statusCode, invite.body).toBe(402);
      } else {
        expect(change.statusCode, change.body).toBe(409);
        expect(change.body).toContain(
          "Professional includes 1 team member; this workspace has 2 (1 member and 1 pending invitation).",
        );
        expect(invite.statusCode, invite.body).toBe(201);
        expect(w?.plan).toBe("business");
        expect(pending).toHaveLength(1);
      }
    }
    expect(outcomes).toHaveLength(12);
    // the workspace can invite again once the change is done: a Business one of one has seats
    const owner = await subscribeLocally(t, "business");
    const changed = await owner.client.inject({
      method: "POST",
      url: "/local-portal/change",
      payload: { plan: "enterprise" },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const after = await owner.client.post("/api/workspaces/current/invites", {
      email: uniqueEmail("after"),
      role: "member",
    });
    expect(after.statusCode, after.body).toBe(201);
  });
});
