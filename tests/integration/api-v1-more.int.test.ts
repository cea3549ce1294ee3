import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { PgBoss } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { workspaces } from "../../src/server/db/schema";
import { pruneIdempotencyKeysJob } from "../../src/server/features/api/api.jobs";
import { requestFingerprint } from "../../src/server/features/api/api.service";
import { V1_ROUTES } from "../../src/server/features/api/api.v1";
import { WEBHOOK_EVENT_DATA } from "../../src/server/features/api/api.v1.schemas";
import { defineHandler, defineJob, type JobDeps } from "../../src/server/jobs/define";
import { handlerOf } from "../../src/server/jobs/registry";
import { startBoss } from "../../src/server/jobs/worker";
import { createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

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

  it("the hourly prune job deletes records older than 24 hours and keeps the rest; startBoss syncs schedules with one read", async () => {
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
    const scheduleSpy = vi.spyOn(PgBoss.prototype, "schedule");
    const unscheduleSpy = vi.spyOn(PgBoss.prototype, "unschedule");
    const readSpy = vi.spyOn(PgBoss.prototype, "getSchedules");
    try {
      const [s] = await boss.getSchedules(pruneIdempotencyKeysJob.name);
      expect(s).toMatchObject({ name: "api.prune-idempotency-keys", cron: "17 * * * *", timezone: "UTC" });
      const prefix = `t${randomUUID().slice(0, 8)}`;
      const name = `${prefix}.periodic`;
      const stale = `${prefix}.stale`;
      const plain = [1, 2, 3].map((i) => `${prefix}.plain${i}`);
      const schema = z.object({});
      const handler = async () => {};
      const boot = (jobs: { name: string; cron?: string }[]) =>
        startBoss(
          t.env.DATABASE_URL!,
          jobs.map((j) => defineHandler(defineJob({ ...j, schema }), { handler })),
          { max: 1 },
        ).then((b) => b.stop({ graceful: false, timeout: 2000 }));
      // this test's pg-boss writes and whole-table reads (the app's own instance, if any, shares the prototype)
      const calls = () => {
        const mine = (n: string) => n.startsWith(`${prefix}.`);
        const r = {
          reads: readSpy.mock.calls.filter((c) => c[0] === undefined).length,
          schedule: scheduleSpy.mock.calls.filter((c) => mine(c[0])).map((c) => [c[0], c[1]]),
          unschedule: unscheduleSpy.mock.calls.filter((c) => mine(c[0])).map((c) => c[0]),
        };
        scheduleSpy.mockClear();
        unscheduleSpy.mockClear();
        readSpy.mockClear();
        return r;
      };
      // a schedule left over from a release where `stale` still had a cron
      await boot([{ name: stale, cron: "*/5 * * * *" }]);
      expect(calls()).toEqual({ reads: 1, schedule: [[stale, "*/5 * * * *"]], unschedule: [] });
      expect(await boss.getSchedules(stale)).toHaveLength(1);

      // first boot: the new cron is scheduled, the stale schedule removed, and the jobs that never
      // had a cron cost no unschedule call each
      await boot([{ name, cron: "* * * * *" }, { name: stale }, ...plain.map((n) => ({ name: n }))]);
      expect(calls()).toEqual({ reads: 1, schedule: [[name, "* * * * *"]], unschedule: [stale] });
      expect((await boss.getSchedules(name)).map((r) => r.cron)).toEqual(["* * * * *"]);
      expect(await boss.getSchedules(stale)).toHaveLength(0);

      // a boot with nothing changed writes nothing
      await boot([{ name, cron: "* * * * *" }, { name: stale }, ...plain.map((n) => ({ name: n }))]);
      expect(calls()).toEqual({ reads: 1, schedule: [], unschedule: [] });

      // a changed cron is rescheduled
      await boot([{ name, cron: "*/2 * * * *" }]);
      expect(calls()).toEqual({ reads: 1, schedule: [[name, "*/2 * * * *"]], unschedule: [] });
      expect((await boss.getSchedules(name)).map((r) => r.cron)).toEqual(["*/2 * * * *"]);

      // a removed cron is unscheduled
      await boot([{ name }]);
      expect(calls()).toEqual({ reads: 1, schedule: [], unschedule: [name] });
      expect(await boss.getSchedules(name)).toHaveLength(0);
    } finally {
      scheduleSpy.mockRestore();
      unscheduleSpy.mockRestore();
      readSpy.mockRestore();
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

describe("v1 tag, segment and webhook operations", () => {
  it("tags a contact, untags it, deletes a tag (refused while a segment filters on it); scopes and other workspaces' ids", async () => {
    const k = await keyed();
    const c = (await k.call("POST", "/contacts", { first_name: "Tia", email: "tia@example.com" })).json();
    const tag = (await k.call("POST", "/tags", { name: "VIP" })).json();
    const tagged = await k.call("POST", `/contacts/${c.id}/tags`, { tag_id: tag.id });
    expect(tagged.statusCode).toBe(200);
    expect(tagged.json()).toEqual({ contact_id: c.id, tag_id: tag.id });
    expect((await k.call("POST", `/contacts/${c.id}/tags`, { tag_id: tag.id })).statusCode).toBe(200);
    const byTag = (await k.call("GET", `/contacts?tag_id=${tag.id}`)).json().data;
    expect(byTag.map((x: { id: number }) => x.id)).toEqual([c.id]);
    expect((await k.call("GET", "/tags")).json().data[0]).toMatchObject({ id: tag.id, contact_count: 1 });

    const bad = await k.call("POST", `/contacts/${c.id}/tags`, { tag_id: "VIP" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ param: "tag_id" });
    expect((await k.call("POST", `/contacts/${c.id}/tags`, { tag_id: 999999999 })).json().error.message).toBe(
      "Tag not found",
    );

    // another workspace: its key sees 404 for these ids, and cannot use its own tag on this contact
    const other = await keyed();
    const otherTag = (await other.call("POST", "/tags", { name: "Theirs" })).json();
    expect(
      (await other.call("POST", `/contacts/${c.id}/tags`, { tag_id: otherTag.id })).json().error.message,
    ).toBe("Contact not found");
    expect((await k.call("POST", `/contacts/${c.id}/tags`, { tag_id: otherTag.id })).statusCode).toBe(404);
    expect((await other.call("DELETE", `/contacts/${c.id}/tags/${tag.id}`)).statusCode).toBe(404);
    expect((await other.call("DELETE", `/tags/${tag.id}`)).statusCode).toBe(404);
    // a read-only key lacks contacts:write
    const ro = await keyed(["contacts:read"]);
    const denied = await ro.call("DELETE", `/tags/${tag.id}`);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toBe("This API key lacks the 'contacts:write' scope.");

    const untagged = await k.call("DELETE", `/contacts/${c.id}/tags/${tag.id}`);
    expect(untagged.json()).toEqual({ contact_id: c.id, tag_id: tag.id, deleted: true });
    const again = await k.call("DELETE", `/contacts/${c.id}/tags/${tag.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.message).toBe("This contact does not have this tag");

    // delete: refused while a segment filters on the tag, then it goes with its contact links
    await k.call("POST", `/contacts/${c.id}/tags`, { tag_id: tag.id });
    const seg = (await k.call("POST", "/segments", { name: "VIPs", filter: { tag_id: tag.id } })).json();
    const refused = await k.call("DELETE", `/tags/${tag.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe(
      "This tag is used by the list 'VIPs'. Change or delete it first.",
    );
    await t.db.execute(sql`delete from segments where id = ${seg.id}`);
    expect((await k.call("DELETE", `/tags/${tag.id}`)).json()).toEqual({ id: tag.id, deleted: true });
    expect((await k.call("DELETE", `/tags/${tag.id}`)).statusCode).toBe(404);
    expect((await k.call("GET", "/tags")).json().data).toEqual([]);
    const [links] = await t.db.execute<{ n: number }>(
      sql`select count(*)::int as n from contact_tags where contact_id = ${c.id}`,
    );
    expect(links!.n).toBe(0);
  });

  it("lists a segment's contacts with cursor pagination; 404 for another workspace's segment", async () => {
    const k = await keyed();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await k.call("POST", "/contacts", {
        first_name: `Lead${i}`,
        email: `lead${i}@example.com`,
        lifecycle_stage: i === 2 ? "customer" : "lead",
      });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().id);
    }
    const seg = (
      await k.call("POST", "/segments", { name: "Leads", filter: { lifecycle_stage: "lead" } })
    ).json();
    const pages = await walk(k, `/segments/${seg.id}/contacts`, 3);
    expect(pages.sizes).toEqual([3, 1]);
    expect(pages.items.map((x) => x.id)).toEqual([ids[4], ids[3], ids[1], ids[0]]);
    expect(pages.items[0]).toMatchObject({ first_name: "Lead4", lifecycle_stage: "lead" });
    const other = await keyed();
    expect((await other.call("GET", `/segments/${seg.id}/contacts`)).statusCode).toBe(404);
    expect((await k.call("GET", "/segments/abc/contacts")).statusCode).toBe(404);
    const mediaOnly = await keyed(["media:read"]);
    expect((await mediaOnly.call("GET", `/segments/${seg.id}/contacts`)).statusCode).toBe(403);
  });

  it("sends a test event to an endpoint and resends a delivery (webhooks:write); another workspace's ids are 404", async () => {
    const got: { id: string; body: string }[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => {
        body += d;
      });
      req.on("end", () => {
        got.push({ id: String(req.headers["webhook-id"]), body });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const k = await keyed();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const ep = (await k.call("POST", "/webhook_endpoints", { url, events: ["contact.created"] })).json();
      const test = await k.call("POST", `/webhook_endpoints/${ep.id}/test`);
      expect(test.statusCode).toBe(200);
      expect(test.json()).toEqual({
        delivery_id: expect.any(String),
        event_id: expect.stringMatching(/^msg_/),
        type: "contact.created",
      });
      expect(got).toHaveLength(1);
      // the type's example with every field a real contact.created carries, marked test: true
      const sent = JSON.parse(got[0]!.body);
      expect(sent).toMatchObject({ type: "contact.created", data: { test: true } });
      const { test: _mark, ...data } = sent.data;
      expect(() => WEBHOOK_EVENT_DATA["contact.created"].strict().parse(data)).not.toThrow();
      const resend = await k.call("POST", `/webhook_deliveries/${test.json().delivery_id}/resend`);
      expect(resend.json()).toEqual({ id: test.json().delivery_id, status: "pending" });
      expect(got).toHaveLength(2);
      expect(got[1]!.id).toBe(got[0]!.id);
      // an empty body sent as application/json (as many clients do on a body-less POST) is no body
      const empty = (url: string) =>
        t.app.inject({
          method: "POST",
          url: `/api/v1${url}`,
          headers: { authorization: `Bearer ${k.key}`, "content-type": "application/json" },
          payload: "",
        });
      const test2 = await empty(`/webhook_endpoints/${ep.id}/test`);
      expect(test2.statusCode, test2.body).toBe(200);
      expect(got).toHaveLength(3);
      const resend2 = await empty(`/webhook_deliveries/${test2.json().delivery_id}/resend`);
      expect(resend2.statusCode, resend2.body).toBe(200);
      expect(resend2.json()).toEqual({ id: test2.json().delivery_id, status: "pending" });
      expect(got).toHaveLength(4);
      expect(got[3]!.id).toBe(got[2]!.id);

      // a chosen type of the endpoint's: its example; a type it does not subscribe to: 400
      const multi = (
        await k.call("POST", "/webhook_endpoints", { url, events: ["contact.created", "message.bounced"] })
      ).json();
      const bounced = await k.call("POST", `/webhook_endpoints/${multi.id}/test`, {
        type: "message.bounced",
      });
      expect(bounced.statusCode, bounced.body).toBe(200);
      expect(bounced.json().type).toBe("message.bounced");
      const last = JSON.parse(got.at(-1)!.body);
      expect(last.type).toBe("message.bounced");
      const { test: _m, ...bouncedData } = last.data;
      expect(() => WEBHOOK_EVENT_DATA["message.bounced"].strict().parse(bouncedData)).not.toThrow();
      const before = got.length;
      const notSubscribed = await k.call("POST", `/webhook_endpoints/${multi.id}/test`, {
        type: "video.viewed",
      });
      expect(notSubscribed.statusCode).toBe(400);
      expect(notSubscribed.json().error.message).toBe(
        "This endpoint does not subscribe to video.viewed. Send a test of one of its events: contact.created, message.bounced.",
      );
      const unknown = await k.call("POST", `/webhook_endpoints/${multi.id}/test`, {
        type: "contact.exploded",
      });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error.message).toContain("Type must be one of contact.created");
      expect(got).toHaveLength(before);
      await k.call("DELETE", `/webhook_endpoints/${multi.id}`);

      const other = await keyed();
      expect((await other.call("POST", `/webhook_endpoints/${ep.id}/test`)).statusCode).toBe(404);
      const notYours = await other.call("POST", `/webhook_deliveries/${test.json().delivery_id}/resend`);
      expect(notYours.statusCode).toBe(404);
      expect(notYours.json().error).toMatchObject({ type: "not_found", message: "Delivery not found" });
      expect((await k.call("POST", "/webhook_deliveries/nope/resend")).statusCode).toBe(404);
      const noScope = await keyed(["contacts:read", "contacts:write"]);
      const denied = await noScope.call("POST", `/webhook_endpoints/${ep.id}/test`);
      expect(denied.statusCode).toBe(403);
      expect(denied.json().error.message).toBe("This API key lacks the 'webhooks:write' scope.");
      expect(got).toHaveLength(5);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("a test event or resend to a disabled endpoint is 409 with a sentence (v1, settings REST and tRPC), nothing is queued; enabled again it is sent", async () => {
    const got: string[] = [];
    const server = http.createServer((req, res) => {
      got.push(String(req.headers["webhook-id"]));
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const k = await keyed();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const ep = (await k.call("POST", "/webhook_endpoints", { url, events: ["contact.created"] })).json();
      const first = await k.call("POST", `/webhook_endpoints/${ep.id}/test`);
      expect(first.statusCode).toBe(200);
      expect(got).toHaveLength(1);
      const off = await k.call("PATCH", `/webhook_endpoints/${ep.id}`, { enabled: false });
      expect(off.json().enabled).toBe(false);

      const test = await k.call("POST", `/webhook_endpoints/${ep.id}/test`);
      expect(test.statusCode).toBe(409);
      expect(test.json()).toEqual({
        error: { type: "conflict", message: "This endpoint is disabled. Enable it to send a test event." },
      });
      const resend = await k.call("POST", `/webhook_deliveries/${first.json().delivery_id}/resend`);
      expect(resend.statusCode).toBe(409);
      expect(resend.json().error.message).toBe(
        "This endpoint is disabled. Enable it to send a delivery again.",
      );
      // the settings page's paths say the same
      const rest = await k.client.post(`/api/webhook-endpoints/${ep.id}/test`);
      expect(rest.statusCode).toBe(409);
      const rpc = await trpcCall(k.client, "webhooks.test", { id: ep.id });
      expect(rpc.status).toBe(409);
      expect(rpc.error?.message).toBe("This endpoint is disabled. Enable it to send a test event.");
      const rpcResend = await trpcCall(k.client, "webhooks.resend", { id: first.json().delivery_id });
      expect(rpcResend.status).toBe(409);
      // nothing was stored or sent; the earlier delivery kept its result
      const log = (await k.call("GET", `/webhook_endpoints/${ep.id}/deliveries`)).json().data;
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ status: "succeeded", attempts: 1, response_code: 200 });
      expect(got).toHaveLength(1);
      // another workspace still gets 404, not 409
      const other = await keyed();
      expect((await other.call("POST", `/webhook_endpoints/${ep.id}/test`)).statusCode).toBe(404);
      expect(
        (await other.call("POST", `/webhook_deliveries/${first.json().delivery_id}/resend`)).statusCode,
      ).toBe(404);

      expect((await k.call("PATCH", `/webhook_endpoints/${ep.id}`, { enabled: true })).json().enabled).toBe(
        true,
      );
      expect((await k.call("POST", `/webhook_endpoints/${ep.id}/test`)).statusCode).toBe(200);
      expect(
        (await k.call("POST", `/webhook_deliveries/${first.json().delivery_id}/resend`)).statusCode,
      ).toBe(200);
      expect(got).toHaveLength(3);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("the new operations are in V1_ROUTES and so in the OpenAPI document", async () => {
    const k = await keyed();
    const doc = (await k.call("GET", "/openapi.json")).json();
    for (const [path, method, op] of [
      ["/tags/{id}", "delete", "deleteTag"],
      ["/contacts/{id}/tags", "post", "tagContact"],
      ["/contacts/{id}/tags/{tag_id}", "delete", "untagContact"],
      ["/segments/{id}/contacts", "get", "listSegmentContacts"],
      ["/webhook_endpoints/{id}/test", "post", "sendWebhookTestEvent"],
      ["/webhook_deliveries/{id}/resend", "post", "resendWebhookDelivery"],
    ] as const) {
      expect(V1_ROUTES.some((r) => r.path === path && r.operationId === op)).toBe(true);
      expect(doc.paths[path][method].operationId).toBe(op);
    }
    expect(doc.paths["/tags"].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      "limit",
      "cursor",
    ]);
  });
});

describe("v1 query strings are closed", () => {
  /** The error of an unknown query parameter `name`. */
  const unknown = (name: string) => ({
    type: "invalid_request_error",
    message: `This field is not accepted here: ${name}`,
    param: name,
  });

  it("GET /contacts?stage= (the filter is lifecycle_stage) is a 400 naming stage; every documented parameter still filters", async () => {
    const k = await keyed();
    const add = async (body: Record<string, unknown>) => {
      const res = await k.call("POST", "/contacts", body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: number };
    };
    const ann = await add({ first_name: "Ann", email: "ann@example.com", lifecycle_stage: "customer" });
    const bob = await add({ first_name: "Bob", email: "bob@example.com", lifecycle_stage: "customer" });
    const cy = await add({ first_name: "Cy", email: "cy@example.com", lead_status: "qualified" });
    const tag = (await k.call("POST", "/tags", { name: "VIP" })).json();
    expect((await k.call("POST", `/contacts/${bob.id}/tags`, { tag_id: tag.id })).statusCode).toBe(200);

    const wrong = await k.call("GET", "/contacts?stage=customer");
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ error: unknown("stage") });
    // a misspelt parameter beside a valid one is refused too, not half applied
    const mixed = await k.call("GET", "/contacts?lifecycle_stage=customer&serach=ann");
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().error).toEqual(unknown("serach"));

    const ids = async (q: string) => {
      const res = await k.call("GET", `/contacts?${q}`);
      expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
      return res.json().data.map((c: { id: number }) => c.id);
    };
    expect(await ids("lifecycle_stage=customer")).toEqual([bob.id, ann.id]);
    expect(await ids("lead_status=qualified")).toEqual([cy.id]);
    expect(await ids(`tag_id=${tag.id}`)).toEqual([bob.id]);
    expect(await ids("search=ann%40example.com")).toEqual([ann.id]);
    expect(await ids("lifecycle_stage=customer&search=bob")).toEqual([bob.id]);
    const pages = await walk(k, "/contacts?lifecycle_stage=customer", 1);
    expect(pages.items.map((c) => c.id)).toEqual([bob.id, ann.id]);
  });

  it("campaigns, recipients, media, tags and webhook deliveries refuse an unknown parameter; limit, cursor and status still work", async () => {
    const k = await keyed();
    const contacts: number[] = [];
    for (const name of ["Dee", "Eve", "Fay"]) {
      const res = await k.call("POST", "/contacts", { first_name: name, email: `${name}@example.com` });
      contacts.push(res.json().id);
    }
    const later = new Date(Date.now() + 3600_000).toISOString();
    const campaignIds: number[] = [];
    for (const name of ["One", "Two"]) {
      const res = await k.call("POST", "/campaigns", {
        name,
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        audience: { contact_ids: contacts },
        scheduled_at: later,
      });
      expect(res.statusCode, res.body).toBe(201);
      campaignIds.push(res.json().campaign.id);
    }
    const [first, second] = campaignIds as [number, number];

    // campaigns: no status filter exists, so ?status= is refused rather than listing every campaign
    expect((await k.call("GET", "/campaigns?status=running")).json()).toEqual({ error: unknown("status") });
    const campaignPages = await walk(k, "/campaigns", 1);
    expect(campaignPages.items.map((c) => c.id)).toEqual([second, first]);

    // recipients: `status` is the filter, `state` is not
    const rurl = `/campaigns/${first}/recipients`;
    const badRecipients = await k.call("GET", `${rurl}?state=queued`);
    expect(badRecipients.statusCode).toBe(400);
    expect(badRecipients.json().error).toEqual(unknown("state"));
    const all = (await k.call("GET", rurl)).json().data as { id: number; status: string }[];
    expect(all).toHaveLength(3);
    const status = all[0]!.status;
    const filtered = await walk(k, `${rurl}?status=${status}`, 1);
    expect(filtered.items.map((x) => x.id)).toEqual(all.filter((x) => x.status === status).map((x) => x.id));

    // media
    const badMedia = await k.call("GET", "/media?type=video");
    expect(badMedia.statusCode).toBe(400);
    expect(badMedia.json().error).toEqual(unknown("type"));
    const media = await k.call("GET", "/media?limit=1");
    expect(media.statusCode).toBe(200);
    expect(media.json()).toMatchObject({ object: "list", data: [], next_cursor: null });

    // tags
    for (const name of ["a", "b", "c"])
      expect((await k.call("POST", "/tags", { name })).statusCode).toBe(201);
    const badTags = await k.call("GET", "/tags?name=a");
    expect(badTags.statusCode).toBe(400);
    expect(badTags.json().error).toEqual(unknown("name"));
    expect((await walk(k, "/tags", 2)).sizes).toEqual([2, 1]);

    // webhook deliveries: no status filter either
    const ep = (
      await k.call("POST", "/webhook_endpoints", {
        url: "http://127.0.0.1:9/hook",
        events: ["contact.created"],
      })
    ).json().id as string;
    expect((await k.call("POST", `/webhook_endpoints/${ep}/test`)).statusCode).toBe(200);
    const durl = `/webhook_endpoints/${ep}/deliveries`;
    const badDeliveries = await k.call("GET", `${durl}?status=failed`);
    expect(badDeliveries.statusCode).toBe(400);
    expect(badDeliveries.json().error).toEqual(unknown("status"));
    const deliveries = await k.call("GET", `${durl}?limit=5`);
    expect(deliveries.statusCode).toBe(200);
    expect(deliveries.json().data).toHaveLength(1);
  });

  it('a route without query parameters takes none; several unknown ones are all named; an empty name is shown as ""', async () => {
    const k = await keyed();
    const c = (await k.call("POST", "/contacts", { first_name: "Gus", email: "gus@example.com" })).json();
    const expand = await k.call("GET", `/contacts/${c.id}?expand=notes`);
    expect(expand.statusCode).toBe(400);
    expect(expand.json().error).toEqual(unknown("expand"));
    // refused before anything is written
    const note = await k.call("POST", `/contacts/${c.id}/notes?pinned=true`, { note_text: "hi" });
    expect(note.statusCode).toBe(400);
    expect(note.json().error).toEqual(unknown("pinned"));
    expect((await k.call("GET", `/contacts/${c.id}/notes`)).json().data).toEqual([]);

    const several = await k.call("GET", "/contacts?stage=lead&source=web&limit=5");
    expect(several.statusCode).toBe(400);
    expect(several.json().error).toEqual({
      type: "invalid_request_error",
      message: "These fields are not accepted here: stage, source",
      param: "stage",
    });
    const empty = await k.call("GET", "/tags?=x");
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toEqual({
      type: "invalid_request_error",
      message: 'This field is not accepted here: ""',
    });
  });

  it("every route in V1_ROUTES refuses an unknown parameter, and the OpenAPI document still lists every query parameter", async () => {
    const k = await keyed([...ALL_SCOPES, "leads:read"]);
    for (const r of V1_ROUTES) {
      const url = r.path.replace(/\{(\w+)\}/g, (_, n: string) =>
        /webhook/.test(r.path) || r.path.startsWith("/lead_searches") ? randomUUID() : n === "id" ? "1" : "2",
      );
      const res = await k.call(r.method, `${url}?bogus_param=1`);
      expect(res.statusCode, `${r.method} ${r.path}: ${res.body}`).toBe(400);
      expect(res.json().error, `${r.method} ${r.path}`).toEqual(unknown("bogus_param"));
    }
    const doc = (await k.call("GET", "/openapi.json")).json();
    const queryNames = (path: string) =>
      (doc.paths[path].get.parameters as { name: string; in: string }[])
        .filter((p) => p.in === "query")
        .map((p) => p.name);
    expect(queryNames("/contacts")).toEqual([
      "limit",
      "cursor",
      "search",
      "lifecycle_stage",
      "lead_status",
      "tag_id",
    ]);
    expect(queryNames("/campaigns/{id}/recipients")).toEqual(["limit", "cursor", "status"]);
    for (const path of ["/campaigns", "/media", "/tags", "/webhook_endpoints/{id}/deliveries"])
      expect(queryNames(path)).toEqual(["limit", "cursor"]);
    for (const r of V1_ROUTES.filter((x) => x.query))
      expect(queryNames(r.path).sort(), r.path).toEqual(Object.keys(r.query!.shape).sort());
    expect(doc.info.description).toContain("query strings and request bodies are closed");
  });
});
