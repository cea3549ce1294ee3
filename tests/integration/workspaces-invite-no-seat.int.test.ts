/**
 * An invitation whose workspace has since moved to a plan with fewer seats. The invite page used to
 * answer `refusal: null` and offer "Accept and join", and the accept then failed with a 402 written
 * for the workspace's owner ("Your Professional plan includes 1 team member ... Upgrade to Business")
 * and `actor_can_pay` true, worked out from the invitee's own workspace. Now the page says at once that
 * the workspace has no free seat and to ask its owner (`refusal_kind: "no_seat"`), the accept answers
 * that sentence with a 403 (REST and tRPC alike), and once a seat is free again the invitee joins.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceMembers } from "../../src/server/db/schema";
import {
  createTestApp,
  inviteTokenFor,
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

const NO_SEAT =
  "Alder Bakery has no free seat on its current plan, so you cannot join yet. Ask the workspace owner to upgrade the plan or free a seat, then accept again.";

describe("accepting an invitation after the workspace's plan lost seats", () => {
  it("the invite page says there is no free seat, the accept is refused with that sentence, and it works once a seat is back", async () => {
    const owner = await signUp(t.app, { name: "Alder Owner", business_name: "Alder Bakery" });
    await setPlan(t, owner.user.id, "business");
    const emails = [uniqueEmail("seat-a"), uniqueEmail("seat-b")];
    for (const email of emails) {
      const sent = await owner.client.post("/api/workspaces/current/invites", { email, role: "member" });
      expect(sent.statusCode, sent.body).toBe(201);
    }
    // Professional has one seat: the owner's
    await setPlan(t, owner.user.id, "professional");

    const ann = await signUp(t.app, { name: "Ann Invitee", email: emails[0] as string, business_name: "" });
    const token = await inviteTokenFor(t, emails[0] as string);
    const page = await ann.client.get(`/api/invites/${token}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().invite).toMatchObject({
      viewer: "invitee",
      status: "pending",
      refusal: NO_SEAT,
      refusal_kind: "no_seat",
    });

    const rest = await ann.client.post(`/api/invites/${token}/accept`);
    expect(rest.statusCode, rest.body).toBe(403);
    expect(rest.json()).toMatchObject({ success: false, error: NO_SEAT });
    expect(rest.json().plan_refusal).toBeUndefined();
    const trpc = await trpcCall(ann.client, "workspaces.acceptInvite", { token });
    expect(trpc.status).toBe(403);
    expect(trpc.error?.message).toBe(NO_SEAT);
    const joined = () =>
      t.db
        .select()
        .from(workspaceMembers)
        .where(
          and(eq(workspaceMembers.workspaceId, owner.user.id), eq(workspaceMembers.userId, ann.user.id)),
        );
    expect(await joined()).toHaveLength(0);

    // the invitation stays open: back on Business, the same link joins
    await setPlan(t, owner.user.id, "business");
    const again = (await ann.client.get(`/api/invites/${token}`)).json().invite;
    expect(again).toMatchObject({ refusal: null, refusal_kind: null });
    const ok = await ann.client.post(`/api/invites/${token}/accept`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await joined()).toHaveLength(1);
  });
});
