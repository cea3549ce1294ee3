import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { workspaces } from "../../src/server/db/schema";
import { pruneIdempotencyKeysJob } from "../../src/server/features/api/api.jobs";
import { requestFingerprint } from "../../src/server/features/api/api.service";
import { defineHandler, defineJob, type JobDeps } from "../../src/server/jobs/define";
import { handlerOf } from "../../src/server/jobs/registry";
import { startBoss } from "../../src/server/jobs/worker";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;

const ALL_SCOPES = [
  "contacts:read",
  "contacts:write",
  "campaigns:read",
  "campaigns:write",
  "media:read",
  "webhooks:write",
];

/** A Business workspace with a key of `scopes`; `call` sends a v1 request with it. */
async function keyed(scopes: string[] = ALL_SCOPES) {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", { name: "CI", scopes });
  expect(res.statusCode).toBe(200);
  const { key, apiKey } = res.json();
  const call = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: method as "GET",
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}`, ...headers },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return { ...u, key: key as string, apiKey: apiKey as { id: string }, call };
}

beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => {
  await t?.close();
});

describe("Idempotency-Key lifetime", () => {
  it("a claim left in progress is 409 for 5 minutes, then a retry of the same request takes it over (another body stays 409)", async () => {
    const k = await keyed();
    const body = { first_name: "Dora", email: "dora@example.com" };
    // the first request claimed the key and died before it stored a response
    await t.db.execute(sql`insert into api_idempotency_keys (api_key_id, key, request_hash, created_at)
      values (${k.apiKey.id}, 'died-1', ${requestFingerprint("POST", "/api/v1/contacts", body)},
              now() - interval '4 minutes')`);
    const h = { "idempotency-key": "died-1" };
    const early = await k.call("POST", "/contacts", body, h);
    expect(early.statusCode).toBe(409);
    expect(early.json().error.message).toBe("A request with this Idempotency-Key is still in progress.");
    await t.db.execute(
      sql`update api_idempotency_keys set created_at = now() - interval '6 minutes' where key = 'died-1'`,
    );
    const other = await k.call("POST", "/contacts", { ...body, first_name: "Else" }, h);
    expect(other.statusCode).toBe(409);
    expect(other.json().error.message).toContain("already used with a different request");
    const retry = await k.call("POST", "/contacts", body, h);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toMatchObject({ first_name: "Dora" });
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    // the takeover stored its response: a further repeat replays it
    const again = await k.call("POST", "/contacts", body, h);
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(retry.json());
  });

  it("a stored response is replayed for 24 hours; after that the key is forgotten and may be reused", async () => {
    const k = await keyed();
    const h = { "idempotency-key": "day-old" };
    const first = await k.call("POST", "/tags", { name: "First" }, h);
    expect(first.statusCode).toBe(201);
    await t.db.execute(
      sql`update api_idempotency_keys set created_at = now() - interval '23 hours' where api_key_id = ${k.apiKey.id}`,
    );
    expect((await k.call("POST", "/tags", { name: "Second" }, h)).statusCode).toBe(409);
    await t.db.execute(
      sql`update api_idempotency_keys set created_at = now() - interval '25 hours' where api_key_id = ${k.apiKey.id}`,
    );
    const reused = await k.call("POST", "/tags", { name: "Second" }, h);
    expect(reused.statusCode).toBe(201);
    expect(reused.json()).toMatchObject({ name: "Second" });
  });

  it("the hourly prune job deletes records older than 24 hours and keeps the rest; startBoss schedules it", async () => {
    const k = await keyed();
    await t.db.execute(sql`insert into api_idempotency_keys (api_key_id, key, request_hash, status_code, created_at)
      values (${k.apiKey.id}, 'old', 'h', 201, now() - interval '25 hours'),
             (${k.apiKey.id}, 'old-in-progress', 'h', null, now() - interval '3 days'),
             (${k.apiKey.id}, 'recent', 'h', 201, now() - interval '23 hours')`);
    const deps = { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log };
    await handlerOf(pruneIdempotencyKeysJob).handler({}, deps as JobDeps, { id: "x", retryCount: 0 });
    const left = await t.db.execute<{ key: string }>(
      sql`select key from api_idempotency_keys where api_key_id = ${k.apiKey.id} order by key`,
    );
    expect(left.map((r) => r.key)).toEqual(["recent"]);

    // the contract's cron becomes a pg-boss schedule; a job without one is unscheduled
    const boss = await startBoss(t.env.DATABASE_URL!, [handlerOf(pruneIdempotencyKeysJob)], { max: 2 });
    try {
      const [s] = await boss.getSchedules(pruneIdempotencyKeysJob.name);
      expect(s).toMatchObject({ name: "api.prune-idempotency-keys", cron: "17 * * * *", timezone: "UTC" });
      const name = `t${randomUUID().slice(0, 8)}.periodic`;
      const schema = z.object({});
      const handler = async () => {};
      await startBoss(
        t.env.DATABASE_URL!,
        [defineHandler(defineJob({ name, schema, cron: "* * * * *" }), { handler })],
        { max: 1 },
      ).then((b) => b.stop({ graceful: false, timeout: 2000 }));
      expect(await boss.getSchedules(name)).toHaveLength(1);
      await startBoss(t.env.DATABASE_URL!, [defineHandler(defineJob({ name, schema }), { handler })], {
        max: 1,
      }).then((b) => b.stop({ graceful: false, timeout: 2000 }));
      expect(await boss.getSchedules(name)).toHaveLength(0);
    } finally {
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  });
});

type Keyed = Awaited<ReturnType<typeof keyed>>;

/** Walks every page of a v1 list with `limit`; returns the items in order and the page sizes. */
async function walk(k: Keyed, path: string, limit: number) {
  const items: { id: number | string; [k: string]: unknown }[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const res = await k.call(
      "GET",
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.object).toBe("list");
    items.push(...body.data);
    sizes.push(body.data.length);
    cursor = body.next_cursor;
    if (!cursor) return { items, sizes };
  }
  throw new Error("too many pages");
}

describe("v1 cursor pagination of tags, segments, notes, webhook endpoints and deliveries", () => {
  it("tags and segments: by name then id over several pages, each row once; bad cursors are 400", async () => {
    const k = await keyed();
    const names = ["delta", "Alpha", "charlie", "bravo", "echo"];
    for (const name of names) expect((await k.call("POST", "/tags", { name })).statusCode).toBe(201);
    const all = (await k.call("GET", "/tags")).json();
    expect(all.next_cursor).toBeNull();
    const tagPages = await walk(k, "/tags", 2);
    expect(tagPages.sizes).toEqual([2, 2, 1]);
    expect(tagPages.items.map((x) => x.id)).toEqual(all.data.map((x: { id: number }) => x.id));
    expect(new Set(tagPages.items.map((x) => x.name)).size).toBe(5);

    for (const name of names)
      expect(
        (await k.call("POST", "/segments", { name, filter: { lifecycle_stage: "lead" } })).statusCode,
      ).toBe(201);
    const segPages = await walk(k, "/segments", 3);
    expect(segPages.sizes).toEqual([3, 2]);
    const allSegs = (await k.call("GET", "/segments")).json().data.map((x: { id: number }) => x.id);
    expect(segPages.items.map((x) => x.id)).toEqual(allSegs);
    expect(segPages.items[0]).toMatchObject({ contact_count: 0, filter: { lifecycle_stage: "lead" } });

    for (const cursor of ["nope", Buffer.from('["x"]').toString("base64url"), "x".repeat(1001)]) {
      const bad = await k.call("GET", `/tags?cursor=${cursor}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toMatchObject({ type: "invalid_request_error", param: "cursor" });
    }
    expect((await k.call("GET", "/segments?limit=0")).statusCode).toBe(400);
  });

  it("notes: newest first with ties in the same millisecond (microseconds kept), each note once", async () => {
    const k = await keyed();
    const c = (await k.call("POST", "/contacts", { first_name: "Nora", email: "nora@example.com" })).json();
    // 3 notes at one instant, 2 a microsecond later (one JS millisecond), 1 a second earlier
    await t.db.execute(sql`insert into notes (workspace_id, contact_id, note_text, created_at) values
      (${k.user.id}, ${c.id}, 'a', '2026-01-01 10:00:00.123456+00'),
      (${k.user.id}, ${c.id}, 'b', '2026-01-01 10:00:00.123456+00'),
      (${k.user.id}, ${c.id}, 'c', '2026-01-01 10:00:00.123456+00'),
      (${k.user.id}, ${c.id}, 'd', '2026-01-01 10:00:00.123457+00'),
      (${k.user.id}, ${c.id}, 'e', '2026-01-01 10:00:00.123457+00'),
      (${k.user.id}, ${c.id}, 'f', '2026-01-01 09:59:59+00')`);
    const pages = await walk(k, `/contacts/${c.id}/notes`, 2);
    expect(pages.sizes).toEqual([2, 2, 2]);
    expect(pages.items.map((n) => n.note_text)).toEqual(["e", "d", "c", "b", "a", "f"]);
    // another workspace's contact is 404
    const other = await keyed();
    expect((await other.call("GET", `/contacts/${c.id}/notes`)).statusCode).toBe(404);
  });

  it("webhook endpoints and deliveries: newest first, ties broken by id, each row once", async () => {
    const k = await keyed();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await k.call("POST", "/webhook_endpoints", {
        url: `http://127.0.0.1:9/hook-${i}`,
        events: ["contact.created"],
      });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().id);
    }
    await t.db.execute(
      sql`update webhook_endpoints set created_at = '2026-02-01 08:00:00.000001+00' where workspace_id = ${k.user.id}`,
    );
    const eps = await walk(k, "/webhook_endpoints", 2);
    expect(eps.sizes).toEqual([2, 2, 1]);
    expect(eps.items.map((e) => e.id)).toEqual([...ids].sort().reverse());

    const ep = ids[0]!;
    await t.db.execute(sql`insert into outbound_webhook_events (id, workspace_id, type, data)
      select 'msg_page_' || g || '_' || ${ep}, ${k.user.id}, 'contact.created', '{}'::jsonb
      from generate_series(1, 7) g`);
    await t.db.execute(sql`insert into webhook_deliveries (workspace_id, endpoint_id, event_id, created_at)
      select ${k.user.id}, ${ep}, 'msg_page_' || g || '_' || ${ep},
             case when g <= 4 then timestamptz '2026-02-01 09:00:00.000500+00'
                  else timestamptz '2026-02-01 09:00:00.000900+00' end
      from generate_series(1, 7) g`);
    const dels = await walk(k, `/webhook_endpoints/${ep}/deliveries`, 3);
    expect(dels.sizes).toEqual([3, 3, 1]);
    const expected = await t.db.execute<{ id: string }>(
      sql`select id from webhook_deliveries where endpoint_id = ${ep} order by created_at desc, id desc`,
    );
    expect(dels.items.map((d) => d.id)).toEqual(expected.map((r) => r.id));
    expect(dels.items[0]).toMatchObject({ event_type: "contact.created", status: "pending" });
    const other = await keyed();
    expect((await other.call("GET", `/webhook_endpoints/${ep}/deliveries`)).statusCode).toBe(404);
  });
});
