import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { campaignRecipientRows, createTestApp, signUp, type TestApp } from "../helpers";
import { multipart, silentWav } from "./studio-helpers";
import { webhookReceiver } from "./webhook-receiver";

/*
 * What an outside developer building a connector met walking the public API with only its
 * OpenAPI document (GET /api/v1/openapi.json) in hand, where the server and the document disagreed:
 * - Idempotency-Key: the document promises the stored answer to "a repeat with the same body"; a
 *   retry whose JSON serialiser wrote the same fields in another order got 409 'already used with a
 *   different request' (the fingerprint hashed the body's text order).
 * - 400s whose `param` was missing although the document says `param` holds the field.
 * - error statuses the document's generic descriptions did not explain (a 403 for an unverified
 *   sender, a 402 for a plan limit, a 401 for a key whose creator left).
 */

let t: TestApp;

const SCOPES = [
  "contacts:read",
  "contacts:write",
  "campaigns:read",
  "campaigns:write",
  "webhooks:write",
  "media:read",
];

/** A Business workspace and a key of SCOPES; `call` sends a v1 request with it. */
async function keyed(opts: { verify?: boolean } = {}) {
  const u = await signUp(t.app, {}, opts);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", { name: "Connector", scopes: SCOPES });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const call = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: method as "GET",
      url: `/api/v1${url}`,
      headers: {
        authorization: `Bearer ${key}`,
        ...(typeof payload === "string" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return { ...u, call };
}

beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => {
  await t?.close();
});

describe("Idempotency-Key: the same body is the same JSON, whatever its fields' order", () => {
  it("a retry that writes the fields in another order (nested objects too) gets the stored answer, not 409", async () => {
    const k = await keyed();
    const first = await k.call(
      "POST",
      "/contacts",
      '{"first_name":"Rosa","email":"rosa@example.com","custom_fields":{"shoe":"9","color":"red"}}',
      { "idempotency-key": "order-1" },
    );
    expect(first.statusCode, first.body).toBe(201);
    const retry = await k.call(
      "POST",
      "/contacts",
      '{"custom_fields":{"color":"red","shoe":"9"},"email":"rosa@example.com","first_name":"Rosa"}',
      { "idempotency-key": "order-1" },
    );
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.json().id).toBe(first.json().id);
    // a list's order is part of the body: another order is another request
    const tagged = await k.call(
      "POST",
      "/contacts/bulk",
      {
        contacts: [
          { first_name: "A", email: "a1@example.com" },
          { first_name: "B", email: "b1@example.com" },
        ],
      },
      { "idempotency-key": "order-2" },
    );
    expect(tagged.statusCode, tagged.body).toBe(200);
    const swapped = await k.call(
      "POST",
      "/contacts/bulk",
      {
        contacts: [
          { first_name: "B", email: "b1@example.com" },
          { first_name: "A", email: "a1@example.com" },
        ],
      },
      { "idempotency-key": "order-2" },
    );
    expect(swapped.statusCode).toBe(409);
    // and a different value is still a different request
    const changed = await k.call(
      "POST",
      "/contacts",
      '{"email":"rosa@example.com","first_name":"Rose","custom_fields":{"shoe":"9","color":"red"}}',
      { "idempotency-key": "order-1" },
    );
    expect(changed.statusCode).toBe(409);
    expect(changed.json().error.param).toBe("Idempotency-Key");
  });
});

