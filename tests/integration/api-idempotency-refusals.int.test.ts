import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reserveUsage } from "../../src/server/features/billing/billing.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// Which answers an Idempotency-Key keeps (api.service keepsIdempotentAnswer; Stripe: results are
// saved only once the endpoint began executing). A refusal that changed nothing (400, 403, 404, 409,
// 422, 402) used to be stored and replayed for 24 hours, so a client that corrected its request and
// retried with the same key got the old refusal again, or 409 'already used with a different
// request'. Now such a refusal releases the key: the retry runs and its answer is the one kept. A
// campaign launch's inline contacts are made in the launch's transaction, so its refusal wrote nothing
// and is not kept either.

let t: TestApp;

const ALL = ["contacts:read", "contacts:write", "campaigns:read", "campaigns:write", "leads:read"];

async function keyed(scopes: string[] = ALL, plan = "business") {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, plan);
  const res = await u.client.post("/api/api-keys", { name: "idem", scopes });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const apiKeyId = res.json().apiKey.id as string;
  const call = (method: "GET" | "POST", url: string, payload?: unknown, idem?: string) =>
    t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}`, ...(idem ? { "idempotency-key": idem } : {}) },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  /** the key's idempotency records: key -> stored status (null while claimed) */
  const records = async () =>
    Object.fromEntries(
      (
        await t.db.execute<{ key: string; status_code: number | null }>(
          sql`select key, status_code from api_idempotency_keys where api_key_id = ${apiKeyId}`,
        )
      ).map((r) => [r.key, r.status_code]),
    );
  const contactCount = async () => {
    const [row] = await t.db.execute<{ n: number }>(
      sql`select count(*)::int as n from contacts where workspace_id = ${u.user.id}`,
    );
    return row!.n;
  };
  return { ...u, call, records, contactCount };
}

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("Idempotency-Key: a refusal that changed nothing is not kept", () => {
  it("POST /contacts: an invalid body is a 400; the same key with a valid body creates the contact (201), then replays it", async () => {
    const k = await keyed();
    const K = "fix-and-retry-1";
    const bad = await k.call("POST", "/contacts", { first_name: "Ida", email: "not an email" }, K);
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().error).toMatchObject({ type: "invalid_request_error", param: "email" });
    expect(bad.headers["idempotent-replayed"]).toBeUndefined();
    // nothing kept: the claim was released, not left "in progress"
    expect(await k.records()).toEqual({});

    const body = { first_name: "Ida", email: "ida@example.com" };
    const ok = await k.call("POST", "/contacts", body, K);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.headers["idempotent-replayed"]).toBeUndefined();
    expect(ok.json()).toMatchObject({ first_name: "Ida", email: "ida@example.com" });
    const got = await k.call("GET", `/contacts/${ok.json().id}`);
    expect(got.statusCode).toBe(200);
    expect(await k.records()).toEqual({ [K]: 201 });

    // the stored 201 is replayed: no second contact
    const again = await k.call("POST", "/contacts", body, K);
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(ok.json());
    expect(await k.contactCount()).toBe(1);
    // after a stored answer another body is still refused
    const other = await k.call("POST", "/contacts", { ...body, first_name: "Other" }, K);
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ type: "conflict", param: "Idempotency-Key" });
    expect(other.json().error.message).toContain("already used with a different request");
    expect(await k.contactCount()).toBe(1);
  });

  it("the same refused body sent again is refused again by running it, not replayed", async () => {
    const k = await keyed();
    const K = "same-bad-twice";
    const first = await k.call("POST", "/tags", { name: "" }, K);
    expect(first.statusCode).toBe(400);
    const second = await k.call("POST", "/tags", { name: "" }, K);
    expect(second.statusCode).toBe(400);
    expect(second.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.json()).toEqual(first.json());
    expect(await k.records()).toEqual({});
  });

  it("409 of the service (a duplicate email): the same key with another email creates the contact", async () => {
    const k = await keyed();
    expect((await k.call("POST", "/contacts", { first_name: "A", email: "a@example.com" })).statusCode).toBe(
      201,
    );
    const K = "dup-then-fixed";
    const dup = await k.call("POST", "/contacts", { first_name: "B", email: "a@example.com" }, K);
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.message).toBe("A contact with this email already exists");
    const fixed = await k.call("POST", "/contacts", { first_name: "B", email: "b@example.com" }, K);
    expect(fixed.statusCode, fixed.body).toBe(201);
    expect(fixed.headers["idempotent-replayed"]).toBeUndefined();
    expect(await k.contactCount()).toBe(2);
  });

  it("404 of an unknown id and 403 of a missing scope: the key then serves the request that works", async () => {
    const k = await keyed(["contacts:read", "contacts:write"]);
    const K = "unknown-id";
    const missing = await k.call("POST", "/contacts/999999999/notes", { note_text: "hi" }, K);
    expect(missing.statusCode).toBe(404);
    const c = (await k.call("POST", "/contacts", { first_name: "N", email: "n@example.com" })).json();
    const note = await k.call("POST", `/contacts/${c.id}/notes`, { note_text: "hi" }, K);
    expect(note.statusCode, note.body).toBe(201);

    const S = "no-scope";
    const body = { location: "Saginaw, MI", business_type: "dentist", radius: 2, search_radius: 2 };
    const forbidden = await k.call("POST", "/lead_searches", body, S);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.message).toBe("This API key lacks the 'leads:read' scope.");
    const made = await k.call("POST", "/tags", { name: "Scoped" }, S);
    expect(made.statusCode, made.body).toBe(201);
    expect(await k.records()).toEqual({ [K]: 201, [S]: 201 });
  });

  it("422 and 402 of a lead search: the corrected location, then the upgraded plan, run with the same key", async () => {
    const k = await keyed(["leads:read"]);
    const body = { location: "Saginaw, MI", business_type: "dentist", radius: 2, search_radius: 2 };
    const K = "search-1";
    const unknown = await k.call("POST", "/lead_searches", { ...body, location: "Nowhere Land, ZZ" }, K);
    expect(unknown.statusCode).toBe(422);
    // the month's 2,000 Business searches are used: 402, and nothing is kept
    await reserveUsage(t.ctx, k.user.id, "leadSearches", 2000);
    const over = await k.call("POST", "/lead_searches", body, K);
    expect(over.statusCode).toBe(402);
    expect(over.json().error.type).toBe("payment_required");
    expect(await k.records()).toEqual({});
    // the workspace upgrades; the same key and body now run the search
    await setPlan(t, k.user.id, "enterprise");
    const run = await k.call("POST", "/lead_searches", body, K);
    expect(run.statusCode, run.body).toBe(201);
    expect(run.headers["idempotent-replayed"]).toBeUndefined();
    const again = await k.call("POST", "/lead_searches", body, K);
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json().id).toBe(run.json().id);
  });
});

describe("Idempotency-Key: a campaign launch with inline contacts that is refused wrote nothing, so it is not kept", () => {
  it("POST /campaigns whose inline contacts are all skipped (422) creates no contact and keeps nothing; the corrected launch runs with the same key", async () => {
    const k = await keyed();
    const K = "campaign-nobody";
    // a phone and no email: matched to a new contact, then skipped, "no email address"; the contact
    // is made in the launch's transaction, which the 422 rolls back (it used to be committed first,
    // so the 422 was kept under the key and the corrected launch needed a new key)
    const body = {
      name: "Nobody",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contacts: [{ first_name: "Nemo", phone: "+14155550187" }] },
    };
    const first = await k.call("POST", "/campaigns", body, K);
    expect(first.statusCode, first.body).toBe(422);
    expect(first.json().error.message).toMatch(/^Nobody would receive this campaign/);
    expect(await k.contactCount()).toBe(0);
    expect(await k.records()).toEqual({});

    const again = await k.call("POST", "/campaigns", body, K);
    expect(again.statusCode).toBe(422);
    expect(again.headers["idempotent-replayed"]).toBeUndefined();
    expect(await k.contactCount()).toBe(0);
    const fixed = { ...body, audience: { contacts: [{ first_name: "Nemo", email: "nemo@example.com" }] } };
    const run = await k.call("POST", "/campaigns", fixed, K);
    expect(run.statusCode, run.body).toBe(201);
    expect(await k.contactCount()).toBe(1);
    expect(await k.records()).toEqual({ [K]: 201 });
  });

  it("POST /campaigns refused by the SMS meter (402) creates no contact; after an upgrade the same key launches once", async () => {
    const k = await keyed();
    const K = "campaign-over-meter";
    // Business: 2,500 SMS a month, all used
    await reserveUsage(t.ctx, k.user.id, "smsMessages", 2500);
    const body = {
      name: "Texts",
      channel: "sms",
      content: { message: "Hi" },
      include_not_opted_in: true,
      audience: { contacts: [{ first_name: "Tex", phone: "+14155550188" }] },
    };
    const over = await k.call("POST", "/campaigns", body, K);
    expect(over.statusCode, over.body).toBe(402);
    expect(await k.contactCount()).toBe(0);
    expect(await k.records()).toEqual({});
    await setPlan(t, k.user.id, "enterprise");
    const run = await k.call("POST", "/campaigns", body, K);
    expect(run.statusCode, run.body).toBe(201);
    expect(run.json().queued).toBe(1);
    expect(await k.contactCount()).toBe(1);
    const again = await k.call("POST", "/campaigns", body, K);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json().id).toBe(run.json().id);
    expect(await k.contactCount()).toBe(1);
  });

  it("the same launch without inline contacts (nothing written before its 422) is not kept", async () => {
    const k = await keyed();
    const K = "campaign-ids";
    const body = {
      name: "Nobody",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contact_ids: [999_999_999] },
    };
    const first = await k.call("POST", "/campaigns", body, K);
    expect(first.statusCode, first.body).toBe(422);
    expect(await k.records()).toEqual({});
    // the contact exists now: the same key launches to it
    const c = (await k.call("POST", "/contacts", { first_name: "P", email: "p@example.com" })).json();
    const launch = await k.call("POST", "/campaigns", { ...body, audience: { contact_ids: [c.id] } }, K);
    expect(launch.statusCode, launch.body).toBe(201);
    expect(launch.json().queued).toBe(1);
    expect(await k.records()).toEqual({ [K]: 201 });
  });
});
