import http from "node:http";
import type { AddressInfo } from "node:net";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { API_SCOPES } from "../../src/server/features/api/api.schemas";
import { createTestApp, signUp, type TestApp } from "../helpers";
import { multipart, silentWav, uploadTestClip } from "./studio-helpers";

/*
 * Contract test of the public REST API v1 as an outside developer meets it: a real server on a real
 * port (fetch over HTTP, not inject), the OpenAPI document it serves at /api/v1/openapi.json as the
 * only source of truth. Every operation is called with valid input (data made through the API
 * itself) and with invalid input; each answer's status must be listed for its operation, its body
 * must validate against that status's schema (Ajv, JSON Schema 2020-12), and the headers the
 * document declares must be there. Then: cursors stable under inserts between pages, `limit`
 * bounds, unknown query parameters, Idempotency-Key as documented.
 */

let t: TestApp;
let base: string;
let doc: any;
let key: string;
/** the walk's key: the invalid-input calls reach its data */
let mainKey: string;
let receiver: http.Server;
let receiverUrl: string;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
/** `${operationId} ${status}` of every answer checked against the document */
const seen = new Set<string>();
/** ids made by the walk, by path parameter name, for the invalid-input calls */
const made: Record<string, string> = {};

type Op = { path: string; method: string; op: any; re: RegExp; params: number };
let ops: Op[] = [];

function opOf(method: string, url: string): Op | undefined {
  const p = url.split("?")[0]!;
  return ops
    .filter((o) => o.method === method.toLowerCase() && o.re.test(p))
    .sort((a, b) => a.params - b.params)[0];
}

function resolve(schema: any): any {
  if (schema?.$ref?.startsWith("#/components/schemas/"))
    return doc.components.schemas[schema.$ref.slice("#/components/schemas/".length)];
  return schema;
}

interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * Sends `method /api/v1{url}` over HTTP with the key and checks the answer against the document:
 * the status is listed for the operation, the body validates against its schema, and each header
 * the response object declares (`headers`, required ones) is present.
 */
async function call(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  opts: { key?: string | null; raw?: string } = {},
): Promise<Res> {
  const k = opts.key === undefined ? key : opts.key;
  const h: Record<string, string> = { ...(k ? { authorization: `Bearer ${k}` } : {}), ...headers };
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    h["content-type"] ??= "application/json";
  }
  const r = await fetch(`${base}/api/v1${url}`, { method, headers: h, body: payload });
  const text = await r.text();
  const where = `${method} ${url} -> ${r.status}: ${text.slice(0, 400)}`;
  expect(r.status, where).toBeLessThan(500);
  expect(r.headers.get("content-type"), where).toMatch(/^application\/json/);
  const json = JSON.parse(text);
  expect(r.headers.get("request-id"), where).toBeTruthy();
  const o = opOf(method, url);
  if (o) {
    const response = o.op.responses[String(r.status)];
    expect(response, `${where}\nstatus ${r.status} is not listed for ${o.op.operationId}`).toBeDefined();
    const schema = resolve(response.content["application/json"].schema);
    const id = `${o.op.operationId} ${r.status}`;
    let v = validators.get(id);
    if (!v) {
      v = ajv.compile(schema);
      validators.set(id, v);
    }
    expect(v(json), `${where}\ndoes not match the document: ${ajv.errorsText(v.errors)}`).toBe(true);
    expect(response.headers, `${where}\n${o.op.operationId} ${r.status} declares no headers`).toBeDefined();
    for (const [name, hdr] of Object.entries(response.headers as Record<string, any>)) {
      const value = r.headers.get(name);
      if (hdr.required) expect(value, `${where}\nheader ${name} missing`).not.toBeNull();
      if (value === null) continue;
      const v = hdr.schema.type === "integer" ? Number(value) : value;
      expect(ajv.validate(hdr.schema, v), `${where}\nheader ${name}: ${value}`).toBe(true);
    }
    seen.add(id);
  } else {
    // not an operation: the not-found answer is still the documented Error shape
    expect(ajv.validate(doc.components.schemas.Error, json), where).toBe(true);
  }
  return { status: r.status, headers: r.headers, body: json, text };
}

/**
 * GETs a download operation's `url` (under /api/v1) over HTTP with the key: the status must be listed
 * for the operation as binary (`*\/*`, format binary), the body as long as its Content-Length, the
 * declared headers there. Returns the status, headers and bytes.
 */
