import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { emitWebhookEvent, emitWebhookEvents } from "../../src/server/features/webhooks/webhooks.service";
import type { JobClient } from "../../src/server/jobs/client";
import { createTestApp, signUp, type TestApp } from "../helpers";

// Concurrency audit finding 6: an event's deliveries (one per subscribed endpoint) are stored in one
// multi-row insert. An endpoint deleted between the read of the subscribed endpoints and that insert
// failed the whole insert on its foreign key, and the event was lost for every other endpoint too
// (logged "webhook event not emitted"). Here the delete lands exactly in that gap: a trigger on the
// event insert deletes endpoint A, as a concurrent DELETE /webhook_endpoints/{A} would.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

/** A Business workspace with two endpoints (A and B) subscribed to contact.created. */
async function twoEndpoints() {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const { key } = (
    await u.client.post("/api/api-keys", { name: "hooks", scopes: ["webhooks:write"] })
  ).json();
  const ids: string[] = [];
  for (const name of ["a", "b"]) {
    const ep = await t.app.inject({
      method: "POST",
      url: "/api/v1/webhook_endpoints",
      headers: { authorization: `Bearer ${key}` },
      payload: { url: `http://127.0.0.1:9/${name}`, events: ["contact.created"] },
    });
    expect(ep.statusCode, ep.body).toBe(201);
    ids.push(ep.json().id);
  }
  return { workspaceId: u.user.id, a: ids[0] as string, b: ids[1] as string };
}

/** Deletes endpoint `a` when the workspace's next event is stored (until dropped). */
async function deleteOnNextEvent(workspaceId: string, a: string) {
  const fn = `test_del_${randomUUID().replace(/-/g, "")}`;
  await t.db.execute(
    sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin delete from webhook_endpoints where id = '${a}'; return new; end $$`),
  );
  await t.db.execute(
    sql.raw(`create trigger ${fn} after insert on outbound_webhook_events for each row
      when (new.workspace_id = '${workspaceId}') execute function ${fn}()`),
  );
  return async () => {
    await t.db.execute(sql.raw(`drop trigger ${fn} on outbound_webhook_events`));
    await t.db.execute(sql.raw(`drop function ${fn}()`));
  };
}

function recordingJobs() {
  const queued: string[] = [];
  const jobs = {
    send: async () => null,
    sendMany: async (_def: unknown, items: { data: { deliveryId: string } }[]) => {
      queued.push(...items.map((i) => i.data.deliveryId));
    },
  } as unknown as JobClient;
  return { jobs, queued };
}

const deliveriesOf = (endpointId: string) =>
  t.db.execute<{ id: string }>(sql`select id from webhook_deliveries where endpoint_id = ${endpointId}`);

describe("an endpoint deleted while an event is emitted", () => {
  it("emitWebhookEvent: the other endpoint still gets its delivery, stored and queued", async () => {
    const s = await twoEndpoints();
    const drop = await deleteOnNextEvent(s.workspaceId, s.a);
    try {
      const { jobs, queued } = recordingJobs();
      const warned: string[] = [];
      const id = await emitWebhookEvent(
        { db: t.db, jobs, log: { warn: (_o, m) => warned.push(m) } },
        s.workspaceId,
        "contact.created",
        { id: "1", first_name: "Ada" },
      );
      expect(warned).toEqual([]);
      expect(id).toMatch(/^msg_/);
      const b = await deliveriesOf(s.b);
      expect(b).toHaveLength(1);
      expect(queued).toEqual([b[0]?.id]);
      expect(await deliveriesOf(s.a)).toHaveLength(0);
    } finally {
      await drop();
    }
  });

  it("emitWebhookEvents (a batch): every event reaches the other endpoint", async () => {
    const s = await twoEndpoints();
    const drop = await deleteOnNextEvent(s.workspaceId, s.a);
    try {
      const { jobs, queued } = recordingJobs();
      const warned: string[] = [];
      const ids = await emitWebhookEvents(
        { db: t.db, jobs, log: { warn: (_o, m) => warned.push(m) } },
        s.workspaceId,
        "contact.created",
        [1, 2, 3].map((i) => ({ id: String(i) })),
      );
      expect(warned).toEqual([]);
      expect(ids).toHaveLength(3);
      expect(await deliveriesOf(s.b)).toHaveLength(3);
      expect(queued).toHaveLength(3);
    } finally {
      await drop();
    }
  });
});
