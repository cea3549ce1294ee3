import { Validator } from "@seriousme/openapi-schema-validator";
import { eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookEndpoints, workspaces } from "../../src/server/db/schema";
import { V1_ROUTES } from "../../src/server/features/api/api.v1";
import { createTestApp, signUp, type TestApp } from "../helpers";
import { webhookReceiver as receiver } from "./webhook-receiver";

let t: TestApp;

async function setPlan(workspaceId: string, plan: string) {
  await t.db.update(workspaces).set({ plan }).where(eq(workspaces.id, workspaceId));
}

/** A Business workspace with a key of `scopes`. */
async function keyed(
  scopes: string[] = [
    "contacts:read",
    "contacts:write",
    "campaigns:read",
    "campaigns:write",
    "media:read",
    "webhooks:write",
  ],
  app = t,
) {
  const u = await signUp(app.app);
  await app.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", { name: "CI", scopes });
  expect(res.statusCode).toBe(200);
  const { key, apiKey } = res.json();
  const call = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.app.inject({
      method: method as "GET",
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}`, ...headers },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return { ...u, key: key as string, apiKey, call };
}

beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => {
  await t?.close();
});

describe("API keys", () => {
  it("creates a key shown once (pw_live_, hashed at rest, prefix visible), lists and revokes it; revoked keys get 401 at once", async () => {
    const k = await keyed(["contacts:read"]);
    expect(k.key).toMatch(/^pw_live_[0-9A-Za-z]{32}$/);
    expect(k.apiKey).toMatchObject({ name: "CI", prefix: k.key.slice(0, 12), scopes: ["contacts:read"] });
    const [row] = await t.db.execute<{ key_hash: string }>(
      sql`select key_hash from api_keys where id = ${k.apiKey.id}`,
    );
    expect(row!.key_hash).not.toContain(k.key.slice(8));
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    const listed = (await k.client.get("/api/api-keys")).json().apiKeys;
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(k.key);
    expect((await k.call("GET", "/contacts")).statusCode).toBe(200);
    const lastUsed = (await k.client.get("/api/api-keys")).json().apiKeys[0].last_used_at;
    expect(lastUsed).not.toBeNull();
    expect((await k.client.del(`/api/api-keys/${k.apiKey.id}`)).statusCode).toBe(200);
    const after = await k.call("GET", "/contacts");
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toMatchObject({
      type: "authentication_error",
      message: "This API key has been revoked.",
    });
    expect((await k.client.del(`/api/api-keys/${k.apiKey.id}`)).statusCode).toBe(404);
  });

  it("validates input, refuses members (403) and plans without API access (402)", async () => {
    const u = await signUp(t.app);
    const free = await u.client.post("/api/api-keys", { name: "x", scopes: ["contacts:read"] });
    expect(free.statusCode).toBe(402);
    expect(free.json().error).toContain("API access is not included in your Free plan. Upgrade to Business");
    await setPlan(u.user.id, "business");
    const bad = await u.client.post("/api/api-keys", { name: "x", scopes: ["contacts:admin"] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain("Each scope must be one of");
    expect((await u.client.post("/api/api-keys", { name: "", scopes: ["contacts:read"] })).statusCode).toBe(
      400,
    );
    // a member of the workspace cannot manage keys
    await t.db.execute(sql`update workspace_members set role = 'member' where user_id = ${u.user.id}`);
    const member = await u.client.post("/api/api-keys", { name: "x", scopes: ["contacts:read"] });
    expect(member.statusCode).toBe(403);
    expect(member.json().error).toBe("Only the workspace owner or an admin can manage API keys.");
  });

  it("authenticates /api/v1 with bearer keys only: no cookie there, no key elsewhere", async () => {
    const k = await keyed();
    const cookieOnly = await t.app.inject({
      method: "GET",
      url: "/api/v1/contacts",
      headers: { cookie: k.cookie },
    });
    expect(cookieOnly.statusCode).toBe(401);
    expect(cookieOnly.json().error.type).toBe("authentication_error");
    expect(cookieOnly.headers["request-id"]).toBeTruthy();
    const keyElsewhere = await t.app.inject({
      method: "GET",
      url: "/api/contacts",
      headers: { authorization: `Bearer ${k.key}` },
    });
    expect(keyElsewhere.statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: "GET",
      url: "/api/v1/contacts",
      headers: { authorization: "Bearer pw_live_nope" },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: { type: "authentication_error", message: "Invalid API key." } });
  });

  it("403 names the missing scope; 402 as soon as the plan loses API access", async () => {
    const k = await keyed(["contacts:read"]);
    const res = await k.call("POST", "/contacts", { first_name: "A", email: "a@example.com" });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toEqual({
      type: "permission_error",
      message: "This API key lacks the 'contacts:write' scope.",
    });
    await setPlan(k.user.id, "professional");
    const gated = await k.call("GET", "/contacts");
    expect(gated.statusCode).toBe(402);
    expect(gated.json().error.type).toBe("payment_required");
    expect(gated.json().error.message).toContain("API access is not included in your Professional plan");
  });

  it("rate-limits per key with RateLimit-* headers and 429 + Retry-After", async () => {
    const t2 = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const a = await keyed(["contacts:read"], t2);
      const b = await keyed(["contacts:read"], t2);
      const first = await a.call("GET", "/contacts");
      expect(first.headers["ratelimit-limit"]).toBe("3");
      expect(first.headers["ratelimit-remaining"]).toBe("2");
      await a.call("GET", "/contacts");
      await a.call("GET", "/contacts");
      const limited = await a.call("GET", "/contacts");
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
      expect(limited.headers["ratelimit-remaining"]).toBe("0");
      expect(limited.json().error.type).toBe("rate_limit_error");
      // another key has its own budget
      expect((await b.call("GET", "/contacts")).statusCode).toBe(200);
    } finally {
      await t2.close();
    }
  });

  it("Idempotency-Key: same body replays the first response, another body is 409", async () => {
    const k = await keyed();
    const body = { first_name: "Ida", email: "ida@example.com" };
    const h = { "idempotency-key": "create-ida-1" };
    const first = await k.call("POST", "/contacts", body, h);
    expect(first.statusCode).toBe(201);
    const again = await k.call("POST", "/contacts", body, h);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const other = await k.call("POST", "/contacts", { ...body, first_name: "Other" }, h);
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ type: "conflict", param: "Idempotency-Key" });
    // without the key the duplicate email is a conflict of the service
    const dup = await k.call("POST", "/contacts", body);
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.message).toBe("A contact with this email already exists");
  });
});

describe("v1 resources", () => {
  it("contacts: create, get, update, delete, errors with param, cursor pagination and filters, bulk upsert", async () => {
    const k = await keyed();
    const created = await k.call("POST", "/contacts", {
      first_name: "Ann",
      email: "ANN@example.com",
      lifecycle_stage: "customer",
    });
    expect(created.statusCode).toBe(201);
    const c = created.json();
    expect(c).toMatchObject({ first_name: "Ann", email: "ann@example.com", lifecycle_stage: "customer" });
    expect(new Date(c.created_at).toISOString()).toBe(c.created_at);
    expect((await k.call("GET", `/contacts/${c.id}`)).json().id).toBe(c.id);
    const upd = await k.call("PATCH", `/contacts/${c.id}`, { company: "Acme" });
    expect(upd.json().company).toBe("Acme");
    const invalid = await k.call("POST", "/contacts", { first_name: "X", email: "not-an-email" });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error).toMatchObject({ type: "invalid_request_error", param: "email" });
    const badJson = await t.app.inject({
      method: "POST",
      url: "/api/v1/contacts",
      headers: { authorization: `Bearer ${k.key}`, "content-type": "application/json" },
      payload: "{oops",
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error.type).toBe("invalid_request_error");
    expect((await k.call("GET", "/contacts/999999999")).json()).toEqual({
      error: { type: "not_found", message: "Contact not found" },
    });
    expect((await k.call("GET", "/contacts/abc")).statusCode).toBe(404);
    expect((await k.call("GET", "/nothing")).json().error.type).toBe("not_found");

    const bulk = await k.call("POST", "/contacts/bulk", {
      contacts: Array.from({ length: 25 }, (_, i) => ({
        first_name: `B${i}`,
        email: `b${i}@example.com`,
        lifecycle_stage: i % 2 ? "lead" : "prospect",
      })).concat([{ first_name: "Ann2", email: "ann@example.com", lifecycle_stage: "customer" }]),
    });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json()).toMatchObject({ created: 25, updated: 1 });
    expect(
      (await k.call("POST", "/contacts/bulk", { contacts: Array.from({ length: 1001 }, () => ({})) })).json()
        .error.message,
    ).toContain("At most 1,000 contacts");

    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await k.call("GET", `/contacts?limit=10${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.statusCode).toBe(200);
      const j = page.json();
      expect(j.object).toBe("list");
      seen.push(...j.data.map((x: { id: number }) => x.id));
      cursor = j.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(26);
    expect(new Set(seen).size).toBe(26);
    const leads = (await k.call("GET", "/contacts?lifecycle_stage=lead&limit=100")).json().data;
    expect(leads).toHaveLength(12);
    expect((await k.call("GET", "/contacts?search=b1")).json().data.length).toBeGreaterThan(0);
    expect((await k.call("GET", "/contacts?limit=1000")).json().error).toMatchObject({ param: "limit" });
    expect((await k.call("GET", "/contacts?cursor=bogus")).json().error).toMatchObject({ param: "cursor" });

    const del = await k.call("DELETE", `/contacts/${c.id}`);
    expect(del.json()).toEqual({ id: c.id, deleted: true });
    expect((await k.call("GET", `/contacts/${c.id}`)).statusCode).toBe(404);
  });

  it("tags, segments, notes", async () => {
    const k = await keyed();
    const c = (await k.call("POST", "/contacts", { first_name: "N", email: "n@example.com" })).json();
    const tag = await k.call("POST", "/tags", { name: "VIP", color: "#ff0000" });
    expect(tag.statusCode).toBe(201);
    expect((await k.call("POST", "/tags", { name: "VIP" })).statusCode).toBe(409);
    expect((await k.call("GET", "/tags")).json().data[0]).toMatchObject({ name: "VIP", contact_count: 0 });
    const seg = await k.call("POST", "/segments", { name: "Leads", filter: { lifecycle_stage: "lead" } });
    expect(seg.statusCode).toBe(201);
    expect((await k.call("GET", "/segments")).json().data[0]).toMatchObject({
      name: "Leads",
      contact_count: 1,
    });
    const note = await k.call("POST", `/contacts/${c.id}/notes`, { note_text: "Called" });
    expect(note.statusCode).toBe(201);
    expect((await k.call("GET", `/contacts/${c.id}/notes`)).json().data[0].note_text).toBe("Called");
    expect((await k.call("POST", `/contacts/${c.id}/notes`, { note_text: "  " })).json().error.param).toBe(
      "note_text",
    );
  });

  it("campaigns: create + launch, list with cursor, get with counters, recipients, pause/resume/cancel", async () => {
    const k = await keyed();
    const ids: number[] = [];
    for (const i of [1, 2, 3]) {
      const r = await k.call("POST", "/contacts", { first_name: `C${i}`, email: `c${i}@example.com` });
      ids.push(r.json().id);
    }
    const scheduled = new Date(Date.now() + 3600_000).toISOString();
    const launch = await k.call("POST", "/campaigns", {
      name: "Later",
      channel: "email",
      content: { subject: "Hi {{first_name}}", body: "Hello" },
      audience: { contact_ids: ids },
      scheduled_at: scheduled,
    });
    expect(launch.statusCode).toBe(201);
    const camp = launch.json().campaign;
    expect(camp).toMatchObject({ name: "Later", channel: "email", status: "scheduled", recipient_count: 3 });
    const now = await k.call("POST", "/campaigns", {
      name: "Now",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contacts: [{ first_name: "Z", email: "z@example.com" }] },
    });
    expect(now.statusCode).toBe(201);
    const got = (await k.call("GET", `/campaigns/${now.json().campaign.id}`)).json();
    expect(got.counts).toBeTypeOf("object");
    const p1 = (await k.call("GET", "/campaigns?limit=1")).json();
    expect(p1.data).toHaveLength(1);
    const p2 = (await k.call("GET", `/campaigns?limit=1&cursor=${p1.next_cursor}`)).json();
    expect(p2.data[0].id).not.toBe(p1.data[0].id);
    expect(p2.next_cursor).toBeNull();
    const rec = (await k.call("GET", `/campaigns/${camp.id}/recipients?limit=2`)).json();
    expect(rec.data).toHaveLength(2);
    expect(rec.data[0]).toMatchObject({ status: "queued" });
    const rec2 = (
      await k.call("GET", `/campaigns/${camp.id}/recipients?limit=2&cursor=${rec.next_cursor}`)
    ).json();
    expect(rec2.data).toHaveLength(1);
    expect(rec2.next_cursor).toBeNull();
    expect((await k.call("POST", `/campaigns/${camp.id}/pause`)).json()).toEqual({
      id: camp.id,
      status: "paused",
    });
    expect((await k.call("POST", `/campaigns/${camp.id}/pause`)).statusCode).toBe(409);
    expect((await k.call("POST", `/campaigns/${camp.id}/cancel`)).json().status).toBe("cancelled");
    const invalid = await k.call("POST", "/campaigns", {
      name: "x",
      channel: "fax",
      content: {},
      audience: {},
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.param).toBe("channel");
  });

  it("media list and get; tenant isolation: another workspace's ids are 404", async () => {
    const a = await keyed();
    const b = await keyed();
    expect((await a.call("GET", "/media")).json()).toEqual({ object: "list", data: [], next_cursor: null });
    expect((await a.call("GET", "/media/1")).statusCode).toBe(404);
    const c = (await a.call("POST", "/contacts", { first_name: "Mine", email: "mine@example.com" })).json();
    expect((await b.call("GET", `/contacts/${c.id}`)).statusCode).toBe(404);
    expect((await b.call("PATCH", `/contacts/${c.id}`, { company: "x" })).statusCode).toBe(404);
    expect((await b.call("DELETE", `/contacts/${c.id}`)).statusCode).toBe(404);
    expect((await b.call("GET", "/contacts")).json().data).toHaveLength(0);
    expect((await a.call("GET", `/contacts/${c.id}`)).statusCode).toBe(200);
  });
});