async function download(url: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${base}/api/v1${url}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  const bytes = Buffer.from(await r.arrayBuffer());
  const where = `GET ${url} -> ${r.status}`;
  const o = opOf("GET", url)!;
  const response = o.op.responses[String(r.status)];
  expect(response?.content?.["*/*"]?.schema, `${where}: not a documented download`).toMatchObject({
    type: "string",
    format: "binary",
  });
  expect(bytes.length, where).toBe(Number(r.headers.get("content-length")));
  for (const [name, hdr] of Object.entries(response.headers as Record<string, any>))
    if (hdr.required) expect(r.headers.get(name), `${where}\nheader ${name} missing`).not.toBeNull();
  seen.add(`${o.op.operationId} ${r.status}`);
  return { status: r.status, headers: r.headers, bytes };
}

/** Expects a 4xx in the Error shape with `status` (and `param` when given). */
async function refused(
  res: Promise<Res>,
  status: number,
  param?: string,
): Promise<{ type: string; message: string; param?: string }> {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  expect(typeof r.body.error?.message, r.text).toBe("string");
  if (param !== undefined) expect(r.body.error.param, r.text).toBe(param);
  return r.body.error;
}

async function newKey(plan = "business") {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", {
    name: "contract",
    scopes: [...API_SCOPES],
  });
  expect(res.statusCode, res.body).toBe(200);
  return { ...u, key: res.json().key as string };
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    res.writeHead(req.url === "/fail" ? 500 : 200).end("ok");
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", API_RATE_LIMIT_PER_MINUTE: "100000" });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const r = await fetch(`${base}/api/v1/openapi.json`);
  expect(r.status).toBe(200);
  doc = await r.json();
  ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({
      path,
      method,
      op,
      re: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`),
      params: (path.match(/\{/g) ?? []).length,
    })),
  );
  key = (await newKey()).key;
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => receiver?.close(r));
});

describe("v1 contract: every operation, valid input, answers as documented", () => {
  it("walks every operation with data made through the API", async () => {
    const owner = await newKey();
    key = owner.key;
    mainKey = owner.key;
    // contacts
    const c1 = (await call("POST", "/contacts", { first_name: "Ada", email: "ada@example.com" })).body;
    const c2 = (
      await call("POST", "/contacts", {
        first_name: "Bob",
        last_name: "Stone",
        email: "bob@example.com",
        phone: "+1 415 555 0100",
        company: "Stone Co",
        lifecycle_stage: "customer",
      })
    ).body;
    expect(c1.id).toBeGreaterThan(0);
    expect((await call("GET", `/contacts/${c1.id}`)).body.id).toBe(c1.id);
    expect((await call("PATCH", `/contacts/${c1.id}`, { company: "Analytical" })).body.company).toBe(
      "Analytical",
    );
    const bulk = await call("POST", "/contacts/bulk", {
      contacts: [{ first_name: "Cy", email: "cy@example.com" }, { email: "bad" }],
    });
    expect(bulk.status).toBe(200);
    const list = await call("GET", "/contacts?limit=2&lifecycle_stage=customer");
    expect(list.body.data.map((c: { id: number }) => c.id)).toEqual([c2.id]);
    // notes
    const note = await call("POST", `/contacts/${c1.id}/notes`, { note_text: "Called" });
    expect(note.status).toBe(201);
    expect((await call("GET", `/contacts/${c1.id}/notes`)).body.data[0].id).toBe(note.body.id);
    // tags
    const tag = (await call("POST", "/tags", { name: "VIP" })).body;
    expect((await call("POST", `/contacts/${c1.id}/tags`, { tag_id: tag.id })).body).toEqual({
      contact_id: c1.id,
      tag_id: tag.id,
    });
    expect((await call("GET", "/tags")).body.data[0]).toMatchObject({ id: tag.id, contact_count: 1 });
    expect((await call("GET", `/contacts?tag_id=${tag.id}`)).body.data.map((c: any) => c.id)).toEqual([
      c1.id,
    ]);
    // segments
    const seg = await call("POST", "/segments", {
      name: "Customers",
      filter: { lifecycle_stage: "customer" },
    });
    expect(seg.status).toBe(201);
    expect((await call("GET", "/segments")).body.data[0].id).toBe(seg.body.id);
    expect((await call("GET", `/segments/${seg.body.id}/contacts`)).body.data.map((c: any) => c.id)).toEqual([
      c2.id,
    ]);
    expect((await call("DELETE", `/contacts/${c1.id}/tags/${tag.id}`)).body).toEqual({
      contact_id: c1.id,
      tag_id: tag.id,
      deleted: true,
    });
    expect((await call("DELETE", `/tags/${tag.id}`)).body).toEqual({ id: tag.id, deleted: true });
    // campaigns: one scheduled (pause, resume, cancel), one sent now
    const later = new Date(Date.now() + 3600_000).toISOString();
    const camp = await call("POST", "/campaigns", {
      name: "Later",
      channel: "email",
      content: { subject: "Hi {{first_name}}", body: "Hello" },
      audience: { contact_ids: [c1.id, c2.id] },
      scheduled_at: later,
    });
    expect(camp.status).toBe(201);
    const cid = camp.body.campaign.id;
    expect((await call("POST", `/campaigns/${cid}/pause`)).body).toEqual({ id: cid, status: "paused" });
    expect((await call("POST", `/campaigns/${cid}/resume`)).body.status).toBe("scheduled");
    const movedTo = new Date(Date.now() + 2 * 3600_000).toISOString();
    expect((await call("POST", `/campaigns/${cid}/reschedule`, { scheduled_at: movedTo })).body).toEqual({
      id: cid,
      status: "scheduled",
      scheduled_at: movedTo,
    });
    expect((await call("POST", `/campaigns/${cid}/cancel`)).body.status).toBe("cancelled");
    const now = await call("POST", "/campaigns", {
      name: "Now",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contacts: [{ first_name: "Dee", email: "dee@example.com" }] },
    });
    expect(now.status).toBe(201);
    expect((await call("GET", `/campaigns/${now.body.campaign.id}`)).body.id).toBe(now.body.campaign.id);
    expect((await call("GET", "/campaigns?limit=1")).body.data).toHaveLength(1);
    const rec = await call("GET", `/campaigns/${now.body.campaign.id}/recipients?limit=10`);
    expect(rec.body.data).toHaveLength(1);
    // media: an audio recording uploaded through the app
    const up = multipart(
      { name: "Silence" },
      { field: "audio", filename: "s.wav", contentType: "audio/wav", content: silentWav(1) },
    );
    const uploaded = await owner.client.inject({ method: "POST", url: "/api/audio/upload", ...up });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const mediaId = uploaded.json().media.id;
    expect((await call("GET", "/media")).body.data.map((m: any) => m.id)).toEqual([mediaId]);
    expect((await call("GET", `/media/${mediaId}`)).body.id).toBe(mediaId);
    // its file, whole and in part, at the url v1 gives (the key, not a session, opens it)
    const recording = (await call("GET", `/media/${mediaId}`)).body;
    expect(recording.url).toBe(`/api/v1/media/${mediaId}/file`);
    const whole = await download(`/media/${mediaId}/file`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe(recording.mime_type);
    expect(whole.bytes.length).toBe(recording.size);
    const part = await download(`/media/${mediaId}/file`, { range: "bytes=10-19" });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(whole.bytes.subarray(10, 20))).toBe(true);
    await refused(
      call("GET", `/media/${mediaId}/file`, undefined, { range: `bytes=${whole.bytes.length}-` }),
      416,
      "Range",
    );
    // a video's thumbnail and GIF preview (a one-second clip made with ffmpeg, processed by the app)
    const clipMedia = (await call("GET", `/media/${await uploadTestClip(owner.client)}`)).body;
    expect(clipMedia.thumbnail_url).toBe(`/api/v1/media/${clipMedia.id}/thumbnail`);
    expect(clipMedia.gif_url).toBe(`/api/v1/media/${clipMedia.id}/gif`);
    const thumb = await download(`/media/${clipMedia.id}/thumbnail`);
    expect([thumb.status, thumb.headers.get("content-type")]).toEqual([200, "image/jpeg"]);
    const gif = await download(`/media/${clipMedia.id}/gif`);
    expect([gif.status, gif.headers.get("content-type")]).toEqual([200, "image/gif"]);
    expect(gif.bytes.subarray(0, 4).toString("latin1")).toBe("GIF8");
    const clipFileBytes = await download(`/media/${clipMedia.id}/file`);
    expect(clipFileBytes.headers.get("content-type")).toBe("video/mp4");
    // lead searches
    const search = await call("POST", "/lead_searches", {
      location: "Austin, TX",
      business_type: "dentist",
      radius: 5,
    });
    expect(search.status).toBe(201);
    expect((await call("GET", `/lead_searches/${search.body.id}`)).body.id).toBe(search.body.id);
    const results = await call("GET", `/lead_searches/${search.body.id}/results?limit=2`);
    expect(results.body.data.length).toBeGreaterThan(0);
    // webhooks
    const ep = await call("POST", "/webhook_endpoints", { url: receiverUrl, events: ["contact.created"] });
    expect(ep.status).toBe(201);
    expect((await call("GET", "/webhook_endpoints")).body.data[0].id).toBe(ep.body.id);
    expect((await call("GET", `/webhook_endpoints/${ep.body.id}`)).body.id).toBe(ep.body.id);
    // roll the secret: with hours, and with no body at all (the default 24 hours)
    const rolled = await call("POST", `/webhook_endpoints/${ep.body.id}/rotate_secret`, {
      expires_in_hours: 1,
    });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).not.toBe(ep.body.secret);
    expect(typeof rolled.body.previous_secret_expires_at).toBe("string");
    expect((await call("POST", `/webhook_endpoints/${ep.body.id}/rotate_secret`)).status).toBe(200);
    const test = await call("POST", `/webhook_endpoints/${ep.body.id}/test`);
    expect(test.status).toBe(200);
    const deliveries = await call("GET", `/webhook_endpoints/${ep.body.id}/deliveries`);
    expect(deliveries.body.data[0].id).toBe(test.body.delivery_id);
    expect((await call("POST", `/webhook_deliveries/${test.body.delivery_id}/resend`)).body.id).toBe(
      test.body.delivery_id,
    );
    expect((await call("PATCH", `/webhook_endpoints/${ep.body.id}`, { enabled: false })).body.enabled).toBe(
      false,
    );
    // a contact with coordinates (geocoded from city and state) and custom fields, read back
    // through the list (written as JSON in SQL), the segment list and the single read
    const geo = await call("POST", "/contacts", {
      first_name: "Geo",
      email: "geo@example.com",
      city: "Austin",
      state: "TX",
      postal_code: "78701",
      lifecycle_stage: "customer",
      custom_fields: { industry: "dental", seats: 3, vip: true },
    });
    expect(geo.status).toBe(201);
    const geoList = await call("GET", "/contacts?search=Geo");
    expect(geoList.body.data[0].custom_fields).toEqual({ industry: "dental", seats: 3, vip: true });
    await call("GET", `/segments/${seg.body.id}/contacts`);
    await call("GET", `/contacts/${geo.body.id}`);
    // a failing webhook delivery: its status, code and error as documented
    const failing = await call("POST", "/webhook_endpoints", {
      url: receiverUrl.replace("/hook", "/fail"),
      events: ["contact.created"],
    });
    const failTest = await call("POST", `/webhook_endpoints/${failing.body.id}/test`);
    expect(failTest.status).toBe(200);
    const failed = await call("GET", `/webhook_endpoints/${failing.body.id}/deliveries`);
    expect(failed.body.data).toHaveLength(1);
    expect(failed.body.data[0]).toMatchObject({ status: "failed", response_code: 500 });
    expect(typeof geoList.body.data[0].latitude).toBe("number");
    await call("GET", `/webhook_endpoints/${failing.body.id}`);
    Object.assign(made, {
      contact: String(c2.id),
      campaign: String(cid),
      media: String(mediaId),
      search: search.body.id,
      delivery: test.body.delivery_id,
    });
    const ep2 = await call("POST", "/webhook_endpoints", { url: receiverUrl, events: ["contact.created"] });
    made.endpoint = ep2.body.id;
    made.tag = String((await call("POST", "/tags", { name: "Kept" })).body.id);
    made.segment = String(seg.body.id);
    expect((await call("DELETE", `/webhook_endpoints/${ep.body.id}`)).body).toEqual({
      id: ep.body.id,
      deleted: true,
    });
    expect((await call("DELETE", `/contacts/${c1.id}`)).body).toEqual({ id: c1.id, deleted: true });

    const done = new Set([...seen].filter((s) => /\s2\d\d$/.test(s)).map((s) => s.split(" ")[0]));
    const missing = ops.map((o) => o.op.operationId).filter((id) => !done.has(id));
    expect(missing, "operations never answered with success").toEqual([]);
  });
});

const UUID0 = "00000000-0000-4000-8000-000000000000";

/** `op`'s path with the walk's ids (`real`) or ids that exist nowhere. */
function fill(o: Op, real: boolean): string {
  return o.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const p = o.path;
    if (!real) return p.startsWith("/lead_searches") || p.startsWith("/webhook") ? UUID0 : "999999999";
    if (name === "tag_id") return made.tag!;
    if (p.startsWith("/contacts")) return made.contact!;
    if (p.startsWith("/tags")) return made.tag!;
    if (p.startsWith("/segments")) return made.segment!;
    if (p.startsWith("/campaigns")) return made.campaign!;
    if (p.startsWith("/media")) return made.media!;
    if (p.startsWith("/lead_searches")) return made.search!;
    if (p.startsWith("/webhook_endpoints")) return made.endpoint!;
    return made.delivery!;
  });
}

/** A body each operation accepts (for the calls whose other part is wrong). */
const VALID_BODY: Record<string, unknown> = {
  createContact: { first_name: "Eve", email: "eve@example.com" },
  bulkUpsertContacts: { contacts: [{ email: "f@example.com" }] },
  updateContact: { company: "X" },
  createNote: { note_text: "n" },
  createTag: { name: "T2" },
  tagContact: { tag_id: 1 },
  createSegment: { name: "S2" },
  createCampaign: {
    name: "C",
    channel: "email",
    content: { subject: "s", body: "b" },
    audience: { contacts: [{ email: "g@example.com" }] },
  },
  rescheduleCampaign: { scheduled_at: new Date(Date.now() + 3 * 3600_000).toISOString() },
  createLeadSearch: { location: "Austin, TX", business_type: "dentist" },
  createWebhookEndpoint: { url: "https://example.com/hook", events: ["contact.created"] },
  updateWebhookEndpoint: { enabled: true },
  rotateWebhookEndpointSecret: { expires_in_hours: 1 },
  sendWebhookTestEvent: { type: "contact.created" },
};

describe("v1 contract: invalid input is a documented 4xx in the Error shape, never a 5xx", () => {
  it("every operation: no key 401, unknown ids 404, unknown query parameter 400, bad and non-JSON bodies 400/415, limit and cursor bounds", async () => {
    key = mainKey;
    const fourxx = new Set<string>();
    for (const o of ops) {
      const m = o.method.toUpperCase();
      const hasBody = !!o.op.requestBody;
      const body = hasBody ? VALID_BODY[o.op.operationId] : undefined;
      const url = fill(o, true);
      const tag = `${m} ${o.path}`;
      // no key, and a key that does not exist
      expect((await refused(call(m, url, body, {}, { key: null }), 401)).type, tag).toBe(
        "authentication_error",
      );
      await refused(call(m, url, body, {}, { key: `pw_live_${"x".repeat(32)}` }), 401);
      // an unknown query parameter is named, never ignored
      await refused(call(m, `${url}?bogus=1`, body), 400, "bogus");
      // ids that exist nowhere (or another route's kind of id)
      if (o.path.includes("{")) {
        expect((await refused(call(m, fill(o, false), body), 404)).type, tag).toBe("not_found");
        await refused(call(m, o.path.replace(/\{\w+\}/g, "abc"), body), 404);
      }
      if (hasBody) {
        // an unknown field, a wrong type, not an object, not JSON, no body
        await refused(call(m, url, { ...(body as object), zz_unknown: 1 }), 400, "zz_unknown");
        await refused(call(m, url, ["not", "an", "object"]), 400);
        await refused(call(m, url, undefined, { "content-type": "application/json" }, { raw: "{nope" }), 400);
        // no body: refused where the document says one is required (a roll's may be left out)
        if (o.op.requestBody.required)
          await refused(call(m, url, undefined, { "content-type": "application/json" }), 400);
        const e = await refused(
          call(m, url, undefined, { "content-type": "text/plain" }, { raw: JSON.stringify(body) }),
          415,
        );
        expect(e.message, tag).toMatch(/Content-Type: application\/json/);
        await refused(
          call(m, url, undefined, { "content-type": "application/x-www-form-urlencoded" }, { raw: "a=1" }),
          415,
        );
      }
      const params = (o.op.parameters ?? []) as { name: string; in: string }[];
      if (params.some((p) => p.name === "limit")) {
        // decimal digits only: Number() would read 1e2 as 100, 0x10 as 16, +5 and " 5" as 5
        for (const l of ["0", "101", "-1", "abc", "2.5", "1&limit=2", "1e2", "0x10", "%2B5", "%205", ""])
          await refused(call(m, `${url}?limit=${l}`), 400, "limit");
        for (const c of [
          "bogus",
          "W10",
          "eyJhIjoxfQ",
          "MHgxMA",
          "MWUz",
          encodeURIComponent("a".repeat(1001)),
        ])
          await refused(call(m, `${url}?cursor=${c}`), 400, "cursor");
        const ok = await call(m, `${url}?limit=1`);
        expect(ok.status, tag).toBe(200);
        expect(ok.body.data.length, tag).toBeLessThanOrEqual(1);
        const max = await call(m, `${url}?limit=100`);
        expect(max.status, tag).toBe(200);
      }
      for (const s of seen) if (s.startsWith(`${o.op.operationId} 4`)) fourxx.add(o.op.operationId);
    }
    expect(ops.map((o) => o.op.operationId).filter((id) => !fourxx.has(id))).toEqual([]);
  });
});

/**
 * Walks a list page by page (limits 2, 3, 2, ...: the document says the next page may ask for
 * another limit), running `between` after each page; returns every id in the order received.
 */
async function walk(url: string, between: (page: number) => Promise<void>): Promise<unknown[]> {
  const got: unknown[] = [];
  let cursor: string | null = null;
  let page = 0;
  do {
    const sep = url.includes("?") ? "&" : "?";
    const res: Res = await call(
      "GET",
      `${url}${sep}limit=${page % 2 ? 3 : 2}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(res.status, res.text).toBe(200);
    got.push(...res.body.data.map((x: { id: unknown }) => x.id));
    cursor = res.body.next_cursor;
    page += 1;
    await between(page);
  } while (cursor && page < 50);
  return got;
}

