import fs from "node:fs";
import path from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { and, eq, sql } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, mediaItems, workspaces } from "../../src/server/db/schema";
import { V1_ROUTES } from "../../src/server/features/api/api.v1";
import { FILTER_NAMES } from "../../src/server/features/api/api.v1.leads";
import { reserveUsage } from "../../src/server/features/billing/billing.service";
import { FILTERS } from "../../src/server/features/leads/leads.filters";
import { createTestApp, SHARED_DATA, SHARED_DATA_MISSING, signUp, type TestApp } from "../helpers";
import { uniquePhone } from "../unique-phone";
import { multipart } from "./studio-helpers";

/*
 * Coverage of the public REST API v1 (issue 15) beyond api.int.test.ts: campaigns on every channel
 * and audience form with their state machine, tenant isolation through keys, key expiry, media,
 * lead-search quota; and every v1 response received here is validated against the response schema
 * of its operation in GET /api/v1/openapi.json (JSON Schema 2020-12, Ajv).
 */

let t: TestApp;
/** the OpenAPI document (plain JSON) */
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();
/** `${operationId} ${status}` of every response validated against the document */
const validated = new Set<string>();
/** one received body per `${operationId} ${status}` (the validator's own check mutates them) */
const samples = new Map<string, unknown>();
/** responses whose status the document does not list (validated against its Error schema instead) */
const undocumented = new Set<string>();

const ROUTES = V1_ROUTES.map((r) => ({
  ...r,
  re: new RegExp(`^${r.path.replace(/\{\w+\}/g, "[^/]+")}$`),
  params: (r.path.match(/\{/g) ?? []).length,
}));

/** The V1 route answering `method url` (a literal segment wins over a parameter), or undefined. */
function routeOf(method: string, url: string) {
  const p = url.split("?")[0]!;
  return ROUTES.filter((r) => r.method === method && r.re.test(p)).sort((a, b) => a.params - b.params)[0];
}

function validatorFor(key: string, schema: unknown): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(schema as object);
    validators.set(key, v);
  }
  return v;
}

/**
 * Asserts that `res` (an answer of `method /api/v1{url}`) is what the OpenAPI document promises: a
 * status listed for the operation, a JSON body valid against that status's response schema.
 */
function assertDocumented(method: string, url: string, res: LightMyRequestResponse) {
  const route = routeOf(method, url);
  if (!route) return; // no such route: the not-found handler, not an operation of the document
  const op = doc.paths[route.path][method.toLowerCase()];
  const status = String(res.statusCode);
  if (route.binary && res.statusCode < 300) {
    // a download: a status the document lists as the file's bytes, all of them
    const listed = op.responses[status]?.content?.["*/*"]?.schema;
    expect(listed, `${method} ${url}: ${status} is not a documented download`).toMatchObject({
      type: "string",
      format: "binary",
    });
    expect(res.headers["content-type"], `${method} ${url}`).not.toMatch(/^application\/json/);
    expect(res.rawPayload.length, `${method} ${url}`).toBe(Number(res.headers["content-length"]));
    validated.add(`${route.operationId} ${status}`);
    return;
  }
  expect(res.headers["content-type"], `${method} ${url}`).toMatch(/^application\/json/);
  const body = res.json();
  let response = op.responses[status];
  if (!response) {
    // not listed for this operation: recorded (the last test fails on it) and checked as an Error
    expect(
      res.statusCode,
      `${method} ${url}: ${status} is neither documented nor an error`,
    ).toBeGreaterThanOrEqual(400);
    undocumented.add(`${route.operationId} ${status}`);
    response = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  }
  let schema = response.content["application/json"].schema;
  if (schema.$ref === "#/components/schemas/Error") schema = doc.components.schemas.Error;
  const validate = validatorFor(`${route.operationId} ${status}`, schema);
  const ok = validate(body);
  expect(
    ok,
    `${method} ${url} -> ${status} does not match its OpenAPI schema: ${ajv.errorsText(validate.errors)}\n${res.body.slice(0, 500)}`,
  ).toBe(true);
  validated.add(`${route.operationId} ${status}`);
  samples.set(`${route.operationId} ${status}`, body);
}