describe("v1 lead searches", () => {
  it("runs a search (201), gets it and its results with cursor pagination; scope leads:read; errors with param; tenant isolation", async () => {
    const a = await keyed(["leads:read"]);
    const run = await a.call("POST", "/lead_searches", {
      location: "Saginaw, MI",
      business_type: "dentist",
      radius: 5,
      search_radius: 2,
      filters: { min_rating: 3 },
    });
    expect(run.statusCode).toBe(201);
    const s = run.json();
    expect(s).toMatchObject({
      status: "completed",
      location: "Saginaw, MI",
      business_type: "dentist",
      radius: 5,
      search_radius: 2,
      provider: "local",
      enrichment: { status: "none", done: 0, total: 0, deferred_filters: [] },
      content_purged: false,
    });
    expect(s.total_results).toBeGreaterThan(3);
    expect(s.total_circles).toBeGreaterThan(0);
    expect(Date.parse(s.completed_at)).not.toBeNaN();
    expect((await a.call("GET", `/lead_searches/${s.id}`)).json()).toEqual(s);

    const first = (await a.call("GET", `/lead_searches/${s.id}/results?limit=2`)).json();
    expect(first.object).toBe("list");
    expect(first.data).toHaveLength(2);
    expect(first.data[0]).toMatchObject({ demo: true, lead_tier: { tier: expect.any(String) } });
    expect(first.data.every((b: { rating: number }) => b.rating >= 3)).toBe(true);
    const seen = first.data.map((b: { place_id: string }) => b.place_id);
    let cursor = first.next_cursor;
    while (cursor) {
      const page = (
        await a.call("GET", `/lead_searches/${s.id}/results?limit=2&cursor=${encodeURIComponent(cursor)}`)
      ).json();
      seen.push(...page.data.map((b: { place_id: string }) => b.place_id));
      cursor = page.next_cursor;
    }
    expect(seen).toHaveLength(s.total_results);
    expect(new Set(seen).size).toBe(seen.length);

    const bad = await a.call("POST", "/lead_searches", {
      location: "Saginaw, MI",
      business_type: "dentist",
      radius: 99,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({
      type: "invalid_request_error",
      message: expect.stringContaining("Radius must be between 1 and 50 miles"),
      param: "radius",
    });
    const unknown = await a.call("POST", "/lead_searches", {
      location: "Nowhere Land, ZZ",
      business_type: "x",
    });
    expect(unknown.statusCode).toBe(422);
    expect((await a.call("GET", "/lead_searches/not-an-id")).statusCode).toBe(404);

    const noScope = await keyed(["contacts:read"]);
    const refused = await noScope.call("GET", `/lead_searches/${s.id}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toContain("leads:read");
    const other = await keyed(["leads:read"]);
    expect((await other.call("GET", `/lead_searches/${s.id}`)).statusCode).toBe(404);
    expect((await other.call("GET", `/lead_searches/${s.id}/results`)).statusCode).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("GET /api/v1/openapi.json is a valid OpenAPI 3.1 document with every v1 route; /docs/api serves the console offline", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    for (const r of V1_ROUTES)
      expect(doc.paths[r.path]?.[r.method.toLowerCase()], `${r.method} ${r.path}`).toBeTruthy();
    expect(V1_ROUTES.length).toBeGreaterThanOrEqual(25);
    const page = await t.app.inject({ method: "GET", url: "/docs/api" });
    expect(page.body).toContain("/docs/api/assets/swagger-ui-bundle.js");
    const js = await t.app.inject({ method: "GET", url: "/docs/api/assets/swagger-ui-bundle.js" });
    expect(js.statusCode).toBe(200);
    expect(js.body.length).toBeGreaterThan(100_000);
    // the page's own colours, theme and accessible-name scripts (api.docs.theme.ts), same origin
    for (const [file, type] of [
      ["docs.css", "text/css"],
      ["theme.js", "application/javascript"],
      ["init.js", "application/javascript"],
      ["a11y.js", "application/javascript"],
    ] as const) {
      expect(page.body).toContain(`/docs/api/${file}`);
      const r = await t.app.inject({ method: "GET", url: `/docs/api/${file}` });
      expect(r.statusCode, file).toBe(200);
      expect(r.headers["content-type"], file).toContain(type);
    }
    const theme = (await t.app.inject({ method: "GET", url: "/docs/api/theme.js" })).body;
    const dark = JSON.parse(/var DARK = (\[.*\]);/.exec(theme)![1]!) as string[];
    expect(dark).toContain("midnight-blue");
    expect(dark).not.toContain("monochrome-elite");
  });

  it("/docs/api/assets/ serves its two files only: another name, even one every object has, is a 404 (not a 500)", async () => {
    for (const file of [
      "constructor",
      "__proto__",
      "toString",
      "hasOwnProperty",
      "package.json",
      "..%2fpackage.json",
    ]) {
      const res = await t.app.inject({ method: "GET", url: `/docs/api/assets/${file}` });
      expect(res.statusCode, file).toBe(404);
      expect(res.json(), file).toEqual({ success: false, error: "Not found" });
    }
  });
});

describe("outbound webhooks", () => {
  it("delivers signed events verified with the standardwebhooks package; retries after a 500 with the same webhook-id", async () => {
    const k = await keyed();
    const rx = await receiver([500]);
    try {
      const ep = await k.call("POST", "/webhook_endpoints", {
        url: rx.url,
        events: ["contact.created", "contact.deleted"],
      });
      expect(ep.statusCode).toBe(201);
      const { secret, id } = ep.json();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      expect((await k.call("GET", `/webhook_endpoints/${id}`)).json().secret).toBeUndefined();
      const c = (await k.call("POST", "/contacts", { first_name: "Hook", email: "hook@example.com" })).json();
      expect(rx.got).toHaveLength(2); // a 500, then the retry
      expect(rx.got[0]!.headers["webhook-id"]).toBe(rx.got[1]!.headers["webhook-id"]);
      const wh = new Webhook(secret);
      const last = rx.got[1]!;
      const payload = wh.verify(last.body, {
        "webhook-id": String(last.headers["webhook-id"]),
        "webhook-timestamp": String(last.headers["webhook-timestamp"]),
        "webhook-signature": String(last.headers["webhook-signature"]),
      }) as { type: string; data: { id: number; email: string } };
      expect(payload.type).toBe("contact.created");
      expect(payload.data).toMatchObject({ id: c.id, email: "hook@example.com" });
      // a wrong secret does not verify
      expect(() =>
        new Webhook(`whsec_${Buffer.from("x".repeat(24)).toString("base64")}`).verify(last.body, {
          "webhook-id": String(last.headers["webhook-id"]),
          "webhook-timestamp": String(last.headers["webhook-timestamp"]),
          "webhook-signature": String(last.headers["webhook-signature"]),
        }),
      ).toThrow();
      // not subscribed: contact.updated is not sent
      await k.call("PATCH", `/contacts/${c.id}`, { company: "x" });
      expect(rx.got).toHaveLength(2);
      const log = (await k.call("GET", `/webhook_endpoints/${id}/deliveries`)).json().data;
      expect(log[0]).toMatchObject({
        event_type: "contact.created",
        status: "succeeded",
        attempts: 2,
        response_code: 200,
      });
      expect(log[0].duration_ms).toBeGreaterThanOrEqual(0);
      // resend and test event through the settings API
      const resend = await k.client.post(`/api/webhook-deliveries/${log[0].id}/resend`);
      expect(resend.statusCode).toBe(200);
      expect(rx.got).toHaveLength(3);
      expect(rx.got[2]!.headers["webhook-id"]).toBe(rx.got[0]!.headers["webhook-id"]);
      expect((await k.client.post(`/api/webhook-endpoints/${id}/test`)).statusCode).toBe(200);
      expect(JSON.parse(rx.got[3]!.body).data.test).toBe(true);
      // disable: nothing is sent; delete
      await k.client.inject({
        method: "PATCH",
        url: `/api/webhook-endpoints/${id}`,
        payload: { enabled: false },
      });
      await k.call("DELETE", `/contacts/${c.id}`);
      expect(rx.got).toHaveLength(4);
      expect((await k.call("DELETE", `/webhook_endpoints/${id}`)).json()).toEqual({ id, deleted: true });
      expect((await k.call("GET", `/webhook_endpoints/${id}`)).statusCode).toBe(404);
    } finally {
      await rx.close();
    }
  });

  it("an endpoint failing for 5 days is disabled and the owner emailed", async () => {
    const k = await keyed();
    const rx = await receiver(Array(100).fill(503));
    try {
      const { id } = (
        await k.call("POST", "/webhook_endpoints", { url: rx.url, events: ["contact.created"] })
      ).json();
      await t.db
        .update(webhookEndpoints)
        .set({ failingSince: new Date(Date.now() - 5 * 24 * 3600_000 - 60_000) })
        .where(eq(webhookEndpoints.id, id));
      await k.call("POST", "/contacts", { first_name: "F", email: "f@example.com" });
      expect(rx.got).toHaveLength(1); // disabled after the first failure: no more retries
      const ep = (await k.call("GET", `/webhook_endpoints/${id}`)).json();
      expect(ep.enabled).toBe(false);
      expect(ep.disabled_reason).toContain("5 days");
      // the delivery that tripped it has ended too: failed, not left pending with no attempt to come
      const deliveries = (await k.call("GET", `/webhook_endpoints/${id}/deliveries`)).json().data;
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ status: "failed", attempts: 1, next_attempt_at: null });
      expect(deliveries[0].last_error).toContain("HTTP 503");
      const mails = await t.db.execute<{ to: string; subject: string; body: string }>(
        sql`select "to", subject, body from outbox_messages where workspace_id = ${k.user.id} and subject like 'Webhook endpoint disabled%'`,
      );
      expect(mails).toHaveLength(1);
      expect(mails[0]!.to).toBe(k.user.email);
      expect(mails[0]!.body).toContain(rx.url);
      // a younger failure streak does not disable
      const { id: id2 } = (
        await k.call("POST", "/webhook_endpoints", { url: rx.url, events: ["contact.updated"] })
      ).json();
      await t.db
        .update(webhookEndpoints)
        .set({ failingSince: new Date(Date.now() - 3600_000) })
        .where(eq(webhookEndpoints.id, id2));
      const c = (await k.call("GET", "/contacts")).json().data[0];
      await k.call("PATCH", `/contacts/${c.id}`, { company: "y" });
      expect((await k.call("GET", `/webhook_endpoints/${id2}`)).json().enabled).toBe(true);
    } finally {
      await rx.close();
    }
  });

  it("campaign.launched is emitted by the campaigns feature to subscribed endpoints", async () => {
    const k = await keyed();
    const rx = await receiver();
    try {
      await k.call("POST", "/webhook_endpoints", { url: rx.url, events: ["campaign.launched"] });
      const launch = await k.call("POST", "/campaigns", {
        name: "Hooked",
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        audience: { contacts: [{ first_name: "Q", email: "q@example.com" }] },
        scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
      });
      expect(launch.statusCode).toBe(201);
      const launched = rx.got.map((g) => JSON.parse(g.body)).filter((b) => b.type === "campaign.launched");
      expect(launched).toHaveLength(1);
      expect(launched[0].data).toMatchObject({
        id: launch.json().campaign.id,
        name: "Hooked",
        channel: "email",
      });
    } finally {
      await rx.close();
    }
  });

  it("lead_search.completed is sent when a search completes, and after its enrichment when asked (verified with standardwebhooks)", async () => {
    const k = await keyed(["leads:read", "webhooks:write"]);
    const rx = await receiver();
    try {
      const { secret } = (
        await k.call("POST", "/webhook_endpoints", { url: rx.url, events: ["lead_search.completed"] })
      ).json();
      const verify = (i: number) => {
        const g = rx.got[i]!;
        return new Webhook(secret).verify(g.body, {
          "webhook-id": String(g.headers["webhook-id"]),
          "webhook-timestamp": String(g.headers["webhook-timestamp"]),
          "webhook-signature": String(g.headers["webhook-signature"]),
        }) as { type: string; data: Record<string, unknown> };
      };
      const plain = (
        await k.call("POST", "/lead_searches", {
          location: "Saginaw, MI",
          business_type: "dentist",
          radius: 3,
        })
      ).json();
      expect(rx.got).toHaveLength(1);
      const first = verify(0);
      expect(first.type).toBe("lead_search.completed");
      expect(first.data).toMatchObject({
        id: plain.id,
        status: "completed",
        total_results: plain.total_results,
        enrichment: { status: "none" },
      });
      // with enrichment: one event, sent once the enrichment completed (the inline job ran it)
      const enriched = (
        await k.call("POST", "/lead_searches", {
          location: "Saginaw, MI",
          business_type: "dentist",
          radius: 3,
          enrich: true,
        })
      ).json();
      expect(rx.got).toHaveLength(2);
      expect(verify(1).data).toMatchObject({ id: enriched.id, enrichment: { status: "completed" } });
      expect(rx.got[1]!.headers["webhook-id"]).not.toBe(rx.got[0]!.headers["webhook-id"]);
      // tests run jobs inline: the response already shows the finished enrichment (a worker would show queued)
      expect(enriched.enrichment.status).toBe("completed");
    } finally {
      await rx.close();
    }
  });

  it("refuses private targets (SSRF guard) unless allow-listed; plain http only for allow-listed hosts", async () => {
    const k = await keyed();
    for (const url of [
      "http://example.com/x",
      "https://10.0.0.1/x",
      "https://localhost/x",
      "https://[::1]/x",
      "https://user:pw@example.com/",
    ]) {
      const r = await k.call("POST", "/webhook_endpoints", { url, events: ["contact.created"] });
      expect(r.statusCode, url).toBe(400);
      expect(r.json().error.param).toBe("url");
    }
    const ok = await k.call("POST", "/webhook_endpoints", {
      url: "https://example.com/hooks",
      events: ["contact.created"],
    });
    expect(ok.statusCode).toBe(201);
    expect(
      (await k.call("POST", "/webhook_endpoints", { url: "https://example.com", events: ["nope"] }))
        .statusCode,
    ).toBe(400);
  });
});