describe("v1 contract: cursors are stable under inserts between pages", () => {
  it("newest-first lists (contacts, notes, campaigns, webhook endpoints, media) give each row once, none missed, new rows not mixed in", async () => {
    const k = await newKey();
    key = k.key;
    let n = 0;
    const contact = async () =>
      (await call("POST", "/contacts", { first_name: `P${++n}`, email: `p${n}@example.com` })).body.id;
    const before: number[] = [];
    for (let i = 0; i < 7; i++) before.unshift(await contact());
    const contacts = await walk("/contacts", async () => {
      await contact();
    });
    expect(contacts).toEqual(before);

    const cid = before[0]!;
    const note = async () =>
      (await call("POST", `/contacts/${cid}/notes`, { note_text: `note ${++n}` })).body.id;
    const notes: number[] = [];
    for (let i = 0; i < 6; i++) notes.unshift(await note());
    expect(await walk(`/contacts/${cid}/notes`, async () => void (await note()))).toEqual(notes);

    const campaign = async () =>
      (
        await call("POST", "/campaigns", {
          name: `C${++n}`,
          channel: "email",
          content: { subject: "s", body: "b" },
          audience: { contact_ids: [cid] },
          scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
        })
      ).body.campaign.id;
    const camps: number[] = [];
    for (let i = 0; i < 5; i++) camps.unshift(await campaign());
    expect(await walk("/campaigns", async () => void (await campaign()))).toEqual(camps);

    const endpoint = async () =>
      (await call("POST", "/webhook_endpoints", { url: receiverUrl, events: ["contact.created"] })).body.id;
    const eps: string[] = [];
    for (let i = 0; i < 5; i++) eps.unshift(await endpoint());
    expect(await walk("/webhook_endpoints", async () => void (await endpoint()))).toEqual(eps);

    const upload = async () => {
      const up = multipart(
        { name: `M${++n}` },
        { field: "audio", filename: "s.wav", contentType: "audio/wav", content: silentWav(0.2) },
      );
      const r = await k.client.inject({ method: "POST", url: "/api/audio/upload", ...up });
      expect(r.statusCode, r.body).toBe(200);
      return r.json().media.id as number;
    };
    const media: number[] = [];
    for (let i = 0; i < 5; i++) media.unshift(await upload());
    expect(await walk("/media", async () => void (await upload()))).toEqual(media);
  });

  it("by-name lists (tags, segments): rows added before the cursor are not repeated, rows after it come once, in order", async () => {
    const k = await newKey();
    key = k.key;
    for (const kind of ["tags", "segments"] as const) {
      const make = async (name: string) => (await call("POST", `/${kind}`, { name })).body.id as number;
      const names = ["b1", "b2", "b3", "b4", "b5", "b6"];
      const ids = new Map<number, string>();
      for (const name of names) ids.set(await make(name), name);
      const added: string[] = [];
      const got = await walk(`/${kind}`, async (page) => {
        // one name sorting before everything read so far, one after everything
        const early = `a${page}`;
        const late = `z${page}`;
        ids.set(await make(early), early);
        ids.set(await make(late), late);
        added.push(late);
      });
      const gotNames = got.map((id) => ids.get(id as number)!);
      expect(new Set(gotNames).size, kind).toBe(gotNames.length);
      expect(
        gotNames.filter((x) => x.startsWith("b")),
        kind,
      ).toEqual(names);
      expect(
        gotNames.filter((x) => x.startsWith("a")),
        kind,
      ).toEqual([]);
      expect([...gotNames].sort(), kind).toEqual(gotNames);
      // every late name added before the last page was read comes once
      expect(
        gotNames.filter((x) => x.startsWith("z")),
        kind,
      ).toEqual(added.slice(0, -1));
    }
  });
});