type Call = (
  method: string,
  url: string,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

/** Calls /api/v1 with a bearer key; every answer is checked against the OpenAPI document. */
function v1(key: string): Call {
  return async (method, url, payload, headers = {}) => {
    const res = await t.app.inject({
      method: method as "GET",
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}`, ...headers },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    assertDocumented(method, url, res);
    return res;
  };
}

const ALL_SCOPES = [
  "contacts:read",
  "contacts:write",
  "campaigns:read",
  "campaigns:write",
  "media:read",
  "leads:read",
  "webhooks:write",
];

/** A workspace on `plan` (Business by default) with a key of every scope. */
async function keyed(plan = "business", scopes = ALL_SCOPES, extra: Record<string, unknown> = {}) {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", { name: "coverage", scopes, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  const { key, apiKey } = res.json();
  return { ...u, key: key as string, apiKey, call: v1(key) };
}
type Keyed = Awaited<ReturnType<typeof keyed>>;

async function created<T = Record<string, unknown>>(p: Promise<LightMyRequestResponse>): Promise<T> {
  const res = await p;
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as T;
}

/** Adds tag `tagId` to contacts through the app's bulk operation (no v1 route tags a contact). */
async function tag(k: Keyed, tagId: number, contactIds: number[]) {
  const res = await k.client.post("/api/contacts/bulk/operation", {
    contactIds,
    operation: "add_tag",
    data: { tag_id: tagId },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** Every recipient of a campaign (walking the cursor pages), sorted by contact id. */
async function recipients(k: Keyed, campaignId: number, limit = 2) {
  const out: {
    contact_id: number;
    status: string;
    reason: string | null;
    address: string | null;
    sent_at: string | null;
    delivered_at: string | null;
    opened_at: string | null;
  }[] = [];
  let cursor: string | null = null;
  do {
    const res = await k.call(
      "GET",
      `/campaigns/${campaignId}/recipients?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    out.push(...res.json().data);
    cursor = res.json().next_cursor;
  } while (cursor);
  return out.sort((a, b) => a.contact_id - b.contact_id);
}

/**
 * Recipients of an email campaign the local provider sent: each sent and delivered; the simulated
 * engagement (campaigns.events simulateEngagement) opens about 45 % of them, with `opened_at` set.
 */
function assertDelivered(rows: Awaited<ReturnType<typeof recipients>>) {
  expect(rows).toHaveLength(3);
  for (const r of rows) {
    expect(["delivered", "opened"]).toContain(r.status);
    expect(r.sent_at).not.toBeNull();
    expect(r.delivered_at).not.toBeNull();
    expect(r.opened_at === null).toBe(r.status === "delivered");
  }
}

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => {
  await t?.close();
});

const LATER = () => new Date(Date.now() + 3600_000).toISOString();

const CONTENT: Record<string, Record<string, unknown>> = {
  email: { subject: "Hi {{first_name}}", body: "Hello there" },
  sms: { message: "Hi {{first_name}}, reply STOP to opt out" },
  voice: { script: "Hello {{first_name}}, this is a test call." },
  voicemail: { script: "Hello {{first_name}}, call us back." },
};
/** Channels whose campaigns need a ready library video: tests/integration/api-v1-video.int.test.ts. */
const VIDEO_CHANNELS = ["video_email", "video_sms"];

describe("v1 campaigns: every channel x every audience form", () => {
  it("the create schema's channels and audience forms are the ones this test covers", () => {
    const body = doc.paths["/campaigns"].post.requestBody.content["application/json"].schema;
    expect([...body.properties.channel.enum].sort()).toEqual(
      [...Object.keys(CONTENT), ...VIDEO_CHANNELS].sort(),
    );
    expect(Object.keys(body.properties.audience.properties).sort()).toEqual(
      ["contact_ids", "contacts", "filter", "segment_id", "tag_id"].sort(),
    );
    // a campaign's audience filter and a segment's filter are one schema
    const segment = doc.paths["/segments"].post.requestBody.content["application/json"].schema;
    expect(body.properties.audience.properties.filter.properties).toEqual(
      segment.properties.filter.properties,
    );
    expect(Object.keys(segment.properties.filter.properties).sort()).toEqual(
      ["lead_status", "lifecycle_stage", "search", "tag_id"].sort(),
    );
  });

  it("creates and schedules each channel with contacts, contact_ids, segment_id, tag_id and filter; recipients carry the right contacts and statuses", async () => {
    const k = await keyed();
    const mk = (body: Record<string, unknown>) => created<{ id: number }>(k.call("POST", "/contacts", body));
    const phoneOpts = { sms_opt_in: true, call_opt_in: true };
    const ann = await mk({
      first_name: "Ann",
      email: "ann@example.com",
      phone: "+12025550101",
      lifecycle_stage: "customer",
      ...phoneOpts,
    });
    const bob = await mk({
      first_name: "Bob",
      email: "bob@example.com",
      phone: "+12025550102",
      lifecycle_stage: "customer",
      ...phoneOpts,
    });
    const cy = await mk({
      first_name: "Cy",
      email: "cy@example.com",
      lifecycle_stage: "customer",
      email_opt_in: false,
    });
    const dee = await mk({
      first_name: "Dee",
      email: "dee@example.com",
      phone: "+12025550104",
      lifecycle_stage: "lead",
      lead_status: "qualified",
      ...phoneOpts,
    });
    const vip = await created<{ id: number }>(k.call("POST", "/tags", { name: "VIP" }));
    await tag(k, vip.id, [ann.id, bob.id]);
    const customers = await created<{ id: number }>(
      k.call("POST", "/segments", { name: "Customers", filter: { lifecycle_stage: "customer" } }),
    );
    expect((await k.call("GET", "/segments")).json().data).toMatchObject([
      { id: customers.id, contact_count: 3 },
    ]);

    const noPhone = "no valid phone number";
    let inline = 0;
    for (const channel of Object.keys(CONTENT)) {
      const email = channel === "email";
      // expected [contact id, status, reason] per audience form
      const forms: { audience: Record<string, unknown>; expect: [number, string, string | null][] }[] = [
        {
          audience: { contact_ids: [ann.id, cy.id] },
          expect: [
            [ann.id, "queued", null],
            [cy.id, "skipped", email ? "opted out of email" : noPhone],
          ],
        },
        {
          audience: { segment_id: customers.id },
          expect: [
            [ann.id, "queued", null],
            [bob.id, "queued", null],
            [cy.id, "skipped", email ? "opted out of email" : noPhone],
          ],
        },
        {
          audience: { tag_id: vip.id },
          expect: [
            [ann.id, "queued", null],
            [bob.id, "queued", null],
          ],
        },
        // the filter takes the names of a segment's filter and GET /contacts' query
        {
          audience: { filter: { lifecycle_stage: "customer", search: "bob" } },
          expect: [[bob.id, "queued", null]],
        },
        { audience: { filter: { tag_id: vip.id, search: "ann" } }, expect: [[ann.id, "queued", null]] },
        {
          audience: { filter: { lead_status: "qualified" } },
          expect: [[dee.id, "queued", null]],
        },
        // the union: ids plus a tag (Dee is not tagged)
        {
          audience: { contact_ids: [dee.id], tag_id: vip.id },
          expect: [
            [ann.id, "queued", null],
            [bob.id, "queued", null],
            [dee.id, "queued", null],
          ],
        },
      ];
      for (const f of forms) {
        const res = await k.call("POST", "/campaigns", {
          name: `${channel} ${JSON.stringify(f.audience)}`,
          channel,
          content: CONTENT[channel],
          audience: f.audience,
          scheduled_at: LATER(),
        });
        expect(res.statusCode, `${channel} ${JSON.stringify(f.audience)}: ${res.body}`).toBe(201);
        const r = res.json();
        const queued = f.expect.filter((e) => e[1] === "queued").length;
        expect(r.campaign).toMatchObject({ channel, status: "scheduled", recipient_count: f.expect.length });
        expect(r.queued).toBe(queued);
        const skipped = f.expect.filter((e) => e[2]).map((e) => e[2]!);
        expect(r.skipped).toEqual(Object.fromEntries(skipped.map((s) => [s, 1])));
        const got = await recipients(k, r.campaign.id);
        expect(
          got.map((x) => [x.contact_id, x.status, x.reason]),
          `${channel} ${JSON.stringify(f.audience)}`,
        ).toEqual(f.expect);
        for (const x of got.filter((g) => g.status === "queued"))
          expect(x.address).toBe(
            email
              ? `${x.contact_id === ann.id ? "ann" : x.contact_id === bob.id ? "bob" : "dee"}@example.com`
              : `+120255501${x.contact_id === ann.id ? "01" : x.contact_id === bob.id ? "02" : "04"}`,
          );
        // only one status when filtered
        const only = await k.call("GET", `/campaigns/${r.campaign.id}/recipients?status=skipped`);
        expect(only.json().data.map((x: { contact_id: number }) => x.contact_id)).toEqual(
          f.expect.filter((e) => e[1] === "skipped").map((e) => e[0]),
        );
        const one = (await k.call("GET", `/campaigns/${r.campaign.id}`)).json();
        expect(one.counts).toEqual(
          Object.fromEntries(
            ["queued", "skipped"]
              .map((s) => [s, f.expect.filter((e) => e[1] === s).length])
              .filter(([, n]) => n),
          ),
        );
      }
      // inline contacts become contacts of the workspace (new ones are not opted in to SMS/calls)
      inline += 1;
      const phone = `+1202555020${inline}`;
      const newEmail = `new${inline}@example.com`;
      const refused = await k.call("POST", "/campaigns", {
        name: `${channel} inline`,
        channel,
        content: CONTENT[channel],
        audience: { contacts: [{ first_name: "New", email: newEmail, phone }] },
        scheduled_at: LATER(),
      });
      if (email) {
        expect(refused.statusCode, refused.body).toBe(201);
        const got = await recipients(k, refused.json().campaign.id);
        expect(got).toHaveLength(1);
        expect(got[0]).toMatchObject({ status: "queued", address: newEmail });
      } else {
        // nobody opted in: 422 naming the reason, until the consent is confirmed
        expect(refused.statusCode, refused.body).toBe(422);
        expect(refused.json().error.message).toContain("not opted in to");
        const ok = await k.call("POST", "/campaigns", {
          name: `${channel} inline`,
          channel,
          content: CONTENT[channel],
          audience: { contacts: [{ first_name: "New", email: newEmail, phone }] },
          scheduled_at: LATER(),
          include_not_opted_in: true,
        });
        expect(ok.statusCode, ok.body).toBe(201);
        const got = await recipients(k, ok.json().campaign.id);
        expect(got).toHaveLength(1);
        expect(got[0]).toMatchObject({ status: "queued", address: phone });
      }
      const found = (await k.call("GET", `/contacts?search=${encodeURIComponent(newEmail)}`)).json().data;
      expect(found).toHaveLength(1);
    }
  }, 120_000);

  it("refuses invalid campaign bodies with a sentence and the param", async () => {
    const k = await keyed();
    const c = await created<{ id: number }>(
      k.call("POST", "/contacts", { first_name: "A", email: "a@example.com" }),
    );
    const tg = await created<{ id: number }>(k.call("POST", "/tags", { name: "T" }));
    const base = { name: "x", channel: "email", content: CONTENT.email, audience: { contact_ids: [c.id] } };
    const both = await k.call("POST", "/campaigns", {
      ...base,
      audience: { tag_id: tg.id, filter: { search: "a" } },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().error.message).toBe("Give tag_id or filter, not both (a filter can hold tag_id)");
    const badFilter = await k.call("POST", "/campaigns", { ...base, audience: { filter: { stge: "lead" } } });
    expect(badFilter.statusCode).toBe(400);
    // the old camelCase names are refused by name, as a segment's filter refuses them
    for (const [key, value] of [
      ["stage", "lead"],
      ["status", "new"],
      ["tagId", tg.id],
    ] as const) {
      for (const [url, body] of [
        ["/campaigns", { ...base, audience: { filter: { [key]: value } } }],
        ["/segments", { name: `S ${key}`, filter: { [key]: value } }],
      ] as const) {
        const res = await k.call("POST", url, body);
        expect(res.statusCode, `${url} ${key}`).toBe(400);
        const param = url === "/campaigns" ? `audience.filter.${key}` : `filter.${key}`;
        expect(res.json().error).toMatchObject({
          param,
          message: `This field is not accepted here: ${param}`,
        });
      }
    }
    const badStage = await k.call("POST", "/campaigns", {
      ...base,
      audience: { filter: { lifecycle_stage: "vip" } },
    });
    expect(badStage.json().error.param).toBe("audience.filter.lifecycle_stage");
    const noVideoPage = await k.call("POST", "/campaigns", { ...base, channel: "video_email" });
    expect(noVideoPage.json().error).toMatchObject({
      type: "invalid_request_error",
      message: expect.stringContaining("A video campaign needs a video: pass content.video_id"),
    });
    const noScript = await k.call("POST", "/campaigns", { ...base, channel: "voice", content: {} });
    expect(noScript.json().error).toMatchObject({
      message: "Content.script (what the call says) is required for a voice campaign",
      param: "content.script",
    });
    const nobody = await k.call("POST", "/campaigns", { ...base, audience: {} });
    expect(nobody.statusCode).toBe(400);
    expect(nobody.json().error).toMatchObject({
      message: "Audience names nobody: give contacts, contact_ids, segment_id, tag_id or filter",
      param: "audience",
    });
  });
});

describe("v1 campaign state machine", () => {
  it("pause, resume and cancel with their transitions; invalid transitions are 409 with a sentence", async () => {
    const k = await keyed();
    const ids: number[] = [];
    for (const n of [1, 2, 3])
      ids.push(
        (
          await created<{ id: number }>(
            k.call("POST", "/contacts", { first_name: `S${n}`, email: `s${n}@example.com` }),
          )
        ).id,
      );
    const launch = (scheduled: boolean) =>
      created<{ campaign: { id: number; status: string } }>(
        k.call("POST", "/campaigns", {
          name: "State",
          channel: "email",
          content: CONTENT.email,
          audience: { contact_ids: ids },
          ...(scheduled ? { scheduled_at: LATER() } : {}),
        }),
      );
    const post = (id: number, action: string) => k.call("POST", `/campaigns/${id}/${action}`);
    const conflict = async (id: number, action: string, message: string) => {
      const res = await post(id, action);
      expect(res.statusCode, `${action}: ${res.body}`).toBe(409);
      expect(res.json()).toEqual({ error: { type: "conflict", message } });
    };

    // scheduled -> paused -> (resume before its time) scheduled again; paused again, then resumed
    // once its time has come -> sending: the inline job client sends at once -> completed
    const a = (await launch(true)).campaign;
    expect(a.status).toBe("scheduled");
    await conflict(a.id, "resume", "A scheduled campaign cannot be resumed");
    expect((await post(a.id, "pause")).json()).toEqual({ id: a.id, status: "paused" });
    expect((await k.call("GET", `/campaigns/${a.id}`)).json().status).toBe("paused");
    await conflict(a.id, "pause", "A paused campaign cannot be paused");
    expect((await post(a.id, "resume")).json()).toEqual({ id: a.id, status: "scheduled" });
    expect((await k.call("GET", `/campaigns/${a.id}`)).json().status).toBe("scheduled");
    expect((await post(a.id, "pause")).json()).toEqual({ id: a.id, status: "paused" });
    await t.db.execute(
      sql`update campaigns set scheduled_at = now() - interval '1 second' where id = ${a.id}`,
    );
    expect((await post(a.id, "resume")).json()).toEqual({ id: a.id, status: "sending" });
    const afterResume = (await k.call("GET", `/campaigns/${a.id}`)).json();
    expect(afterResume.status).toBe("completed");
    expect(afterResume.progress).toBe(1);
    const sent = await recipients(k, a.id, 100);
    assertDelivered(sent);
    await conflict(a.id, "cancel", "A completed campaign cannot be cancelled");
    await conflict(a.id, "pause", "A completed campaign cannot be paused");
    await conflict(a.id, "resume", "A completed campaign cannot be resumed");

    // scheduled -> cancelled: queued recipients become cancelled; nothing else is allowed after
    const b = (await launch(true)).campaign;
    expect((await post(b.id, "cancel")).json()).toEqual({ id: b.id, status: "cancelled" });
    const got = (await k.call("GET", `/campaigns/${b.id}`)).json();
    expect(got).toMatchObject({ status: "cancelled", counts: { cancelled: 3 } });
    expect((await recipients(k, b.id)).map((r) => r.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    await conflict(b.id, "resume", "A cancelled campaign cannot be resumed");
    await conflict(b.id, "pause", "A cancelled campaign cannot be paused");
    await conflict(b.id, "cancel", "A cancelled campaign cannot be cancelled");

    // paused -> cancelled
    const c = (await launch(true)).campaign;
    await post(c.id, "pause");
    expect((await post(c.id, "cancel")).json().status).toBe("cancelled");

    // reschedule: a scheduled campaign moves (the time given with an offset, answered in UTC); a past
    // or unreadable time is a 400 with a sentence; a campaign no longer scheduled a 409
    const e = (await launch(true)).campaign;
    const at = new Date(Date.now() + 2 * 86_400_000);
    at.setUTCSeconds(0, 0);
    const withOffset = `${new Date(at.getTime() + 2 * 3600_000).toISOString().slice(0, 19)}+02:00`;
    const reschedule = (id: number, body: unknown) => k.call("POST", `/campaigns/${id}/reschedule`, body);
    const moved = await reschedule(e.id, { scheduled_at: withOffset });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toEqual({ id: e.id, status: "scheduled", scheduled_at: at.toISOString() });
    expect((await k.call("GET", `/campaigns/${e.id}`)).json()).toMatchObject({
      status: "scheduled",
      scheduled_at: at.toISOString(),
    });
    const past = await reschedule(e.id, { scheduled_at: new Date(Date.now() - 60_000).toISOString() });
    expect(past.statusCode, past.body).toBe(400);
    expect(past.json().error.message).toBe(
      "Please pick a time in the future, at least a minute from now, to reschedule the campaign to.",
    );
    const unreadable = await reschedule(e.id, { scheduled_at: "tomorrow at noon" });
    expect(unreadable.statusCode, unreadable.body).toBe(400);
    expect(unreadable.json().error).toEqual({
      type: "invalid_request_error",
      message: "Scheduled at must be a date and time such as 2026-01-31T09:00:00Z",
      param: "scheduled_at",
    });
    expect((await reschedule(e.id, {})).json().error.param).toBe("scheduled_at");
    expect((await k.call("GET", `/campaigns/${e.id}`)).json().scheduled_at).toBe(at.toISOString());
    await post(e.id, "pause");
    const notScheduled = await reschedule(e.id, { scheduled_at: LATER() });
    expect(notScheduled.statusCode, notScheduled.body).toBe(409);
    expect(notScheduled.json()).toEqual({
      error: { type: "conflict", message: "A paused campaign cannot be rescheduled" },
    });
    const gone = await reschedule(999_999_999, { scheduled_at: LATER() });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({ error: { type: "not_found", message: "Campaign not found" } });

    // launched now: sent at once (inline jobs), so already completed with delivered recipients
    const d = (await launch(false)).campaign;
    const now = (await k.call("GET", `/campaigns/${d.id}`)).json();
    expect(now.status).toBe("completed");
    expect((now.counts.delivered ?? 0) + (now.counts.opened ?? 0)).toBe(3);
    assertDelivered(await recipients(k, d.id));
    expect(now.started_at).not.toBeNull();

    // not a campaign id at all
    for (const id of ["0", "abc", "999999999"]) {
      const res = await post(id as unknown as number, "pause");
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { type: "not_found", message: "Campaign not found" } });
    }
    expect((await k.call("GET", `/campaigns/${a.id}/recipients?cursor=bogus`)).json().error.param).toBe(
      "cursor",
    );
  });
});

describe("v1 tenant isolation through keys", () => {
  it("a key of workspace A gets 404 for workspace B's campaign, recipients, notes, webhook endpoint, media and cannot reach B's contacts through an audience", async () => {
    const a = await keyed();
    const b = await keyed();
    const bContact = await created<{ id: number }>(
      b.call("POST", "/contacts", {
        first_name: "Bee",
        email: "bee@example.com",
        lifecycle_stage: "customer",
      }),
    );
    const bNote = await created<{ id: number }>(
      b.call("POST", `/contacts/${bContact.id}/notes`, { note_text: "secret" }),
    );
    const bTag = await created<{ id: number }>(b.call("POST", "/tags", { name: "B only" }));
    await tag(b, bTag.id, [bContact.id]);
    const bSeg = await created<{ id: number }>(
      b.call("POST", "/segments", { name: "B customers", filter: { lifecycle_stage: "customer" } }),
    );
    const bCamp = (
      await created<{ campaign: { id: number } }>(
        b.call("POST", "/campaigns", {
          name: "B",
          channel: "email",
          content: CONTENT.email,
          audience: { contact_ids: [bContact.id] },
          scheduled_at: LATER(),
        }),
      )
    ).campaign;
    const bHook = await created<{ id: string }>(
      b.call("POST", "/webhook_endpoints", { url: "https://example.com/b", events: ["contact.created"] }),
    );

    const notFound = async (method: string, url: string, body?: unknown, message?: string) => {
      const res = await a.call(method, url, body);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
      expect(res.json().error.type).toBe("not_found");
      if (message) expect(res.json().error.message).toBe(message);
      expect(res.body).not.toContain("bee@example.com");
      expect(res.body).not.toContain("secret");
    };
    await notFound("GET", `/campaigns/${bCamp.id}`, undefined, "Campaign not found");
    await notFound("GET", `/campaigns/${bCamp.id}/recipients`, undefined, "Campaign not found");
    for (const action of ["pause", "resume", "cancel"])
      await notFound("POST", `/campaigns/${bCamp.id}/${action}`);
    const bScheduledAt = (await b.call("GET", `/campaigns/${bCamp.id}`)).json().scheduled_at;
    await notFound(
      "POST",
      `/campaigns/${bCamp.id}/reschedule`,
      { scheduled_at: new Date(Date.now() + 86_400_000).toISOString() },
      "Campaign not found",
    );
    await notFound("GET", `/contacts/${bContact.id}/notes`, undefined, "Contact not found");
    await notFound("POST", `/contacts/${bContact.id}/notes`, { note_text: "mine now" }, "Contact not found");
    await notFound("GET", `/webhook_endpoints/${bHook.id}`);
    await notFound("PATCH", `/webhook_endpoints/${bHook.id}`, { enabled: false });
    await notFound("GET", `/webhook_endpoints/${bHook.id}/deliveries`);
    await notFound("DELETE", `/webhook_endpoints/${bHook.id}`);

    // B's tag and segment exist only for B: A's lists do not show them, a filter by B's tag finds nothing of B's
    expect((await a.call("GET", "/tags")).json().data).toEqual([]);
    expect((await a.call("GET", "/segments")).json().data).toEqual([]);
    expect((await a.call("GET", "/webhook_endpoints")).json().data).toEqual([]);
    expect((await a.call("GET", `/contacts?tag_id=${bTag.id}`)).json().data).toEqual([]);
    expect((await a.call("GET", "/campaigns")).json().data).toEqual([]);

    // audiences naming B's segment, tag or contacts reach none of B's contacts
    const launch = (audience: Record<string, unknown>) =>
      a.call("POST", "/campaigns", { name: "steal", channel: "email", content: CONTENT.email, audience });
    await notFound(
      "POST",
      "/campaigns",
      { name: "s", channel: "email", content: CONTENT.email, audience: { segment_id: bSeg.id } },
      "List not found",
    );
    await notFound(
      "POST",
      "/campaigns",
      { name: "s", channel: "email", content: CONTENT.email, audience: { tag_id: bTag.id } },
      "Tag not found",
    );
    await notFound(
      "POST",
      "/campaigns",
      { name: "s", channel: "email", content: CONTENT.email, audience: { filter: { tag_id: bTag.id } } },
      "Tag not found",
    );
    // B's contact is counted as "contact not found", word for word as an id no workspace has: the
    // answer tells nothing of whether B's contact exists
    const ids = await launch({ contact_ids: [bContact.id] });
    expect(ids.statusCode, ids.body).toBe(422);
    expect(ids.json().error).toEqual({
      type: "invalid_request_error",
      message: "Nobody would receive this campaign: 1 contact not found.",
    });
    const unknown = await launch({ contact_ids: [2_000_000_000] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toEqual(ids.json().error);
    // mixed with one of A's own: only A's contact is a recipient
    const mine = await created<{ id: number }>(
      a.call("POST", "/contacts", { first_name: "Mine", email: "mine@example.com" }),
    );
    const mixed = await created<{ campaign: { id: number; recipient_count: number } }>(
      launch({ contact_ids: [bContact.id, mine.id] }),
    );
    expect(mixed.campaign.recipient_count).toBe(1);
    expect((await recipients(a, mixed.campaign.id)).map((r) => r.contact_id)).toEqual([mine.id]);
    // nothing was sent to or changed for B
    expect((await b.call("GET", `/campaigns`)).json().data).toHaveLength(1);
    expect(
      (await b.call("GET", `/contacts/${bContact.id}/notes`)).json().data.map((n: { id: number }) => n.id),
    ).toEqual([bNote.id]);
    expect((await b.call("GET", `/webhook_endpoints/${bHook.id}`)).json().enabled).toBe(true);
    expect((await b.call("GET", `/campaigns/${bCamp.id}`)).json()).toMatchObject({
      status: "scheduled",
      scheduled_at: bScheduledAt,
    });
  });
});

describe("v1 campaign recipients carry what the campaign report records", () => {
  it("an SMS recipient's reply text, reply and opt-out times; a call's answerer and length; null when unknown; documented; another workspace's campaign is a 404", async () => {
    const k = await keyed();
    const phone = await uniquePhone("312");
    const other = await uniquePhone("312");
    const mk = (first_name: string, p: string) =>
      created<{ id: number }>(
        k.call("POST", "/contacts", {
          first_name,
          email: `${first_name.toLowerCase()}@example.com`,
          phone: p,
          sms_opt_in: true,
          call_opt_in: true,
        }),
      );
    const [rita, sam] = [await mk("Rita", phone), await mk("Sam", other)];
    // scheduled: nothing is sent; the rows below are set as the providers' callbacks set them
    const launch = async (channel: "sms" | "voice") =>
      (
        await created<{ campaign: { id: number } }>(
          k.call("POST", "/campaigns", {
            name: `Report facts ${channel}`,
            channel,
            content: CONTENT[channel],
            audience: { contact_ids: [rita.id, sam.id] },
            scheduled_at: LATER(),
          }),
        )
      ).campaign.id;
    const sms = await launch("sms");
    const voice = await launch("voice");
    const reply = '<b>Yes</b> =1+1 "call me"';
    await t.db
      .update(campaignRecipients)
      .set({
        status: "replied",
        sentAt: new Date("2026-04-01T10:00:00.000Z"),
        repliedAt: new Date("2026-04-01T10:05:00.000Z"),
        replyText: reply,
        optedOutAt: new Date("2026-04-01T10:06:00.000Z"),
      })
      .where(and(eq(campaignRecipients.campaignId, sms), eq(campaignRecipients.contactId, rita.id)));
    await t.db
      .update(campaignRecipients)
      .set({
        status: "delivered",
        sentAt: new Date("2026-04-01T11:00:00.000Z"),
        deliveredAt: new Date("2026-04-01T11:01:00.000Z"),
        answeredBy: "machine_start",
        callSeconds: 18,
      })
      .where(and(eq(campaignRecipients.campaignId, voice), eq(campaignRecipients.contactId, rita.id)));

    const byContact = async (id: number) => {
      const res = await k.call("GET", `/campaigns/${id}/recipients`);
      expect(res.statusCode, res.body).toBe(200);
      return new Map((res.json().data as Record<string, unknown>[]).map((r) => [r.contact_id as number, r]));
    };
    const texts = await byContact(sms);
    expect(texts.get(rita.id)).toMatchObject({
      status: "replied",
      replied_at: "2026-04-01T10:05:00.000Z",
      reply_text: reply,
      opted_out_at: "2026-04-01T10:06:00.000Z",
      answered_by: null,
      call_seconds: null,
    });
    expect(texts.get(sam.id)).toMatchObject({
      replied_at: null,
      reply_text: null,
      opted_out_at: null,
      answered_by: null,
      call_seconds: null,
    });
    const calls = await byContact(voice);
    expect(calls.get(rita.id)).toMatchObject({
      status: "delivered",
      delivered_at: "2026-04-01T11:01:00.000Z",
      answered_by: "machine_start",
      call_seconds: 18,
      reply_text: null,
      opted_out_at: null,
    });
    expect(calls.get(sam.id)).toMatchObject({ answered_by: null, call_seconds: null });

    // the OpenAPI document lists and describes each field (each answer above was validated against it)
    const item =
      doc.paths["/campaigns/{id}/recipients"].get.responses["200"].content["application/json"].schema
        .properties.data.items;
    const schema = item.$ref ? doc.components.schemas[item.$ref.split("/").pop()] : item;
    for (const field of ["replied_at", "reply_text", "opted_out_at", "answered_by", "call_seconds"]) {
      expect(schema.required, field).toContain(field);
      expect(schema.properties[field]?.description, field).toBeTruthy();
    }
    expect(schema.properties.opted_out_at.description).toContain("START");

    // another workspace's key: the campaigns are not found, their reply text never shown
    const stranger = await keyed();
    for (const id of [sms, voice]) {
      const res = await stranger.call("GET", `/campaigns/${id}/recipients`);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().error).toMatchObject({ type: "not_found", message: "Campaign not found" });
      expect(res.body).not.toContain("call me");
    }
  });
});

describe("v1 API key expiry", () => {
  it("a key past its expires_at is refused with 401 'This API key has expired.'; a future expiry works; a past one cannot be created", async () => {
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    const past = await u.client.post("/api/api-keys", {
      name: "old",
      scopes: ["contacts:read"],
      expires_at: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().error).toBe("Expires at must be in the future");

    const mk = async (expiresAt: Date) => {
      const res = await u.client.post("/api/api-keys", {
        name: "exp",
        scopes: ["contacts:read"],
        expires_at: expiresAt.toISOString(),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().apiKey.expires_at).toBe(expiresAt.toISOString());
      return res.json().key as string;
    };
    const longLived = v1(await mk(new Date(Date.now() + 30 * 24 * 3600_000)));
    const shortAt = new Date(Date.now() + 3000);
    const short = v1(await mk(shortAt));
    expect((await longLived("GET", "/contacts")).statusCode).toBe(200);
    expect((await short("GET", "/contacts")).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, shortAt.getTime() - Date.now() + 100));
    const expired = await short("GET", "/contacts");
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({
      error: { type: "authentication_error", message: "This API key has expired." },
    });
    expect(expired.headers["request-id"]).toBeTruthy();
    // expiry is checked before anything else the request does: a write is refused the same way
    expect((await short("POST", "/contacts", { first_name: "X", email: "x@example.com" })).statusCode).toBe(
      401,
    );
    expect((await longLived("GET", "/contacts")).statusCode).toBe(200);
    const listed = (await u.client.get("/api/api-keys")).json().apiKeys;
    expect(listed.filter((k: { expires_at: string | null }) => k.expires_at)).toHaveLength(2);
  });
});

describe.skipIf(!SHARED_DATA)(`v1 media (${SHARED_DATA_MISSING})`, () => {
  it("a real uploaded video and audio file are listed and fetched by v1 with the documented fields; a voicemail campaign plays the recording", async () => {
    const k = await keyed();
    const media = path.join(SHARED_DATA!, "media");
    const upload = async (url: string, field: string, file: string, name: string) => {
      const body = multipart(
        { name },
        { field, filename: file, content: fs.readFileSync(path.join(media, file)) },
      );
      const res = await k.client.inject({ method: "POST", url, ...body });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().media.id as number;
    };
    const videoId = await upload("/api/videos/upload", "video", "mdn-flower.mp4", "Flower");
    const audioId = await upload("/api/audio/upload", "audio", "mdn-t-rex-roar.mp3", "Roar");

    const list = (await k.call("GET", "/media")).json();
    expect(list.next_cursor).toBeNull();
    expect(list.data.map((m: { id: number }) => m.id).sort()).toEqual([videoId, audioId].sort());
    const page1 = (await k.call("GET", "/media?limit=1")).json();
    expect(page1.data).toHaveLength(1);
    const page2 = (await k.call("GET", `/media?limit=1&cursor=${page1.next_cursor}`)).json();
    expect(page2.next_cursor).toBeNull();
    expect([page1.data[0].id, page2.data[0].id].sort()).toEqual([videoId, audioId].sort());

    const video = (await k.call("GET", `/media/${videoId}`)).json();
    expect(video).toMatchObject({
      id: videoId,
      name: "Flower",
      type: "video",
      mime_type: "video/mp4",
      width: 960,
      height: 540,
      status: "published",
      processing_status: "ready",
    });
    expect(video.size).toBeGreaterThan(0);
    expect(video.duration).toBeGreaterThan(4.9);
    expect(video.duration).toBeLessThan(5.2);
    // the files at v1 routes that take the API key (the app's /api/media/... take a session only)
    expect(video).toMatchObject({
      url: `/api/v1/media/${videoId}/file`,
      thumbnail_url: `/api/v1/media/${videoId}/thumbnail`,
      gif_url: `/api/v1/media/${videoId}/gif`,
    });
    expect(list.data.find((m: { id: number }) => m.id === videoId)).toEqual(video);
    const v1Path = (url: string) => url.replace(/^\/api\/v1/, "");
    const file = await k.call("GET", v1Path(video.url));
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("video/mp4");
    expect(file.rawPayload.length).toBe(video.size);
    expect(file.rawPayload.subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect(file.headers["request-id"]).toBeTruthy();
    const part = await k.call("GET", v1Path(video.url), undefined, { range: "bytes=0-99" });
    expect(part.statusCode).toBe(206);
    expect(part.headers["content-range"]).toBe(`bytes 0-99/${video.size}`);
    expect(part.rawPayload.equals(file.rawPayload.subarray(0, 100))).toBe(true);
    const past = await k.call("GET", v1Path(video.url), undefined, { range: `bytes=${video.size + 10}-` });
    expect(past.statusCode).toBe(416);
    expect(past.json().error).toMatchObject({ type: "invalid_request_error", param: "Range" });
    const thumb = await k.call("GET", v1Path(video.thumbnail_url));
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers["content-type"]).toBe("image/jpeg");
    expect(thumb.rawPayload.subarray(0, 2).toString("hex")).toBe("ffd8");
    const gif = await k.call("GET", v1Path(video.gif_url));
    expect(gif.statusCode).toBe(200);
    expect(gif.rawPayload.subarray(0, 4).toString("latin1")).toBe("GIF8");
    const audio = (await k.call("GET", `/media/${audioId}`)).json();
    expect(audio).toMatchObject({ id: audioId, name: "Roar", type: "audio", processing_status: "ready" });
    expect(audio.mime_type).toMatch(/^audio\//);
    expect(audio.width).toBeNull();
    expect(audio.duration).toBeGreaterThan(1.9);
    expect(audio).toMatchObject({ url: `/api/v1/media/${audioId}/file`, thumbnail_url: null, gif_url: null });
    const audioFile = await k.call("GET", `/media/${audioId}/file`);
    expect(audioFile.statusCode).toBe(200);
    expect(audioFile.headers["content-type"]).toBe(audio.mime_type);
    // an audio item has no thumbnail: 404 in the Error shape
    expect((await k.call("GET", `/media/${audioId}/thumbnail`)).statusCode).toBe(404);

    // a voicemail campaign plays the uploaded recording; a video is refused; another workspace's is 404
    const c = await created<{ id: number }>(
      k.call("POST", "/contacts", {
        first_name: "V",
        email: "v@example.com",
        phone: "+12025550111",
        call_opt_in: true,
      }),
    );
    const vm = (audio_media_id: number) =>
      k.call("POST", "/campaigns", {
        name: "VM",
        channel: "voicemail",
        content: { audio_media_id },
        audience: { contact_ids: [c.id] },
        scheduled_at: LATER(),
      });
    expect((await vm(audioId)).statusCode).toBe(201);
    const asVideo = await vm(videoId);
    expect(asVideo.statusCode).toBe(400);
    expect(asVideo.json().error.message).toContain('"Flower" is a video');

    const other = await keyed();
    for (const url of [
      `/media/${videoId}`,
      `/media/${audioId}`,
      `/media/${videoId}/file`,
      `/media/${videoId}/gif`,
    ]) {
      const res = await other.call("GET", url);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.message).toBe("Media not found");
    }
    expect((await other.call("GET", "/media")).json().data).toEqual([]);
    const foreign = await other.call("POST", "/campaigns", {
      name: "VM",
      channel: "voicemail",
      content: { audio_media_id: audioId },
      audience: { contacts: [{ first_name: "W", phone: "+12025550112" }] },
      include_not_opted_in: true,
      scheduled_at: LATER(),
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.message).toBe("Recording not found in your media library");
    // the key needs media:read
    const noScope = await keyed("business", ["contacts:read"]);
    for (const url of ["/media", `/media/${videoId}/file`]) {
      const refused = await noScope.call("GET", url);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.message).toBe("This API key lacks the 'media:read' scope.");
    }
  }, 120_000);
});

describe("v1 lead searches", () => {
  const body = { location: "Saginaw, MI", business_type: "dentist", radius: 5, search_radius: 2 };

  it("Enterprise runs a search and pages its results; the monthly search quota is a 402 with a sentence", async () => {
    const e = await keyed("enterprise", ["leads:read"]);
    const run = await created<{ id: string; total_results: number; status: string }>(
      e.call("POST", "/lead_searches", body),
    );
    expect(run.status).toBe("completed");
    expect(run.total_results).toBeGreaterThan(0);
    const got = (await e.call("GET", `/lead_searches/${run.id}/results?limit=100`)).json();
    expect(got.data).toHaveLength(run.total_results);
    expect(got.data[0]).toMatchObject({ demo: true, place_id: expect.any(String), name: expect.any(String) });

    // Business: 2,000 searches a month; one run here plus 1,999 earlier this month use them up
    const k = await keyed("business", ["leads:read"]);
    const first = await created<{ id: string }>(k.call("POST", "/lead_searches", body));
    await reserveUsage(t.ctx, k.user.id, "leadSearches", 1999);
    const over = await k.call("POST", "/lead_searches", body);
    expect(over.statusCode).toBe(402);
    expect(over.json().error).toEqual({
      type: "payment_required",
      message:
        "Your Business plan includes 2,000 lead searches a month; this needs 1 and 0 are left. Upgrade to Enterprise for up to 10,000 lead searches a month.",
    });
    const unknown = await k.call("POST", "/lead_searches", { ...body, location: "Nowhere Land, ZZ" });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.type).toBe("invalid_request_error");
    // the quota gates new runs only: earlier results stay readable
    expect((await k.call("GET", `/lead_searches/${first.id}`)).statusCode).toBe(200);
    expect((await k.call("GET", `/lead_searches/${first.id}/results`)).statusCode).toBe(200);
    // a plan without API access is refused before the search (no plan has API access without searches)
    await t.db.update(workspaces).set({ plan: "professional" }).where(eq(workspaces.id, e.user.id));
    const gated = await e.call("POST", "/lead_searches", body);
    expect(gated.statusCode).toBe(402);
    expect(gated.json().error.message).toBe(
      "API access is not included in your Professional plan. Upgrade to Business to use API access.",
    );
  }, 60_000);
});

describe("v1 keyset cursors of recipients, media and lead-search results", () => {
  /** Walks a list with a different `limit` on each page; returns the ids in order. */
  async function walk(k: Keyed, url: string, limits: number[], idOf: (x: any) => string | number) {
    const seen: (string | number)[] = [];
    let cursor: string | null = null;
    let i = 0;
    do {
      const sep = url.includes("?") ? "&" : "?";
      const res = await k.call(
        "GET",
        `${url}${sep}limit=${limits[i % limits.length]}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...res.json().data.map(idOf));
      cursor = res.json().next_cursor;
      i++;
    } while (cursor && i < 100);
    return seen;
  }

  it("a changed limit continues where the last page ended: each row once, in order", async () => {
    const k = await keyed();
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4, 5, 6, 7])
      ids.push(
        (
          await created<{ id: number }>(
            k.call("POST", "/contacts", { first_name: `K${n}`, email: `k${n}@example.com` }),
          )
        ).id,
      );
    const camp = (
      await created<{ campaign: { id: number } }>(
        k.call("POST", "/campaigns", {
          name: "Keyset",
          channel: "email",
          content: CONTENT.email,
          audience: { contact_ids: ids },
          scheduled_at: LATER(),
        }),
      )
    ).campaign;
    const url = `/campaigns/${camp.id}/recipients`;
    const once = await walk(k, url, [100], (x) => x.id);
    expect(once).toHaveLength(7);
    expect([...once].sort((a, b) => Number(a) - Number(b))).toEqual(once);
    // 2, then 3, then 1, then 2 ...: the same rows in the same order (the old offset cursor refused this)
    expect(await walk(k, url, [2, 3, 1], (x) => x.id)).toEqual(once);
    expect(await walk(k, url, [3, 1], (x) => x.id)).toEqual(once);
    // with a status filter
    expect(await walk(k, `${url}?status=queued`, [4, 1], (x) => x.id)).toEqual(once);
    // a cursor past the last recipient is an empty last page
    const past = Buffer.from(JSON.stringify([Number.MAX_SAFE_INTEGER])).toString("base64url");
    expect((await k.call("GET", `${url}?cursor=${past}`)).json()).toEqual({
      object: "list",
      data: [],
      next_cursor: null,
    });
    for (const bad of [
      "bogus",
      Buffer.from("50").toString("base64url"),
      Buffer.from('["x"]').toString("base64url"),
    ])
      expect((await k.call("GET", `${url}?cursor=${bad}`)).json().error).toEqual({
        type: "invalid_request_error",
        message: "cursor is not valid",
        param: "cursor",
      });

    // media: newest first by (created_at, id); three share one millisecond
    const at = new Date("2026-01-02T03:04:05.006Z");
    const rows = await t.db
      .insert(mediaItems)
      .values(
        [0, 0, 0, 1, 2, 3].map((d, i) => ({
          workspaceId: k.user.id,
          name: `M${i}`,
          type: "audio" as const,
          processingStatus: "ready" as const,
          mimeType: "audio/mpeg",
          sizeBytes: 10,
          originalSizeBytes: 10,
          createdAt: new Date(at.getTime() + d),
        })),
      )
      .returning({ id: mediaItems.id, createdAt: mediaItems.createdAt });
    const newestFirst = [...rows]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)
      .map((r) => r.id);
    expect(await walk(k, "/media", [100], (x) => x.id)).toEqual(newestFirst);
    expect(await walk(k, "/media", [1, 2], (x) => x.id)).toEqual(newestFirst);
    expect(await walk(k, "/media", [4, 1], (x) => x.id)).toEqual(newestFirst);
    // a new item between pages does not shift the next page: the cursor is the last row's key
    const p1 = (await k.call("GET", "/media?limit=2")).json();
    await t.db.insert(mediaItems).values({
      workspaceId: k.user.id,
      name: "Newer",
      type: "audio",
      processingStatus: "ready",
      mimeType: "audio/mpeg",
      sizeBytes: 10,
      originalSizeBytes: 10,
      createdAt: new Date(at.getTime() + 10),
    });
    const p2 = (await k.call("GET", `/media?limit=3&cursor=${p1.next_cursor}`)).json();
    expect(p2.data.map((x: { id: number }) => x.id)).toEqual(newestFirst.slice(2, 5));

    // lead-search results: by position in the result order
    const e = await keyed("enterprise", ["leads:read"]);
    const run = await created<{ id: string; total_results: number }>(
      e.call("POST", "/lead_searches", {
        location: "Saginaw, MI",
        business_type: "dentist",
        radius: 5,
        search_radius: 2,
      }),
    );
    const rurl = `/lead_searches/${run.id}/results`;
    const all = await walk(e, rurl, [100], (x) => x.place_id);
    expect(all).toHaveLength(run.total_results);
    expect(await walk(e, rurl, [2, 5, 1], (x) => x.place_id)).toEqual(all);
    expect((await e.call("GET", `${rurl}?cursor=bogus`)).json().error.param).toBe("cursor");
  }, 60_000);

  it("media pages are read in SQL by (created_at, id) to the microsecond: items of one millisecond or one instant across page boundaries come once each, another workspace's never; hostile cursors are a 400", async () => {
    const k = await keyed();
    const other = await keyed();
    // microseconds after 2026-01-02 03:04:05 UTC. Inserted in this order in one statement, so ids
    // ascend down the list: within millisecond .006 the later items have the lower ids, and a cursor
    // cut to milliseconds (or compared to the millisecond) skips or repeats them. Seven of ours (and
    // five of the other workspace's, ids interleaved) share the very instant .006300.
    const mine = [7000, 6900, 6500, 6300, 6300, 6300, 6300, 6300, 6300, 6300, 6100, 6000, 5999];
    const theirs = [6300, 6300, 6300, 6300, 6300, 7000];
    const at = (us: number) => sql`${`2026-01-02 03:04:05.${String(us).padStart(6, "0")}+00`}::timestamptz`;
    const item = (workspaceId: string, us: number, i: number) => ({
      workspaceId,
      name: `T${us}-${i}`,
      type: "audio" as const,
      processingStatus: "ready" as const,
      mimeType: "audio/mpeg",
      sizeBytes: 10,
      originalSizeBytes: 10,
      createdAt: at(us),
    });
    const values = mine.flatMap((us, i) => [
      { ws: k.user.id, us, row: item(k.user.id, us, i) },
      ...(i < theirs.length
        ? [{ ws: other.user.id, us: theirs[i]!, row: item(other.user.id, theirs[i]!, i) }]
        : []),
    ]);
    const ids = (
      await t.db
        .insert(mediaItems)
        .values(values.map((v) => v.row))
        .returning({ id: mediaItems.id })
    ).map((r) => r.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids); // ids ascend in statement order
    const newestFirst = (ws: string) =>
      values
        .map((v, i) => ({ ...v, id: ids[i]! }))
        .filter((v) => v.ws === ws)
        .sort((a, b) => b.us - a.us || b.id - a.id)
        .map((v) => v.id);
    const ours = newestFirst(k.user.id);
    const theirIds = newestFirst(other.user.id);
    expect(ours).toHaveLength(mine.length);

    // every limit pattern gives every item once, in (created_at, id) order; with limit 2 the page
    // boundaries fall inside millisecond .006 and inside the seven items of instant .006300
    for (const limits of [[100], [1], [2], [3], [2, 3, 1], [4, 1, 5], [6, 2]])
      expect(await walk(k, "/media", limits, (x) => x.id), `limits ${limits}`).toEqual(ours);
    expect(await walk(other, "/media", [2, 1], (x) => x.id)).toEqual(theirIds);

    // the cursor holds created_at as Postgres text, microseconds kept, and the id
    const p1 = (await k.call("GET", "/media?limit=4")).json();
    expect(p1.data.map((x: { id: number }) => x.id)).toEqual(ours.slice(0, 4));
    const key = JSON.parse(Buffer.from(p1.next_cursor, "base64url").toString("utf8"));
    expect(key).toEqual([expect.stringContaining("05.0063"), ours[3]]);
    // the same cursor in the other workspace pages that workspace's items only
    const crossed = (await other.call("GET", `/media?limit=100&cursor=${p1.next_cursor}`)).json();
    expect(crossed.data.map((x: { id: number }) => x.id)).toEqual(
      theirIds.filter((id) => {
        const us = values[ids.indexOf(id)]!.us;
        return us < 6300 || (us === 6300 && id < ours[3]!);
      }),
    );
    for (const x of crossed.data) expect(ours).not.toContain(x.id);

    // hostile cursors, and the old [epoch ms, id] form, are the standard 400
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const ms = Date.parse("2026-01-02T03:04:05.006Z");
    for (const bad of [
      "bogus",
      enc([ms, ours[3]]),
      enc([String(ms), ours[3]]),
      enc(["2026-13-45 25:61:61+00", 1]),
      enc(["2026-01-02 03:04:05.0063+99", 1]),
      enc(["2026-01-02 03:04:05.006300+00", 0]),
      enc(["2026-01-02 03:04:05.006300+00", 1.5]),
      enc(["2026-01-02 03:04:05.006300+00", "1"]),
      enc(["2026-01-02 03:04:05.006300+00", 1, 2]),
      enc(["2026-01-02 03:04:05.006300+00\u0000", 1]),
      enc(["2026-01-02 03:04:05.006300+00'; drop table media_items; --", 1]),
      enc([`2026-01-02 03:04:05.${"1".repeat(50)}+00`, 1]),
    ]) {
      const res = await k.call("GET", `/media?cursor=${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error).toEqual({
        type: "invalid_request_error",
        message: "cursor is not valid",
        param: "cursor",
      });
    }
    // a key without media:read is a 403 (also here: the real-file test above is skipped without ../shared/data)
    const noScope = await keyed("business", ["contacts:read"]);
    const refused = await noScope.call("GET", "/media");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toBe("This API key lacks the 'media:read' scope.");
  }, 60_000);
});

describe("v1 lead searches in snake_case", () => {
  const base = { location: "Saginaw, MI", business_type: "dentist", radius: 5, search_radius: 2 };

  it("filters take snake_case names (the leads feature's keys, mapped once); results are snake_case with every field documented", async () => {
    const e = await keyed("enterprise", ["leads:read"]);
    const all = await created<{ id: string; total_results: number }>(e.call("POST", "/lead_searches", base));
    const allRows = (await e.call("GET", `/lead_searches/${all.id}/results?limit=100`)).json().data;
    expect(allRows.length).toBe(all.total_results);
    const r0 = allRows[0];
    // snake_case only, with the score fields the leads feature names in camelCase
    for (const row of allRows) for (const key of Object.keys(row)) expect(key).toMatch(/^[a-z0-9_]+$/);
    expect(r0).toMatchObject({
      lead_score: expect.any(Number),
      lead_tier: { tier: expect.stringMatching(/^(HOT|WARM|COLD)$/) },
      score_reasons: expect.any(Array),
      opening_hours: { open_now: expect.anything() },
      in_contacts: false,
    });
    expect(r0.score_reasons.length).toBeGreaterThan(0);
    expect(r0.leadScore).toBeUndefined();
    // the document lists every field of a result (its object is closed: the OpenAPI check above
    // validated each received row against it, so no field can be missing from it)
    const item =
      doc.paths["/lead_searches/{id}/results"].get.responses["200"].content["application/json"].schema
        .properties.data.items;
    const full = item.anyOf.find((x: { properties: Record<string, unknown> }) => x.properties.lead_score);
    expect(full.additionalProperties).toBe(false);
    expect(Object.keys(full.properties).sort()).toEqual(Object.keys(r0).sort());

    // every filter of the Filter set has its v1 name in the document, each once
    const filters =
      doc.paths["/lead_searches"].post.requestBody.content["application/json"].schema.properties.filters;
    expect(Object.keys(filters.properties).sort()).toEqual([...FILTER_NAMES.keys()].sort());
    expect(new Set(FILTER_NAMES.values())).toEqual(new Set(FILTERS.map((f) => f.key)));
    expect(FILTER_NAMES.get("has_linkedin")).toBe("hasLinkedIn");
    expect(FILTER_NAMES.get("include_zip_codes")).toBe("includeZipCodes");
    // filters: min_rating and include_zip_codes work as the app's minRating and includeZipCodes
    const rated = allRows.filter((b: { rating: number | null }) => (b.rating ?? 0) >= 4);
    expect(rated.length).toBeGreaterThan(0);
    expect(rated.length).toBeLessThan(allRows.length);
    const min = await created<{ id: string; total_results: number }>(
      e.call("POST", "/lead_searches", { ...base, filters: { min_rating: 4 } }),
    );
    expect(min.total_results).toBe(rated.length);
    const zip = allRows.find((b: { postal_code: string | null }) => b.postal_code)?.postal_code as string;
    const inZip = allRows.filter((b: { postal_code: string | null }) => b.postal_code === zip).length;
    const zipped = await created<{ id: string; total_results: number }>(
      e.call("POST", "/lead_searches", { ...base, filters: { include_zip_codes: [zip] } }),
    );
    expect(zipped.total_results).toBe(inZip);

    const refused = async (
      filters: Record<string, unknown>,
      param: string,
      message: string,
      status = 400,
    ) => {
      const res = await e.call("POST", "/lead_searches", { ...base, filters });
      expect(res.statusCode, `${JSON.stringify(filters)}: ${res.body}`).toBe(status);
      expect(res.json().error).toMatchObject({ param, message });
    };
    // the app's camelCase names are not v1's
    await refused(
      { minRating: 4 },
      "filters.minRating",
      "This field is not accepted here: filters.minRating",
    );
    await refused({ min_rating: "high" }, "filters.min_rating", "Minimum rating must be a number");
    await refused({ min_rating: 9 }, "filters.min_rating", "Minimum rating must be at most 5");
    await refused(
      { include_zip_codes: ["4860"] },
      "filters.include_zip_codes.0",
      "ZIP codes must be 5 digits",
    );
    await refused(
      { min_rating: 4.5, max_rating: 3 },
      "filters.min_rating",
      "Minimum rating must not be more than maximum rating",
    );
    await refused({ has_linkedin: "yes" }, "filters.has_linkedin", "Has linkedin must be true or false");
    // a filter the provider cannot answer: 422 naming it by its v1 name
    const dnc = await e.call("POST", "/lead_searches", { ...base, filters: { dnc_compliant: true } });
    expect(dnc.statusCode, dnc.body).toBe(422);
    expect(dnc.json().error.param).toBe("filters.dnc_compliant");
    expect(dnc.json().error.message).toContain("dnc_compliant (");
    expect(dnc.json().error.message).not.toContain("dncCompliant");
  }, 60_000);
});

describe("v1 contact custom fields", () => {
  it("create, PATCH (merge; null removes), bulk upsert and the app's JSON import write custom_fields; merge tags read them; limits and hostile input are 400s", async () => {
    const k = await keyed();
    const c = await created<{ id: number; custom_fields: Record<string, unknown> }>(
      k.call("POST", "/contacts", {
        first_name: "Cora",
        email: "cora@example.com",
        custom_fields: { industry: "dental", seats: 12, vip: true, dropped: null },
      }),
    );
    expect(c.custom_fields).toEqual({ industry: "dental", seats: 12, vip: true });
    expect((await k.call("GET", `/contacts/${c.id}`)).json().custom_fields).toEqual(c.custom_fields);
    // the list (written as JSON by Postgres) carries them too
    expect((await k.call("GET", "/contacts?search=cora")).json().data[0].custom_fields).toEqual(
      c.custom_fields,
    );

    const patched = await k.call("PATCH", `/contacts/${c.id}`, {
      custom_fields: { seats: 14, vip: null, region: "MI" },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().custom_fields).toEqual({ industry: "dental", seats: 14, region: "MI" });
    // a PATCH without custom_fields keeps them
    const other = (await k.call("PATCH", `/contacts/${c.id}`, { company: "Smile Co" })).json();
    expect(other).toMatchObject({
      company: "Smile Co",
      custom_fields: { industry: "dental", seats: 14, region: "MI" },
    });

    const refused = async (method: string, url: string, body: unknown, param: string, message: string) => {
      const res = await k.call(method, url, body);
      expect(res.statusCode, `${JSON.stringify(body).slice(0, 200)}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ type: "invalid_request_error", param });
      expect(res.json().error.message).toContain(message);
    };
    const patch = (custom_fields: unknown, param: string, message: string) =>
      refused("PATCH", `/contacts/${c.id}`, { custom_fields }, param, message);
    await patch({ "1st": "x" }, "custom_fields.1st", "Custom field name '1st' must start with a letter");
    await patch({ "a b": "x" }, "custom_fields.a b", "must start with a letter and hold only letters");
    await patch({ ["k".repeat(65)]: "x" }, `custom_fields.${"k".repeat(65)}`, "at most 64 characters");
    await patch({ note: "x".repeat(501) }, "custom_fields.note", "at most 500 characters");
    await patch({ note: { nested: 1 } }, "custom_fields.note", "must be text, a number, true/false or null");
    await patch({ note: [1] }, "custom_fields.note", "must be text, a number, true/false or null");
    await patch("dental", "custom_fields", "Custom fields must be an object of field names to values");
    await patch(
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i])),
      "custom_fields",
      "Custom fields may hold at most 50 fields",
    );
    // __proto__ never reaches the schema: Fastify's JSON parser refuses prototype poisoning
    const proto = await t.app.inject({
      method: "PATCH",
      url: `/api/v1/contacts/${c.id}`,
      headers: { authorization: `Bearer ${k.key}`, "content-type": "application/json" },
      payload: '{"custom_fields": {"__proto__": {"admin": true}}}',
    });
    expect(proto.statusCode).toBe(400);
    assertDocumented("PATCH", `/contacts/${c.id}`, proto);
    // the limit holds after the merge: 3 stored + 48 new = 51
    const many = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`f${i}`, i]));
    await refused(
      "PATCH",
      `/contacts/${c.id}`,
      { custom_fields: many, company: "Changed" },
      "custom_fields",
      "A contact may have at most 50 custom fields; this would make 51.",
    );
    const unchanged = (await k.call("GET", `/contacts/${c.id}`)).json();
    expect(unchanged.company).toBe("Smile Co");
    expect(Object.keys(unchanged.custom_fields)).toHaveLength(3);
    // removing two at the same time makes room: 3 - 2 + 48 = 49
    const room = await k.call("PATCH", `/contacts/${c.id}`, {
      custom_fields: { ...many, seats: null, region: null },
    });
    expect(room.statusCode, room.body).toBe(200);
    expect(Object.keys(room.json().custom_fields)).toHaveLength(49);
    expect(room.json().custom_fields).toMatchObject({ industry: "dental", f0: 0, f47: 47 });
    expect(room.json().custom_fields.seats).toBeUndefined();
    await refused(
      "POST",
      "/contacts",
      { first_name: "X", email: "x@example.com", custom_fields: { "9": 1 } },
      "custom_fields.9",
      "Custom field name '9'",
    );

    // bulk: a new contact gets them (nulls dropped), an existing one has them merged
    const bulk = await k.call("POST", "/contacts/bulk", {
      contacts: [
        { first_name: "Dina", email: "dina@example.com", custom_fields: { industry: "vet", gone: null } },
        { email: "cora@example.com", custom_fields: { industry: "orthodontics", f0: null } },
        { first_name: "Eli", email: "eli@example.com" },
      ],
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    expect(bulk.json()).toMatchObject({ created: 2, updated: 1, errors: 0 });
    const dina = (await k.call("GET", "/contacts?search=dina%40example.com")).json().data[0];
    expect(dina.custom_fields).toEqual({ industry: "vet" });
    const eli = (await k.call("GET", "/contacts?search=eli%40example.com")).json().data[0];
    expect(eli.custom_fields).toEqual({});
    const cora = (await k.call("GET", `/contacts/${c.id}`)).json();
    expect(cora.custom_fields.industry).toBe("orthodontics");
    expect(cora.custom_fields.f0).toBeUndefined();
    expect(Object.keys(cora.custom_fields)).toHaveLength(48);
    expect(cora.first_name).toBe("Cora");
    // over the limit after the merge: that row is reported, the others go through
    const over = await k.call("POST", "/contacts/bulk", {
      contacts: [
        { email: "cora@example.com", custom_fields: { a1: 1, a2: 2, a3: 3 } },
        { email: "dina@example.com", custom_fields: { size: "small" } },
      ],
    });
    expect(over.json()).toMatchObject({
      updated: 1,
      errors: 1,
      error_rows: [
        {
          line: 1,
          reason: "custom_fields: a contact may have at most 50 custom fields; this would make 51",
        },
      ],
    });
    expect(Object.keys((await k.call("GET", `/contacts/${c.id}`)).json().custom_fields)).toHaveLength(48);
    expect((await k.call("GET", "/contacts?search=dina%40example.com")).json().data[0].custom_fields).toEqual(
      {
        industry: "vet",
        size: "small",
      },
    );
    await refused(
      "POST",
      "/contacts/bulk",
      {
        contacts: [
          { email: "f@example.com", custom_fields: { ok: 1 } },
          { email: "g@example.com", custom_fields: { "bad key": 1 } },
        ],
      },
      "contacts.1.custom_fields.bad key",
      "Custom field name 'bad key'",
    );
    expect((await k.call("GET", "/contacts?search=f%40example.com")).json().data).toEqual([]);

    // the app's JSON import writes them the same way; a bad value rejects its row
    const imp = await k.client.post("/api/contacts/import", {
      contacts: [
        { first_name: "Fay", email: "fay@example.com", custom_fields: { industry: "spa" } },
        { first_name: "Gil", email: "gil@example.com", custom_fields: { industry: { x: 1 } } },
      ],
    });
    expect(imp.statusCode, imp.body).toBe(200);
    expect(imp.json()).toMatchObject({ created: 1, errors: 1 });
    expect(imp.json().error_rows[0]).toMatchObject({ line: 2 });
    expect(imp.json().error_rows[0].reason).toContain("must be text, a number, true/false or null");
    expect((await k.call("GET", "/contacts?search=fay%40example.com")).json().data[0].custom_fields).toEqual({
      industry: "spa",
    });

    // merge tags read custom fields: an email campaign to Dina says "vet"
    const sent = await created<{ campaign: { id: number } }>(
      k.call("POST", "/campaigns", {
        name: "Custom",
        channel: "email",
        content: {
          subject: "For your {{industry|business}} practice",
          body: "Hello {{first_name}}, {{size}} team",
        },
        audience: { contact_ids: [dina.id] },
      }),
    );
    expect(sent.campaign.id).toBeGreaterThan(0);
    const mail = await t.app.inject({
      method: "GET",
      url: "/api/dev/outbox?channel=email&to=dina%40example.com",
    });
    const messages = mail.json().messages as { subject: string; body: string }[];
    expect(messages.map((m) => m.subject)).toContain("For your vet practice");
  });
});

describe("v1 request bodies are closed", () => {
  /** Every object schema in `schema` (nested, in lists, unions) with its JSON pointer-ish path. */
  function objectsOf(schema: any, at: string, out: [string, any][] = []): [string, any][] {
    if (!schema || typeof schema !== "object") return out;
    if (schema.type === "object" && schema.properties) out.push([at, schema]);
    for (const [k, v] of Object.entries(schema.properties ?? {})) objectsOf(v, `${at}.${k}`, out);
    if (schema.items) objectsOf(schema.items, `${at}[]`, out);
    for (const key of ["anyOf", "oneOf", "allOf"])
      for (const [i, v] of (schema[key] ?? []).entries()) objectsOf(v, `${at}|${i}`, out);
    if (schema.additionalProperties && typeof schema.additionalProperties === "object")
      objectsOf(schema.additionalProperties, `${at}.*`, out);
    return out;
  }

  it("the OpenAPI document says additionalProperties: false on every request body object, nested ones too", () => {
    let bodies = 0;
    let objects = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths))
      for (const [method, op] of Object.entries<any>(ops)) {
        const schema = op.requestBody?.content?.["application/json"]?.schema;
        if (!schema) continue;
        bodies++;
        for (const [at, o] of objectsOf(schema, "body")) {
          objects++;
          expect(o.additionalProperties, `${method} ${path} ${at}`).toBe(false);
        }
      }
    expect(bodies).toBe(V1_ROUTES.filter((r) => r.body).length);
    // the nested ones were walked: campaigns' content, audience, inline contacts and filter, ...
    expect(objects).toBeGreaterThan(bodies + 4);
    const campaign = doc.paths["/campaigns"].post.requestBody.content["application/json"].schema;
    expect(campaign.properties.content.additionalProperties).toBe(false);
    expect(campaign.properties.audience.properties.contacts.items.additionalProperties).toBe(false);
  });

  it("an unknown field is a 400 naming it (param and message) and changes nothing; nested and list rows too", async () => {
    const k = await keyed();
    const hook = await created<{ id: string }>(
      k.call("POST", "/webhook_endpoints", { url: "https://example.com/h", events: ["contact.created"] }),
    );
    const refused = async (method: string, url: string, body: unknown, param: string) => {
      const res = await k.call(method, url, body);
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({
        error: {
          type: "invalid_request_error",
          message: `This field is not accepted here: ${param}`,
          param,
        },
      });
    };
    await refused("PATCH", `/webhook_endpoints/${hook.id}`, { enable: false }, "enable");
    expect((await k.call("GET", `/webhook_endpoints/${hook.id}`)).json().enabled).toBe(true);
    // the right name still works
    const off = await k.call("PATCH", `/webhook_endpoints/${hook.id}`, { enabled: false });
    expect(off.json().enabled).toBe(false);

    const c = await created<{ id: number; lifecycle_stage: string }>(
      k.call("POST", "/contacts", { first_name: "Ann", email: "ann@example.com" }),
    );
    await refused("PATCH", `/contacts/${c.id}`, { lifecyle_stage: "customer" }, "lifecyle_stage");
    expect((await k.call("GET", `/contacts/${c.id}`)).json().lifecycle_stage).toBe(c.lifecycle_stage);
    await refused("POST", "/contacts", { first_name: "Bo", email: "bo@example.com", emial: "x" }, "emial");
    expect((await k.call("GET", "/contacts?search=bo%40example.com")).json().data).toEqual([]);
    await refused(
      "POST",
      "/contacts/bulk",
      { contacts: [{ first_name: "Cy", email: "cy@example.com" }, { frist_name: "Dee" }] },
      "contacts.1.frist_name",
    );
    expect((await k.call("GET", "/contacts?search=cy%40example.com")).json().data).toEqual([]);
    await refused("POST", "/tags", { name: "VIP", colour: "#ff0000" }, "colour");
    await refused("POST", `/contacts/${c.id}/notes`, { note_text: "hi", pinned: true }, "pinned");
    await refused("POST", `/contacts/${c.id}/tags`, { tag_id: 1, tag: 2 }, "tag");
    await refused("POST", "/segments", { name: "S", filter: { stage: "lead" } }, "filter.stage");
    await refused(
      "POST",
      "/webhook_endpoints",
      { url: "https://example.com/x", events: ["contact.created"], enabled: true },
      "enabled",
    );
    const base = {
      name: "x",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contact_ids: [c.id] },
    };
    await refused("POST", "/campaigns", { ...base, schedule_at: LATER() }, "schedule_at");
    await refused(
      "POST",
      "/campaigns",
      { ...base, content: { ...base.content, subjcet: "x" } },
      "content.subjcet",
    );
    await refused(
      "POST",
      "/campaigns",
      { ...base, audience: { contact_ids: [c.id], segment: 1 } },
      "audience.segment",
    );
    await refused(
      "POST",
      "/campaigns",
      { ...base, audience: { contacts: [{ first_name: "E", email: "e@example.com", emial: "x" }] } },
      "audience.contacts.0.emial",
    );
    expect((await k.call("GET", "/campaigns")).json().data).toEqual([]);
    await refused(
      "POST",
      "/lead_searches",
      { location: "Saginaw, MI", business_type: "dentist", radius_miles: 5 },
      "radius_miles",
    );
    // two unknown fields: both named, the first in param
    const two = await k.call("PATCH", `/contacts/${c.id}`, { a: 1, b: 2 });
    expect(two.json().error).toMatchObject({
      message: "These fields are not accepted here: a, b",
      param: "a",
    });
  });
});

describe("v1 POST without a body", () => {
  /** A request with a raw payload (or none) and its own headers, checked against the document. */
  async function raw(k: Keyed, method: string, url: string, payload: string | undefined, type?: string) {
    const res = await t.app.inject({
      method: method as "POST",
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${k.key}`, ...(type ? { "content-type": type } : {}) },
      ...(payload !== undefined ? { payload } : {}),
    });
    assertDocumented(method, url, res);
    return res;
  }

  it("body-less routes accept an empty application/json body (or none); routes that need one say it is missing", async () => {
    const k = await keyed();
    const ids: number[] = [];
    for (const n of [1, 2])
      ids.push(
        (
          await created<{ id: number }>(
            k.call("POST", "/contacts", { first_name: `E${n}`, email: `e${n}@example.com` }),
          )
        ).id,
      );
    const camp = (
      await created<{ campaign: { id: number } }>(
        k.call("POST", "/campaigns", {
          name: "Empty",
          channel: "email",
          content: CONTENT.email,
          audience: { contact_ids: ids },
          scheduled_at: LATER(),
        }),
      )
    ).campaign;
    const json = "application/json";
    const pause = await raw(k, "POST", `/campaigns/${camp.id}/pause`, "", json);
    expect(pause.statusCode, pause.body).toBe(200);
    expect(pause.json()).toEqual({ id: camp.id, status: "paused" });
    // whitespace only is empty too (the webhook test and resend routes: api-v1-more.int.test.ts)
    // resumed before its scheduled time: scheduled again (sent at that time)
    expect((await raw(k, "POST", `/campaigns/${camp.id}/resume`, "  \n", json)).json().status).toBe(
      "scheduled",
    );
    const c2 = (
      await created<{ campaign: { id: number } }>(
        k.call("POST", "/campaigns", {
          name: "Empty 2",
          channel: "email",
          content: CONTENT.email,
          audience: { contact_ids: ids },
          scheduled_at: LATER(),
        }),
      )
    ).campaign;
    expect((await raw(k, "POST", `/campaigns/${c2.id}/cancel`, "", json)).json()).toEqual({
      id: c2.id,
      status: "cancelled",
    });
    // still invalid JSON is invalid
    const broken = await raw(k, "POST", `/campaigns/${camp.id}/pause`, "{", json);
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.message).toBe("The request body is not valid JSON");

    // a route with a body: missing (empty JSON, or no body at all) is a 400 saying so
    const missing = {
      error: {
        type: "invalid_request_error",
        message: "The request body is missing: send a JSON object with Content-Type: application/json",
      },
    };
    for (const [url, method] of [
      ["/contacts", "POST"],
      ["/tags", "POST"],
      ["/campaigns", "POST"],
      [`/contacts/${ids[0]}`, "PATCH"],
    ] as const) {
      const empty = await raw(k, method, url, "", json);
      expect(empty.statusCode, `${method} ${url}: ${empty.body}`).toBe(400);
      expect(empty.json()).toEqual(missing);
      const none = await raw(k, method, url, undefined);
      expect(none.json()).toEqual(missing);
    }
    // JSON null or a list is not an object
    const nul = await raw(k, "POST", "/tags", "null", json);
    expect(nul.json().error.message).toBe("The request body must be a JSON object");
  });
});

describe("OpenAPI conformance of the responses above", () => {
  it("every response was validated against its operation's schema, across the v1 operations", () => {
    const ops = new Set([...validated].map((v) => v.split(" ")[0]));
    // the operations this file exercises
    for (const op of [
      "createCampaign",
      "getCampaign",
      "listCampaigns",
      "pauseCampaign",
      "resumeCampaign",
      "cancelCampaign",
      "rescheduleCampaign",
      "listCampaignRecipients",
      "createContact",
      "getContact",
      "updateContact",
      "bulkUpsertContacts",
      "listContacts",
      "createTag",
      "listTags",
      "createSegment",
      "listSegments",
      "listNotes",
      "createNote",
      "createWebhookEndpoint",
      "getWebhookEndpoint",
      "updateWebhookEndpoint",
      "listWebhookEndpoints",
      "createLeadSearch",
      "getLeadSearch",
      "listLeadSearchResults",
      "listMedia",
      ...(SHARED_DATA ? ["getMedia", "downloadMedia", "downloadMediaThumbnail", "downloadMediaGif"] : []),
    ])
      expect(ops, op).toContain(op);
    for (const s of ["400", "401", "402", "403", "404", "409"])
      expect(
        [...validated].some((v) => v.endsWith(` ${s}`)),
        s,
      ).toBe(true);
  });
  it("the check can fail: a received body with a field missing, an extra field or a wrong type does not validate", () => {
    const check = (key: string, body: unknown) => validators.get(key)!(body);
    const campaign = structuredClone(samples.get("getCampaign 200")) as Record<string, unknown>;
    expect(check("getCampaign 200", campaign)).toBe(true);
    expect(check("getCampaign 200", { ...campaign, status: undefined })).toBe(false);
    expect(check("getCampaign 200", { ...campaign, workspace_id: "x" })).toBe(false);
    expect(check("getCampaign 200", { ...campaign, created_at: "yesterday" })).toBe(false);
    const error = samples.get("listContacts 401") as { error: Record<string, unknown> };
    expect(check("listContacts 401", error)).toBe(true);
    expect(check("listContacts 401", { error: { ...error.error, type: "unauthorized" } })).toBe(false);
    expect(check("listContacts 401", { message: "x" })).toBe(false);
  });
  it("every status received is listed for its operation (422 too: POST /campaigns reaching nobody, POST /lead_searches an unknown location)", () => {
    expect([...validated].some((v) => v.endsWith(" 422"))).toBe(true);
    expect([...undocumented]).toEqual([]);
  });
});