describe("a 400 names its field in param, as the document says", () => {
  it("reschedule to a time less than a minute ahead: param scheduled_at", async () => {
    const k = await keyed();
    const c = await k.call("POST", "/contacts", { first_name: "Ida", email: "ida@example.com" });
    const launch = await k.call("POST", "/campaigns", {
      name: "Later",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contact_ids: [c.json().id] },
      scheduled_at: new Date(Date.now() + 3 * 3600_000).toISOString(),
    });
    expect(launch.statusCode, launch.body).toBe(201);
    const res = await k.call("POST", `/campaigns/${launch.json().campaign.id}/reschedule`, {
      scheduled_at: new Date(Date.now() + 20_000).toISOString(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/at least a minute from now/);
    expect(res.json().error.param).toBe("scheduled_at");
  });

  it("a test event of a type the endpoint does not subscribe to: param type", async () => {
    const k = await keyed();
    const ep = await k.call("POST", "/webhook_endpoints", {
      url: "http://127.0.0.1:9/hook",
      events: ["contact.created"],
    });
    expect(ep.statusCode, ep.body).toBe(201);
    const res = await k.call("POST", `/webhook_endpoints/${ep.json().id}/test`, { type: "contact.deleted" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/does not subscribe to contact\.deleted/);
    expect(res.json().error.param).toBe("type");
  });
});

describe("the document explains the error statuses the server gives", () => {
  it("403 of an unverified sender's launch, 402 of a plan limit, 401 of a departed creator are described", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const k = await keyed({ verify: false });
    const c = await k.call("POST", "/contacts", { first_name: "Uma", email: "uma@example.com" });
    const res = await k.call("POST", "/campaigns", {
      name: "Unverified",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contact_ids: [c.json().id] },
    });
    // the server: a 403 that is not about a scope
    expect(res.statusCode).toBe(403);
    // whose address: the key's creator's, which the developer holding the key may not be
    expect(res.json().error.message).toMatch(
      /^The person who created this API key has not verified their email address yet/,
    );
    expect(res.json().error.message).not.toMatch(/Please verify your email/);
    const launch = doc.paths["/campaigns"].post.responses;
    expect(launch["403"].description).toMatch(/verif/i);
    expect(launch["402"].description).toMatch(/limit/i);
    expect(doc.paths["/campaigns/{id}/reschedule"].post.responses["402"].description).toMatch(/limit/i);
    expect(launch["401"].description).toMatch(/no longer an owner or admin/i);
  });
});

describe("media downloads an item never has", () => {
  it("an audio recording's thumbnail and GIF are a 404 saying only videos have them, not 'not ready yet'", async () => {
    const k = await keyed();
    const up = multipart(
      { name: "Greeting" },
      { field: "audio", filename: "g.wav", contentType: "audio/wav", content: silentWav(1) },
    );
    const uploaded = await k.client.inject({ method: "POST", url: "/api/audio/upload", ...up });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const id = uploaded.json().media.id;
    const item = (await k.call("GET", `/media/${id}`)).json();
    expect(item.thumbnail_url).toBeNull();
    expect(item.gif_url).toBeNull();
    for (const kind of ["thumbnail", "gif"]) {
      const res = await k.call("GET", `/media/${id}/${kind}`);
      expect(res.statusCode).toBe(404);
      // a connector that reads 'not ready yet' polls for a file that never comes
      expect(res.json().error.message).not.toMatch(/not ready/i);
      expect(res.json().error.message).toMatch(/only videos have/i);
    }
    // the recording's own file is there
    expect((await k.call("GET", `/media/${id}/file`)).statusCode).toBe(200);
  });
});