describe("v1 contract: Idempotency-Key, rate limit and filters as documented", () => {
  it("Idempotency-Key: a repeat replays the first answer (status, body, Idempotent-Replayed), another body is 409, over 255 characters is 400, a refusal is not kept", async () => {
    const k = await newKey();
    key = k.key;
    const o = ops.find((x) => x.op.operationId === "createContact")!;
    const header = o.op.parameters.find((p: { name: string }) => p.name === "Idempotency-Key");
    expect(header.schema.maxLength).toBe(255);
    const body = { first_name: "Ida", email: "ida@example.com" };
    const first = await call("POST", "/contacts", body, { "Idempotency-Key": "contract-1" });
    expect(first.status).toBe(201);
    const again = await call("POST", "/contacts", body, { "Idempotency-Key": "contract-1" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await call("GET", "/contacts")).body.data).toHaveLength(1);
    await refused(
      call("POST", "/contacts", { ...body, last_name: "X" }, { "Idempotency-Key": "contract-1" }),
      409,
      "Idempotency-Key",
    );
    // the same key on another route is another request
    await refused(call("POST", "/tags", { name: "I" }, { "Idempotency-Key": "contract-1" }), 409);
    const long = "k".repeat(255);
    expect((await call("POST", "/tags", { name: "L" }, { "Idempotency-Key": long })).status).toBe(201);
    await refused(
      call("POST", "/tags", { name: "M" }, { "Idempotency-Key": `${long}k` }),
      400,
      "Idempotency-Key",
    );
    // a refusal that changed nothing is not kept (as documented: "retry with the same key, with the
    // body corrected"): the same key then runs the corrected request, whose answer is the one kept
    const bad = await call("POST", "/tags", { name: "" }, { "Idempotency-Key": "contract-2" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("idempotent-replayed")).toBeNull();
    const fixed = await call("POST", "/tags", { name: "N" }, { "Idempotency-Key": "contract-2" });
    expect(fixed.status, fixed.text).toBe(201);
    const replayed = await call("POST", "/tags", { name: "N" }, { "Idempotency-Key": "contract-2" });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(fixed.body);
    expect(header.description).toContain("not kept");
  });

  it("rate limit: RateLimit-* on every answer to a key, then 429 with Retry-After in the Error shape", async () => {
    const other = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: "3" });
    const saved = base;
    try {
      await other.app.listen({ port: 0, host: "127.0.0.1" });
      base = `http://127.0.0.1:${(other.app.server.address() as AddressInfo).port}`;
      const u = await signUp(other.app);
      await other.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
      const res = await u.client.post("/api/api-keys", { name: "rl", scopes: ["contacts:read"] });
      const k = res.json().key as string;
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await call("GET", "/contacts", undefined, {}, { key: k });
        expect(r.status).toBe(200);
        expect(r.headers.get("ratelimit-limit")).toBe("3");
        remaining.push(r.headers.get("ratelimit-remaining")!);
      }
      expect(remaining).toEqual(["2", "1", "0"]);
      const limited = await call("GET", "/contacts", undefined, {}, { key: k });
      expect(limited.status).toBe(429);
      expect(limited.body.error.type).toBe("rate_limit_error");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    } finally {
      base = saved;
      await other.close();
    }
  });

  it("every documented contacts filter is applied (search reaches name, email, company and phone)", async () => {
    const k = await newKey();
    key = k.key;
    const a = (
      await call("POST", "/contacts", {
        first_name: "Quinn",
        email: "quinn@alpha.example",
        company: "Zeta Works",
        phone: "+1 415 555 0199",
        lifecycle_stage: "customer",
        lead_status: "qualified",
      })
    ).body.id;
    const b = (await call("POST", "/contacts", { first_name: "Rae", email: "rae@beta.example" })).body.id;
    const tag = (await call("POST", "/tags", { name: "F" })).body.id;
    await call("POST", `/contacts/${b}/tags`, { tag_id: tag });
    const ids = async (q: string) =>
      (await call("GET", `/contacts?${q}`)).body.data.map((c: { id: number }) => c.id);
    expect(await ids("")).toEqual([b, a]);
    for (const q of [
      "search=Quinn",
      "search=alpha.example",
      "search=Zeta",
      "search=0199",
      "lifecycle_stage=customer",
      "lead_status=qualified",
    ])
      expect(await ids(q), q).toEqual([a]);
    expect(await ids(`tag_id=${tag}`)).toEqual([b]);
    expect(await ids("search=nobody-matches")).toEqual([]);
  });
});

