import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTransactionDb } from "../../src/server/db/reserved";
import { tags, workspaces } from "../../src/server/db/schema";
import { emitWebhookEvent, NO_WEBHOOK_EMIT } from "../../src/server/features/webhooks/webhooks.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

// emitWebhookEvent promises never to undo the feature's change for a webhook problem. Its read of the
// subscribed endpoints ran outside its savepoint: inside the caller's transaction a failed read (here
// a lock timeout) aborted that transaction, so the caller's next statement failed and its change was
// lost, although emit itself had swallowed the error.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

/** Runs `fn` while another session holds the endpoints table, so an emit's read of it times out. */
async function withEndpointsLocked<T>(fn: () => Promise<T>): Promise<T> {
  const locker = await t.sql.reserve();
  try {
    await locker`begin`;
    await locker`lock table webhook_endpoints in access exclusive mode`;
    return await fn();
  } finally {
    await locker`rollback`.catch(() => {});
    locker.release();
  }
}

describe("an outbound webhook emit whose endpoint read fails inside the caller's transaction", () => {
  it("rolls back its own savepoint only: the caller's change commits, nothing is stored for the event", async () => {
    const u = await signUp(t.app);
    const ws = u.user.id;
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, ws));
    const { key } = (
      await u.client.post("/api/api-keys", {
        name: "hooks",
        scopes: ["webhooks:write", "contacts:write", "contacts:read"],
      })
    ).json();
    const ep = await t.app.inject({
      method: "POST",
      url: "/api/v1/webhook_endpoints",
      headers: { authorization: `Bearer ${key}` },
      payload: { url: "http://127.0.0.1:9/hook", events: ["contact.created"] },
    });
    expect(ep.statusCode, ep.body).toBe(201);

    const warnings: string[] = [];
    const emitted = await withEndpointsLocked(() =>
      t.db.transaction(async (tx) => {
        await tx.insert(tags).values({ workspaceId: ws, name: "Before the emit" });
        await tx.execute(sql`set local lock_timeout = '150ms'`);
        const r = await emitWebhookEvent(
          { db: tx, log: { warn: (_o, m) => warnings.push(m) } },
          ws,
          "contact.created",
          { id: 1 },
        );
        await tx.execute(sql`set local lock_timeout = 0`);
        // the caller's transaction goes on
        await tx.insert(tags).values({ workspaceId: ws, name: "After the emit" });
        return r;
      }),
    );
    expect(emitted).toEqual(NO_WEBHOOK_EMIT);
    expect(warnings).toEqual(["webhook event not stored"]);
    const names = (await t.db.select().from(tags).where(eq(tags.workspaceId, ws))).map((r) => r.name).sort();
    expect(names).toEqual(["After the emit", "Before the emit"]);

    // the same in an import batch's hand-run transaction (db/reserved openTransactionDb)
    const conn = await t.sql.reserve();
    try {
      await withEndpointsLocked(async () => {
        await conn`begin`;
        const db = openTransactionDb(conn);
        await db.insert(tags).values({ workspaceId: ws, name: "Batch before" });
        await conn`set local lock_timeout = '150ms'`;
        const r = await emitWebhookEvent(
          { db, log: { warn: (_o, m) => warnings.push(m) } },
          ws,
          "contact.created",
          { id: 3 },
        );
        expect(r).toEqual(NO_WEBHOOK_EMIT);
        await conn`set local lock_timeout = 0`;
        await db.insert(tags).values({ workspaceId: ws, name: "Batch after" });
        // Postgres answers COMMIT with ROLLBACK for a transaction an error aborted
        expect((await conn.unsafe("commit")).command).toBe("COMMIT");
      });
    } finally {
      await conn`rollback`.catch(() => {});
      conn.release();
    }
    const all = (await t.db.select().from(tags).where(eq(tags.workspaceId, ws))).map((r) => r.name).sort();
    expect(all).toEqual(["After the emit", "Batch after", "Batch before", "Before the emit"]);

    // with the table free again the same emit in a transaction stores the event and its delivery
    const stored = await t.db.transaction((tx) =>
      emitWebhookEvent({ db: tx }, ws, "contact.created", { id: 2 }),
    );
    expect(stored.eventIds).toHaveLength(1);
    expect(stored.deliveryIds).toHaveLength(1);
  });
});
