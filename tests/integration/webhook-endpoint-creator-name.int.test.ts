import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, joinWorkspace, setPlan, signUp, type TestApp, trpcCall } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// Found by a QA pass of a small team's week: after an admin was removed, Settings > Webhooks showed
// his endpoint disabled ("Its creator is no longer an admin of this workspace ...") without saying who
// that creator was, and no endpoint said who had added it. The app's list (not the public API's) now
// gives creator_name and creator_member, shown as "Added by Ben Admin (former member)".

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

type Listed = { id: string; creator_name: string | null; creator_member: boolean };

describe("webhook endpoints say who added them", () => {
  it("an admin's endpoint names him, and once he is removed names him as a former member, over REST and tRPC", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const rx = await webhookReceiver();
    try {
      const created = await ben.client.post("/api/webhook-endpoints", {
        url: rx.url,
        events: ["contact.created"],
      });
      expect(created.statusCode, created.body).toBe(200);
      const id = created.json().endpoint.id as string;
      const find = async () =>
        ((await owner.client.get("/api/webhook-endpoints")).json().endpoints as Listed[]).find(
          (e) => e.id === id,
        );
      expect(await find()).toMatchObject({ creator_name: "Ben Admin", creator_member: true });
      const removed = await owner.client.del(`/api/workspaces/current/members/${ben.user.id}`);
      expect(removed.statusCode, removed.body).toBe(200);
      expect(await find()).toMatchObject({ creator_name: "Ben Admin", creator_member: false });
      const trpc = await trpcCall(owner.client, "webhooks.list", undefined, "query");
      expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
      expect((trpc.data as Listed[]).find((e) => e.id === id)).toMatchObject({
        creator_name: "Ben Admin",
        creator_member: false,
      });
    } finally {
      await rx.close();
    }
  });
});