describe("v1 contract: scopes and plan", () => {
  it("every operation refuses a key without its scope (403 naming it), and every operation is a 402 once the plan loses API access", async () => {
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    // a key whose one scope no operation asks for alone: media:read only
    const res = await u.client.post("/api/api-keys", { name: "narrow", scopes: ["media:read"] });
    const narrow = res.json().key as string;
    const all = (
      await u.client.post("/api/api-keys", {
        name: "wide",
        scopes: [...API_SCOPES],
      })
    ).json().key as string;
    for (const o of ops) {
      const scope = o.op.security[0].bearerAuth[0] as string;
      const m = o.method.toUpperCase();
      const url = fill(o, false);
      const body = o.op.requestBody ? VALID_BODY[o.op.operationId] : undefined;
      if (scope !== "media:read") {
        const e = await refused(call(m, url, body, {}, { key: narrow }), 403);
        expect(e.type, `${m} ${o.path}`).toBe("permission_error");
        expect(e.message, `${m} ${o.path}`).toContain(scope);
      }
    }
    await t.db.update(workspaces).set({ plan: "free" }).where(eq(workspaces.id, u.user.id));
    for (const o of ops) {
      const m = o.method.toUpperCase();
      const body = o.op.requestBody ? VALID_BODY[o.op.operationId] : undefined;
      const e = await refused(call(m, fill(o, false), body, {}, { key: all }), 402);
      expect(e.type, `${m} ${o.path}`).toBe("payment_required");
    }
  });
});