describe("webhook deliveries as a receiver checks them against the document", () => {
  it("a campaign opt-out's contact.unsubscribed verifies (standardwebhooks) and matches the document's schema and example", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const rx = await webhookReceiver();
    try {
      const k = await keyed();
      const ep = await k.call("POST", "/webhook_endpoints", {
        url: rx.url,
        events: ["message.sent", "contact.unsubscribed", "campaign.launched"],
      });
      expect(ep.statusCode, ep.body).toBe(201);
      const c = await k.call("POST", "/contacts", { first_name: "Opal", email: "opal@example.com" });
      const launch = await k.call("POST", "/campaigns", {
        name: "Opt-out walk",
        channel: "email",
        content: { subject: "Hi {name}", body: "Spring offer" },
        audience: { contact_ids: [c.json().id] },
      });
      expect(launch.statusCode, launch.body).toBe(201);
      const [row] = await campaignRecipientRows(t, launch.json().campaign.id);
      // the person presses Unsubscribe on the email's page
      expect((await t.app.inject({ method: "POST", url: `/u/${row!.token}` })).statusCode).toBe(200);
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      const wh = new Webhook(ep.json().secret);
      const events = rx.got.map((g) => wh.verify(g.body, g.headers as Record<string, string>) as any);
      expect(events.map((e) => e.type).sort()).toEqual(
        ["campaign.launched", "contact.unsubscribed", "message.sent"].sort(),
      );
      for (const e of events) {
        const body = doc.webhooks[e.type].post.requestBody.content["application/json"];
        const validate = ajv.compile(body.schema);
        expect(validate(e), `${e.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      const unsub = events.find((e) => e.type === "contact.unsubscribed");
      // the opt-out leaves the recipient's status as it was (here delivered by the local provider)
      expect(unsub.data.status).not.toBe("unsubscribed");
      // the document's example of a campaign opt-out must look like one: a recipient's status
      const example =
        doc.webhooks["contact.unsubscribed"].post.requestBody.content["application/json"].example;
      expect(example.data.campaign_id).not.toBeNull();
      const recipientStatuses = doc.paths["/campaigns/{id}/recipients"].get.parameters.find(
        (x: { name: string }) => x.name === "status",
      ).schema.enum;
      expect(recipientStatuses).toContain(example.data.status);
      // and the schema names the statuses a receiver can get
      const statusSchema =
        doc.webhooks["contact.unsubscribed"].post.requestBody.content["application/json"].schema.properties
          .data.properties.status;
      expect(statusSchema.enum).toEqual(expect.arrayContaining([unsub.data.status, "unsubscribed"]));
    } finally {
      await rx.close();
    }
  });

  it("the document names the values of campaign, media and delivery status fields", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const ok = (path: string, method: string, code = "200") =>
      doc.paths[path][method].responses[code].content["application/json"].schema;
    expect(ok("/campaigns/{id}", "get").properties.status.enum).toEqual(
      expect.arrayContaining(["scheduled", "sending", "paused", "completed", "cancelled"]),
    );
    expect(ok("/campaigns/{id}/pause", "post").properties.status.enum).toContain("paused");
    expect(ok("/media/{id}", "get").properties.type.enum).toEqual(["video", "audio"]);
    expect(ok("/media/{id}", "get").properties.processing_status.enum).toEqual(
      expect.arrayContaining(["processing", "ready", "failed"]),
    );
    expect(
      ok("/webhook_endpoints/{id}/deliveries", "get").properties.data.items.properties.event_type.enum,
    ).toContain("contact.unsubscribed");
  });
});

describe("POST /campaigns: a content field the channel does not use is refused, not dropped", () => {
  it("an SMS with a subject, an email with a script, a voicemail with machine_detection: 400 naming the field; nothing launched", async () => {
    const k = await keyed();
    const c = await k.call("POST", "/contacts", {
      first_name: "Cal",
      email: "cal@example.com",
      phone: "+1 312 555 0147",
      sms_opt_in: true,
      call_opt_in: true,
    });
    expect(c.statusCode, c.body).toBe(201);
    const audience = { contact_ids: [c.json().id] };
    const refused = async (channel: string, content: Record<string, unknown>, field: string) => {
      const res = await k.call("POST", "/campaigns", {
        name: `Refused ${field}`,
        channel,
        content,
        audience,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.param).toBe(`content.${field}`);
      expect(res.json().error.message).toContain(`content.${field}`);
    };
    // the subject of a text would have been dropped without a word (201, a text without it)
    await refused("sms", { message: "Fresh bread today", subject: "Bakery news" }, "subject");
    await refused("email", { subject: "Hi", body: "Hello", script: "Hello there" }, "script");
    await refused("voice", { script: "Hello", message: "Hi" }, "message");
    // answering-machine detection is a call's (Twilio AMD); a ringless voicemail never rings
    await refused("voicemail", { script: "Hello", machine_detection: false }, "machine_detection");
    expect((await k.call("GET", "/campaigns")).json().data).toEqual([]);
    // what each channel uses still launches
    const voice = await k.call("POST", "/campaigns", {
      name: "Call",
      channel: "voice",
      content: { script: "Hello {name}", machine_detection: false },
      audience,
    });
    expect(voice.statusCode, voice.body).toBe(201);
    const doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const content =
      doc.paths["/campaigns"].post.requestBody.content["application/json"].schema.properties.content;
    expect(content.properties.machine_detection.description).toMatch(/^voice\b/);
  });
});

describe("an API key sent to the app's own routes", () => {
  it("GET or POST /api/contacts with a key is a 401 that points to /api/v1, not 'Please sign in'", async () => {
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    const key = (await u.client.post("/api/api-keys", { name: "Wrong door", scopes: SCOPES })).json().key;
    for (const [method, url] of [
      ["GET", "/api/contacts"],
      ["POST", "/api/contacts"],
      ["GET", "/api/campaigns"],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(method === "POST" ? { payload: { first_name: "Kit", email: "kit@example.com" } } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().error, `${method} ${url}`).toMatch(/\/api\/v1/);
      expect(res.json().error).toMatch(/\/docs\/api/);
    }
    // nothing was created, and without a key the sentence is the app's own
    const plain = await t.app.inject({ method: "GET", url: "/api/contacts" });
    expect(plain.json().error).toBe("Please sign in to continue");
  });
});

describe("contact.updated is sent for a change", () => {
  it("a PATCH that changes nothing (an empty body, the stored values) sends no contact.updated; a real change sends one", async () => {
    const rx = await webhookReceiver();
    try {
      const k = await keyed();
      const ep = await k.call("POST", "/webhook_endpoints", { url: rx.url, events: ["contact.updated"] });
      expect(ep.statusCode, ep.body).toBe(201);
      const c = await k.call("POST", "/contacts", {
        first_name: "Nell",
        email: "nell@example.com",
        company: "Nell's Nails",
        custom_fields: { chair: "3" },
      });
      const id = c.json().id;
      for (const body of [
        {},
        { company: "Nell's Nails" },
        { email: "NELL@example.com", custom_fields: { chair: "3" } },
      ])
        expect((await k.call("PATCH", `/contacts/${id}`, body)).statusCode).toBe(200);
      const wh = new Webhook(ep.json().secret);
      const updates = () => rx.got.map((g) => wh.verify(g.body, g.headers as Record<string, string>) as any);
      // a connector's "contact updated" trigger fired three times for nothing
      expect(updates()).toEqual([]);
      const changed = await k.call("PATCH", `/contacts/${id}`, { company: "Nell's Nail Studio" });
      expect(changed.statusCode).toBe(200);
      expect(updates().map((e) => [e.type, e.data.id, e.data.company])).toEqual([
        ["contact.updated", id, "Nell's Nail Studio"],
      ]);
    } finally {
      await rx.close();
    }
  });
});

describe("the bulk upsert counts and announces only contacts it changed", () => {
  it("a nightly sync of unchanged contacts: updated 0, skipped 2, no contact.updated, updated_at kept; a changed row: updated 1 and one event", async () => {
    const rx = await webhookReceiver();
    try {
      const k = await keyed();
      const rows = [
        { email: "ora@example.com", first_name: "Ora", company: "Ora's Oven", custom_fields: { ovens: 2 } },
        { email: "pim@example.com", first_name: "Pim", phone: "+12125550147", lifecycle_stage: "customer" },
      ];
      const first = await k.call("POST", "/contacts/bulk", { contacts: rows });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json()).toMatchObject({ created: 2, updated: 0, skipped: 0 });
      const ep = await k.call("POST", "/webhook_endpoints", { url: rx.url, events: ["contact.updated"] });
      expect(ep.statusCode, ep.body).toBe(201);
      const before = (await k.call("GET", "/contacts?limit=10")).json().data as {
        email: string;
        updated_at: string;
      }[];
      // the same rows again (the email in another case: the same contact)
      const again = await k.call("POST", "/contacts/bulk", {
        contacts: [{ ...rows[0], email: "ORA@example.com" }, rows[1]],
      });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ imported: 0, created: 0, updated: 0, skipped: 2, errors: 0 });
      const after = (await k.call("GET", "/contacts?limit=10")).json().data as {
        email: string;
        updated_at: string;
      }[];
      expect(after.map((c) => [c.email, c.updated_at]).sort()).toEqual(
        before.map((c) => [c.email, c.updated_at]).sort(),
      );
      const wh = new Webhook(ep.json().secret);
      const updates = () => rx.got.map((g) => wh.verify(g.body, g.headers as Record<string, string>) as any);
      expect(updates()).toEqual([]);
      const changed = await k.call("POST", "/contacts/bulk", {
        contacts: [rows[0], { ...rows[1], lifecycle_stage: "lead" }],
      });
      expect(changed.json()).toMatchObject({ imported: 1, created: 0, updated: 1, skipped: 1 });
      await expect.poll(() => updates().length).toBe(1);
      expect(updates().map((e) => [e.type, e.data.email, e.data.lifecycle_stage])).toEqual([
        ["contact.updated", "pim@example.com", "lead"],
      ]);
    } finally {
      await rx.close();
    }
  });
});

describe("a query parameter given twice", () => {
  it("is a 400 saying so, not 'must be one of' a list the value is in", async () => {
    const k = await keyed();
    for (const [qs, param] of [
      ["lifecycle_stage=lead&lifecycle_stage=customer", "lifecycle_stage"],
      ["limit=10&limit=20", "limit"],
      ["search=ann&search=bob", "search"],
    ]) {
      const res = await k.call("GET", `/contacts?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().error.param).toBe(param);
      expect(res.json().error.message).toBe(`The query parameter ${param} is given 2 times: give it once`);
    }
  });
});

