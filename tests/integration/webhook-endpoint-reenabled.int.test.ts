import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthedClient,
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
} from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// Settings > Webhooks' "Added by" became whoever re-enabled an endpoint: re-enabling a removed
// admin's endpoint wrote the owner into its created_by, so the list said "Added by Ana Owner" for
// Ben's endpoint. The creator is kept now; the re-enable is recorded apart (reenabled_by, migration
// 0066), the endpoint acts for that person, and the list says "Re-enabled by Ana Owner".

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

type Listed = {
  id: string;
  enabled: boolean;
  disabled_reason: string | null;
  creator_name: string | null;
  creator_member: boolean;
  reenabled_by_name: string | null;
};
const listed = async (client: AuthedClient, id: string) =>
  ((await client.get("/api/webhook-endpoints")).json().endpoints as Listed[]).find((e) => e.id === id)!;
const patch = (client: AuthedClient, id: string, payload: object) =>
  client.inject({ method: "PATCH", url: `/api/webhook-endpoints/${id}`, payload });

let n = 0;
async function addContact(client: AuthedClient) {
  n += 1;
  const res = await client.post("/api/contacts", {
    first_name: `P${n}`,
    email: `reen${n}-${Date.now()}@example.com`,
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

describe("re-enabling a webhook endpoint keeps who added it", () => {
  it("a removed admin's endpoint re-enabled by the owner still says who added it, says who re-enabled it (REST and tRPC), and delivers for the owner", async () => {
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
      expect(await listed(owner.client, id)).toMatchObject({
        creator_name: "Ben Admin",
        reenabled_by_name: null,
      });
      expect((await owner.client.del(`/api/workspaces/current/members/${ben.user.id}`)).statusCode).toBe(200);
      expect((await listed(owner.client, id)).enabled).toBe(false);

      const on = await patch(owner.client, id, { enabled: true });
      expect(on.statusCode, on.body).toBe(200);
      const after = {
        enabled: true,
        disabled_reason: null,
        creator_name: "Ben Admin",
        creator_member: false,
        reenabled_by_name: "Ana Owner",
      };
      expect(await listed(owner.client, id)).toMatchObject(after);
      const trpc = await trpcCall(owner.client, "webhooks.list", undefined, "query");
      expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
      expect((trpc.data as Listed[]).find((e) => e.id === id)).toMatchObject(after);
      await addContact(owner.client);
      expect(rx.got).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it("it acts for whoever re-enabled it: their removal stops it again with its own reason; enabling one that delivers changes nothing", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const cara = await joinWorkspace(t, owner.client, "admin", { name: "Cara Admin" });
    const rx = await webhookReceiver();
    try {
      const id = (
        await owner.client.post("/api/webhook-endpoints", { url: rx.url, events: ["contact.created"] })
      ).json().endpoint.id as string;
      // Ben sends enabled: true to an endpoint that delivers: it stays the owner's, no "Re-enabled by"
      expect((await patch(ben.client, id, { enabled: true })).statusCode).toBe(200);
      expect(await listed(owner.client, id)).toMatchObject({
        enabled: true,
        creator_name: "Ana Owner",
        reenabled_by_name: null,
      });
      // the owner turns it off, Cara turns it on: it acts for Cara
      expect((await patch(owner.client, id, { enabled: false })).statusCode).toBe(200);
      expect((await patch(cara.client, id, { enabled: true })).statusCode).toBe(200);
      expect(await listed(owner.client, id)).toMatchObject({
        enabled: true,
        reenabled_by_name: "Cara Admin",
      });
      expect((await owner.client.del(`/api/workspaces/current/members/${cara.user.id}`)).statusCode).toBe(
        200,
      );
      expect(await listed(owner.client, id)).toMatchObject({
        enabled: false,
        disabled_reason:
          "The admin who re-enabled it is no longer an admin of this workspace; an admin can re-enable it.",
        creator_name: "Ana Owner",
        creator_member: true,
        reenabled_by_name: "Cara Admin",
      });
      await addContact(owner.client);
      expect(rx.got).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });
});