describe("v1 contract: refusals say what is wrong", () => {
  it("a value over its length limit is refused with a sentence naming the limit, not 'is required'", async () => {
    const k = await newKey();
    key = k.key;
    const cases: [string, string, unknown, string, string][] = [
      ["POST", "/tags", { name: "t".repeat(51) }, "name", "Tag name must be at most 50 characters"],
      ["POST", "/segments", { name: "s".repeat(101) }, "name", "List name must be at most 100 characters"],
      [
        "POST",
        "/contacts",
        { first_name: "f".repeat(101), email: "a@example.com" },
        "first_name",
        "First name must be at most 100 characters",
      ],
      [
        "POST",
        "/contacts",
        { first_name: "F", email: `${"e".repeat(250)}@example.com` },
        "email",
        "Email must be at most 254 characters",
      ],
    ];
    for (const [m, url, body, param, message] of cases) {
      const e = await refused(call(m, url, body), 400, param);
      expect(e.message, `${m} ${url}`).toBe(message);
    }
  });
});

describe("v1 contract: a 400 names the field in param", () => {
  it("campaign content each channel needs, an audience naming nobody and an unknown preset are refused with param", async () => {
    const k = await newKey();
    key = k.key;
    const who = { contacts: [{ first_name: "A", email: "a@example.com", phone: "+14155550100" }] };
    const cases: [string, unknown, string][] = [
      [
        "/campaigns",
        { name: "C", channel: "email", content: { body: "b" }, audience: who },
        "content.subject",
      ],
      [
        "/campaigns",
        { name: "C", channel: "email", content: { subject: "s" }, audience: who },
        "content.body",
      ],
      ["/campaigns", { name: "C", channel: "sms", content: {}, audience: who }, "content.message"],
      ["/campaigns", { name: "C", channel: "voice", content: {}, audience: who }, "content.script"],
      ["/campaigns", { name: "C", channel: "voicemail", content: {}, audience: who }, "content.script"],
      [
        "/campaigns",
        { name: "C", channel: "email", content: { subject: "s", body: "b" }, audience: {} },
        "audience",
      ],
      [
        "/campaigns",
        { name: "C", channel: "email", content: { subject: "s", body: "b" }, audience: { contact_ids: [] } },
        "audience",
      ],
      ["/lead_searches", { location: "Austin, TX", business_type: "dentist", preset: "nope" }, "preset"],
    ];
    for (const [url, body, param] of cases) {
      const e = await refused(call("POST", url, body), 400, param);
      expect(e.message.toLowerCase(), JSON.stringify(body)).toContain(param.split(".").pop());
    }
    expect((await call("GET", "/campaigns")).body.data).toEqual([]);
  });
});