describe("POST /campaigns: a library item of the wrong kind names its content field", () => {
  it("a voicemail's audio_url outside the library, a video campaign's video_id of an audio item: 400 with param", async () => {
    const k = await keyed();
    const c = await k.call("POST", "/contacts", {
      first_name: "Val",
      email: "val@example.com",
      phone: "+1 312 555 0166",
      sms_opt_in: true,
      call_opt_in: true,
    });
    const audience = { contact_ids: [c.json().id] };
    const up = multipart(
      { name: "Hello clip" },
      { field: "audio", filename: "h.wav", contentType: "audio/wav", content: silentWav(1) },
    );
    const audio = (await k.client.inject({ method: "POST", url: "/api/audio/upload", ...up })).json().media
      .id;
    const outside = await k.call("POST", "/campaigns", {
      name: "Drop",
      channel: "voicemail",
      content: { audio_url: "https://cdn.example/hello.mp3" },
      audience,
    });
    expect(outside.statusCode, outside.body).toBe(400);
    expect(outside.json().error.param).toBe("content.audio_url");
    const notVideo = await k.call("POST", "/campaigns", {
      name: "Clip",
      channel: "video_email",
      content: { video_id: audio, subject: "Hi", message: "A video for you" },
      audience,
    });
    expect(notVideo.statusCode, notVideo.body).toBe(400);
    expect(notVideo.json().error.param).toBe("content.video_id");
  });
});

