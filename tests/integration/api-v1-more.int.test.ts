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
