import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import {
  emitWebhookEvent,
  emitWebhookEvents,
  queueWebhookDeliveries,
} from "../../src/server/features/webhooks/webhooks.service";
import type { JobClient } from "../../src/server/jobs/client";
import { createTestApp, signUp, type TestApp } from "../helpers";

// Concurrency audit finding 6: an event's deliveries (one per subscribed endpoint) are stored in one
// multi-row insert. An endpoint deleted between the read of the subscribed endpoints and that insert
// failed the whole insert on its foreign key, and the event was lost for every other endpoint too
// (logged "webhook event not emitted"). Here the delete lands exactly in that gap: another
// transaction holds a lock the event insert waits for, deletes endpoint A and commits, as a
// concurrent DELETE /webhook_endpoints/{A} would. The events are stored in the caller's transaction
// (the transactional outbox), so the failed insert rolls back a savepoint and is retried.

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
    await u.client.post("/api/api-keys", {
      name: "hooks",
      scopes: ["webhooks:write", "contacts:read", "campaigns:read"],
    })
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

/**
 * Runs `emit` while another transaction deletes endpoint `a` in the gap between the emit's read of
 * the subscribed endpoints and its inserts: that transaction locks outbound_webhook_events (the
 * event insert waits for it), deletes `a` once the emit waits, and commits. Returns the emit's result.
 */
async function deleteDuringEmit<T>(a: string, emit: () => Promise<T>): Promise<T> {
  let pending: Promise<T> | undefined;
  await t.db.transaction(async (tx) => {
    await tx.execute(sql`lock table outbound_webhook_events in share mode`);
    pending = emit();
    pending.catch(() => {});
    for (let i = 0; ; i++) {
      const [w] = await t.db.execute<{ n: number }>(
        sql`select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
            where c.relname = 'outbound_webhook_events' and not l.granted`,
      );
      if ((w?.n ?? 0) > 0) break;
      if (i > 500) throw new Error("the emit never waited for the event insert");
      await new Promise((r) => setTimeout(r, 10));
    }
    await tx.execute(sql`delete from webhook_endpoints where id = ${a}`);
  });
  return pending as Promise<T>;
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
  it("emitWebhookEvent in a feature's transaction: the other endpoint still gets its delivery, stored and queued", async () => {
    const s = await twoEndpoints();
    const { jobs, queued } = recordingJobs();
    const warned: string[] = [];
    const log = { warn: (_o: object, m: string) => warned.push(m) };
    const emitted = await deleteDuringEmit(s.a, () =>
      t.db.transaction((tx) =>
        emitWebhookEvent({ db: tx, log }, s.workspaceId, "contact.created", { id: "1", first_name: "Ada" }),
      ),
    );
    await queueWebhookDeliveries({ jobs, log }, emitted);
    expect(warned).toEqual([]);
    expect(emitted.eventIds).toEqual([expect.stringMatching(/^msg_/)]);
    const b = await deliveriesOf(s.b);
    expect(b).toHaveLength(1);
    expect(queued).toEqual([b[0]?.id]);
    expect(await deliveriesOf(s.a)).toHaveLength(0);
  });

  it("emitWebhookEvents (a batch): every event reaches the other endpoint", async () => {
    const s = await twoEndpoints();
    const { jobs, queued } = recordingJobs();
    const warned: string[] = [];
    const log = { warn: (_o: object, m: string) => warned.push(m) };
    const emitted = await deleteDuringEmit(s.a, () =>
      emitWebhookEvents(
        { db: t.db, log },
        s.workspaceId,
        "contact.created",
        [1, 2, 3].map((i) => ({ id: String(i) })),
      ),
    );
    await queueWebhookDeliveries({ jobs, log }, emitted);
    expect(warned).toEqual([]);
    expect(emitted.eventIds).toHaveLength(3);
    expect(await deliveriesOf(s.b)).toHaveLength(3);
    expect(await deliveriesOf(s.a)).toHaveLength(0);
    expect(queued).toHaveLength(3);
  });
});