describe("a route without a request body is closed too", () => {
  it("POST /campaigns/{id}/pause with fields is a 400 naming the first; no body or {} pauses", async () => {
    const k = await keyed();
    const c = await k.call("POST", "/contacts", { first_name: "Pia", email: "pia@example.com" });
    const launch = await k.call("POST", "/campaigns", {
      name: "Closed",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      audience: { contact_ids: [c.json().id] },
      scheduled_at: new Date(Date.now() + 3 * 3600_000).toISOString(),
    });
    const id = launch.json().campaign.id;
    // a connector that thinks pause takes a time or a reason: refused, not a pause that ignored it
    const withFields = await k.call("POST", `/campaigns/${id}/pause`, { until: "2027-01-01T00:00:00Z" });
    expect(withFields.statusCode, withFields.body).toBe(400);
    expect(withFields.json().error).toEqual({
      type: "invalid_request_error",
      message: "This field is not accepted here: until",
      param: "until",
    });
    const notObject = await k.call("DELETE", `/contacts/${c.json().id}`, "[1]");
    expect(notObject.statusCode, notObject.body).toBe(400);
    expect(notObject.json().error.message).toMatch(/takes no request body/);
    expect((await k.call("GET", `/campaigns/${id}`)).json().status).toBe("scheduled");
    expect((await k.call("POST", `/campaigns/${id}/pause`, {})).json().status).toBe("paused");
    expect((await k.call("POST", `/campaigns/${id}/resume`)).json().status).toBe("scheduled");
  });
});
