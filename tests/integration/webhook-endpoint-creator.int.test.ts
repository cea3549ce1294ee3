import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverWebhook } from "../../src/server/features/webhooks/webhooks.deliver";
import { type AuthedClient, createTestApp, joinWorkspace, setPlan, signUp, type TestApp } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// A webhook endpoint acts with its creator's authority, like an API key (api-key-creator.int): an
// admin who is removed or demoted must stop receiving the workspace's data through the endpoints
// they created. Such an endpoint shows as disabled with a reason; an admin who enables it again takes
// it over (reenabled_by; its creator stays recorded). An endpoint with no recorded creator counts as
// the workspace owner's.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

/** A Business workspace with an owner and an admin. */
async function team() {
  const owner = await signUp(t.app, { business_name: "Hooked Plumbing" });
  await setPlan(t, owner.user.id, "business");
  const admin = await joinWorkspace(t, owner.client, "admin", { business_name: "" });
  return { owner, admin };
}

async function endpoint(client: AuthedClient, url: string) {
  const res = await client.post("/api/webhook-endpoints", { url, events: ["contact.created"] });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().endpoint.id as string;
}

let n = 0;
async function addContact(client: AuthedClient) {
  n += 1;
  const res = await client.post("/api/contacts", {
    first_name: `Person${n}`,
    email: `p${n}-${Date.now()}@example.com`,
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

type Listed = { id: string; enabled: boolean; disabled_reason: string | null };
const listed = async (client: AuthedClient, id: string) =>
  ((await client.get("/api/webhook-endpoints")).json().endpoints as Listed[]).find((e) => e.id === id)!;

describe("a webhook endpoint and its creator's membership", () => {
  it("a removed admin's endpoint stops receiving, is listed as disabled with a reason, and an admin's re-enable makes it act for them", async () => {
    const { owner, admin } = await team();
    const rx = await webhookReceiver();
    try {
      const id = await endpoint(admin.client, rx.url);
      await addContact(owner.client);
      expect(rx.got).toHaveLength(1);

      expect((await owner.client.del(`/api/workspaces/current/members/${admin.user.id}`)).statusCode).toBe(
        200,
      );
      await addContact(owner.client);
      expect(rx.got).toHaveLength(1);
      const shown = await listed(owner.client, id);
      expect(shown.enabled).toBe(false);
      expect(shown.disabled_reason).toMatch(/creator is no longer an admin of this workspace/);
      // a test event is refused like for any disabled endpoint
      expect((await owner.client.post(`/api/webhook-endpoints/${id}/test`)).statusCode).toBe(409);

      // the owner enables it again: it acts for them now (reenabled_by), keeps who added it, and delivers
      const on = await owner.client.inject({
        method: "PATCH",
        url: `/api/webhook-endpoints/${id}`,
        payload: { enabled: true },
      });
      expect(on.statusCode, on.body).toBe(200);
      expect(on.json().endpoint).toMatchObject({ enabled: true, disabled_reason: null });
      const [row] = await t.db.execute<{ created_by: string; reenabled_by: string }>(
        sql`select created_by, reenabled_by from webhook_endpoints where id = ${id}`,
      );
      expect(row).toEqual({ created_by: admin.user.id, reenabled_by: owner.user.id });
      await addContact(owner.client);
      expect(rx.got).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });

  it("a demoted admin's endpoint stops too, also for a delivery already queued; the owner's endpoints go on", async () => {
    const { owner, admin } = await team();
    const rxAdmin = await webhookReceiver();
    const rxOwner = await webhookReceiver();
    try {
      const adminEp = await endpoint(admin.client, rxAdmin.url);
      await endpoint(owner.client, rxOwner.url);
      await addContact(owner.client);
      expect(rxAdmin.got).toHaveLength(1);
      const [delivery] = await t.db.execute<{ id: string }>(
        sql`select id from webhook_deliveries where endpoint_id = ${adminEp}`,
      );

      const demote = await owner.client.inject({
        method: "PATCH",
        url: `/api/workspaces/current/members/${admin.user.id}`,
        payload: { role: "member" },
      });
      expect(demote.statusCode, demote.body).toBe(200);
      await addContact(owner.client);
      expect(rxAdmin.got).toHaveLength(1);
      expect(rxOwner.got).toHaveLength(2);
      expect((await listed(owner.client, adminEp)).enabled).toBe(false);

      // the delivery job itself refuses: a delivery stored before the demotion is not sent
      await t.db.execute(sql`update webhook_deliveries set status = 'pending' where id = ${delivery!.id}`);
      await deliverWebhook({ db: t.db, env: t.env, providers: t.providers, log: t.ctx.log }, delivery!.id, {
        retryCount: 0,
      });
      expect(rxAdmin.got).toHaveLength(1);
      const [after] = await t.db.execute<{ status: string; last_error: string }>(
        sql`select status, last_error from webhook_deliveries where id = ${delivery!.id}`,
      );
      expect(after).toMatchObject({ status: "failed", last_error: expect.stringMatching(/creator/) });
    } finally {
      await rxAdmin.close();
      await rxOwner.close();
    }
  });

  it("an endpoint with no recorded creator (made before the rule) counts as the owner's and keeps delivering", async () => {
    const { owner } = await team();
    const rx = await webhookReceiver();
    try {
      const id = await endpoint(owner.client, rx.url);
      await t.db.execute(sql`update webhook_endpoints set created_by = null where id = ${id}`);
      await addContact(owner.client);
      expect(rx.got).toHaveLength(1);
      expect((await listed(owner.client, id)).enabled).toBe(true);
    } finally {
      await rx.close();
    }
  });
});
