/**
 * Issue 11 regressions: dates past year 9999 and hand-made list cursors were 500s.
 * - Dates: `scheduledAt` / `scheduled_at` / `expires_at` past 9999-12-31 in UTC (an epoch number,
 *   an expanded year, or 9999-12-31 at -14:00) reached Postgres, which refused them. Now every date a
 *   user gives goes through lib/dates (a real date and time, a campaign at most 365 days ahead, an API
 *   key at most 10 years), a 400 with a sentence, and nothing is created.
 * - Cursors: a decodable cursor holding month 13, hour 25, an offset of +99, 30 February, a NUL or a
 *   lone surrogate reached Postgres from /api/v1 lists. Now 400 'cursor is not valid' (param cursor).
 * Every case goes through the real HTTP routes (REST, tRPC, /api/v1).
 */
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys, campaigns, contacts, notes, tags } from "../../src/server/db/schema";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

let t: TestApp;
let owner: Awaited<ReturnType<typeof signUp>>;
let key = "";
let ws = "";
const fx = { contactId: 0, segmentId: 0, endpointId: "" };

const enc = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const v1 = (method: string, url: string, payload?: unknown) =>
  t.app.inject({
    method: method as "GET",
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}` },
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });

/** Rows the workspace has in the tables a refused request could have written to. */
async function counts() {
  const n = async (table: typeof campaigns | typeof contacts | typeof apiKeys | typeof tags | typeof notes) =>
    Number((await t.db.select({ n: count() }).from(table).where(eq(table.workspaceId, ws)))[0]?.n);
  return {
    campaigns: await n(campaigns),
    contacts: await n(contacts),
    apiKeys: await n(apiKeys),
    tags: await n(tags),
    notes: await n(notes),
  };
}

beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  owner = await signUp(t.app);
  ws = owner.user.id;
  await setPlan(t, ws, "business");
  const k = await owner.client.post("/api/api-keys", {
    name: "dates",
    scopes: ["contacts:read", "contacts:write", "campaigns:read", "campaigns:write", "webhooks:write"],
  });
  expect(k.statusCode, k.body).toBe(200);
  key = k.json().key;
  const c = await v1("POST", "/contacts", { first_name: "Dana", email: uniqueEmail("dates") });
  expect(c.statusCode, c.body).toBe(201);
  fx.contactId = c.json().id;
  expect((await v1("POST", `/contacts/${fx.contactId}/notes`, { note_text: "hello" })).statusCode).toBe(201);
  expect((await v1("POST", "/tags", { name: "dates-tag" })).statusCode).toBe(201);
  const seg = await v1("POST", "/segments", { name: "dates-list", filter: { search: "dana" } });
  expect(seg.statusCode, seg.body).toBe(201);
  fx.segmentId = seg.json().id;
  const ep = await v1("POST", "/webhook_endpoints", {
    url: "http://127.0.0.1:9/dates",
    events: ["campaign.completed"],
  });
  expect(ep.statusCode, ep.body).toBe(201);
  fx.endpointId = ep.json().id;
});
afterAll(async () => t?.close());

const TOO_LATE_CAMEL =
  "Scheduled at must be at most 365 days from now (a campaign is scheduled at most a year ahead)";
const NOT_A_DATE_CAMEL = "Scheduled at must be a date and time such as 2026-01-31T09:00:00Z";
const FAR_DATES: [unknown, string][] = [
  [253402300800000, TOO_LATE_CAMEL], // 10000-01-01T00:00:00Z as epoch ms
  [8640000000000000, TOO_LATE_CAMEL], // the last instant a JS Date holds (year 275760)
  ["+010000-01-01T00:00:00Z", NOT_A_DATE_CAMEL], // an expanded year: not the ISO form we take
  ["9999-12-31T23:59:59-14:00", TOO_LATE_CAMEL], // year 10000 in UTC
  [new Date(Date.now() + 400 * 86_400_000).toISOString(), TOO_LATE_CAMEL],
  ["2026-02-30T09:00:00Z", NOT_A_DATE_CAMEL], // new Date() would roll it over to 2 March
  [-1, "Scheduled at must be a date after 1 January 1970 (a past time launches now)"],
  [1e20, NOT_A_DATE_CAMEL],
];

describe("dates past the range are 400 with a sentence, and nothing is created", () => {
  it("REST /api/campaigns/email/launch, /sms/launch, /api/campaigns, /api/campaigns/video, /preflight", async () => {
    const before = await counts();
    const email = uniqueEmail("far");
    const bodies: [string, Record<string, unknown>][] = [
      [
        "/api/campaigns/email/launch",
        { campaignName: "Far", subject: "S", body: "B", contacts: [{ email }] },
      ],
      [
        "/api/campaigns/sms/launch",
        { campaignName: "Far", message: "Hi", contacts: [{ phone: "+14155550132" }] },
      ],
      [
        "/api/campaigns",
        {
          name: "Far",
          channel: "email",
          content: { subject: "S", body: "B" },
          recipients: { csv: [{ email }] },
        },
      ],
      ["/api/campaigns/video", { campaignName: "Far", videoId: 1, contacts: [{ email }] }],
      ["/api/campaigns/preflight", { channel: "email", contacts: [{ email }] }],
    ];
    for (const [url, body] of bodies)
      for (const [scheduledAt, message] of FAR_DATES) {
        const res = await owner.client.post(url, { ...body, scheduledAt });
        expect(res.statusCode, `${url} ${scheduledAt}: ${res.body}`).toBe(400);
        expect(res.json().error, `${url} ${scheduledAt}`).toBe(message);
      }
    expect(await counts()).toEqual(before);
  });

  it("tRPC campaigns.create, campaigns.preflight and campaigns.launchVideoCampaign", async () => {
    const before = await counts();
    for (const scheduledAt of [253402300800000, 8640000000000000, "9999-12-31T23:59:59-14:00"]) {
      const create = await trpcCall(owner.client, "campaigns.create", {
        name: "Far",
        channel: "email",
        content: { subject: "S", body: "B" },
        recipients: { csv: [{ email: uniqueEmail("far") }] },
        scheduledAt,
      });
      expect(create.status, JSON.stringify(create.error)).toBe(400);
      expect(create.error?.message).toBe(TOO_LATE_CAMEL);
      const preflight = await trpcCall(owner.client, "campaigns.preflight", {
        channel: "email",
        contacts: [{ email: uniqueEmail("far") }],
        scheduledAt,
      });
      expect(preflight.status, JSON.stringify(preflight.error)).toBe(400);
      expect(preflight.error?.message).toBe(TOO_LATE_CAMEL);
      const video = await trpcCall(owner.client, "campaigns.launchVideoCampaign", {
        videoId: 1,
        contacts: [{ email: uniqueEmail("far") }],
        scheduledAt,
      });
      expect(video.status, JSON.stringify(video.error)).toBe(400);
      expect(video.error?.message).toBe(TOO_LATE_CAMEL);
    }
    // a Date through superjson, as the app's client sends one
    const res = await owner.client.inject({
      method: "POST",
      url: "/trpc/campaigns.create",
      payload: {
        json: {
          name: "Far",
          channel: "email",
          content: { subject: "S", body: "B" },
          recipients: { csv: [{ email: uniqueEmail("far") }] },
          scheduledAt: "+275760-09-13T00:00:00.000Z",
        },
        meta: { values: { scheduledAt: ["Date"] } },
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.json.message).toBe(TOO_LATE_CAMEL);
    expect(await counts()).toEqual(before);
  });

  it("POST /api/v1/campaigns scheduled_at", async () => {
    const before = await counts();
    for (const scheduled_at of [
      "9999-12-31T23:59:59-14:00",
      "9999-12-31T23:59:59Z",
      new Date(Date.now() + 366 * 86_400_000).toISOString(),
    ]) {
      const res = await v1("POST", "/campaigns", {
        name: "Far",
        channel: "email",
        content: { subject: "S", body: "B" },
        audience: { contacts: [{ first_name: "F", email: uniqueEmail("far") }] },
        scheduled_at,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({
        type: "invalid_request_error",
        param: "scheduled_at",
        message:
          "Scheduled at must be at most 365 days from now (a campaign is scheduled at most a year ahead)",
      });
    }
    const bad = await v1("POST", "/campaigns", {
      name: "Far",
      channel: "email",
      content: { subject: "S", body: "B" },
      audience: { contact_ids: [fx.contactId] },
      scheduled_at: "+010000-01-01T00:00:00Z",
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toBe(
      "Scheduled at must be a date and time such as 2026-01-31T09:00:00Z",
    );
    expect(await counts()).toEqual(before);
  });

  it("POST /api/api-keys and tRPC apiKeys.create expires_at", async () => {
    const before = await counts();
    const tooLate =
      "Expires at must be at most 10 years from now (leave it out for a key that never expires)";
    for (const expires_at of [
      "9999-12-31T23:59:59.999-14:00",
      "9999-12-31T23:59:59Z",
      new Date(Date.now() + 3660 * 86_400_000).toISOString(),
    ]) {
      const rest = await owner.client.post("/api/api-keys", {
        name: "far",
        scopes: ["contacts:read"],
        expires_at,
      });
      expect(rest.statusCode, rest.body).toBe(400);
      expect(rest.json().error).toBe(tooLate);
      const trpc = await trpcCall(owner.client, "apiKeys.create", {
        name: "far",
        scopes: ["contacts:read"],
        expires_at,
      });
      expect(trpc.status, JSON.stringify(trpc.error)).toBe(400);
      expect(trpc.error?.message).toBe(tooLate);
    }
    const expanded = await owner.client.post("/api/api-keys", {
      name: "far",
      scopes: ["contacts:read"],
      expires_at: "+010000-01-01T00:00:00Z",
    });
    expect(expanded.statusCode).toBe(400);
    expect(expanded.json().error).toBe("Expires at must be an ISO 8601 date-time");
    expect(await counts()).toEqual(before);
  });

  it("dates inside the range still work: a schedule 300 days ahead (ISO and epoch ms), a key expiring in 9 years", async () => {
    const at = new Date(Date.now() + 300 * 86_400_000);
    const iso = await owner.client.post("/api/campaigns/email/launch", {
      campaignName: "Later",
      subject: "S",
      body: "B",
      contacts: [{ email: uniqueEmail("later") }],
      scheduledAt: at.toISOString(),
    });
    expect(iso.statusCode, iso.body).toBe(200);
    expect(iso.json().campaign.status).toBe("scheduled");
    const ms = await owner.client.post("/api/campaigns/sms/launch", {
      campaignName: "Later",
      message: "Hi",
      contacts: [{ phone: "+14155550133" }],
      includeNotOptedIn: true,
      scheduledAt: at.getTime(),
    });
    expect(ms.statusCode, ms.body).toBe(200);
    expect(ms.json().campaign.status).toBe("scheduled");
    const v = await v1("POST", "/campaigns", {
      name: "Later",
      channel: "email",
      content: { subject: "S", body: "B" },
      audience: { contact_ids: [fx.contactId] },
      scheduled_at: "2020-12-31T23:59:59-14:00",
    });
    // a past time launches now
    expect(v.statusCode, v.body).toBe(201);
    expect(v.json().campaign.status).not.toBe("scheduled");
    const expires = new Date(Date.now() + 9 * 365 * 86_400_000).toISOString();
    const k = await owner.client.post("/api/api-keys", {
      name: "long",
      scopes: ["contacts:read"],
      expires_at: expires,
    });
    expect(k.statusCode, k.body).toBe(200);
    expect(k.json().apiKey.expires_at).toBe(expires);
  });
});

describe("hand-made cursors of /api/v1 lists are 400 'cursor is not valid'", () => {
  const BAD_TS = [
    "2026-13-45 25:61:61+00",
    "9999-12-31 23:59:59+99",
    "2026-02-30 00:00:00+00",
    "0000-01-01 00:00:00+00",
    "2026-01-01 24:00:00+00",
    "2026-01-01 00:00:00+16",
  ];
  const UUID0 = "00000000-0000-0000-0000-000000000000";

  async function expectInvalid(url: string) {
    const res = await v1("GET", url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
    expect(res.json().error, url).toEqual({
      type: "invalid_request_error",
      message: "cursor is not valid",
      param: "cursor",
    });
  }

  it("contacts (plain and searched), a segment's contacts", async () => {
    const cursors = [
      // the audit's repros, in the old `ts|id` form (no longer a cursor at all)
      enc("2026-13-45 25:61:61.1+00|2"),
      enc("9999-12-31 23:59:59+99|2"),
      // the same in the cursor form the list gives out
      ...BAD_TS.map((ts) => enc(JSON.stringify([ts, 2]))),
      enc('["2026-01-01 00:00:00+00",0]'),
      enc('["2026-01-01 00:00:00+00",1.5]'),
      enc('["2026-01-01 00:00:00+00","2"]'),
      enc('["2026-01-01 00:00:00+00\\u0000",2]'),
    ];
    for (const c of cursors) {
      await expectInvalid(`/contacts?cursor=${c}`);
      await expectInvalid(`/contacts?search=dana&cursor=${c}`);
      await expectInvalid(`/segments/${fx.segmentId}/contacts?cursor=${c}`);
    }
  });

  it("a contact's notes", async () => {
    for (const ts of BAD_TS)
      await expectInvalid(`/contacts/${fx.contactId}/notes?cursor=${enc(JSON.stringify([ts, 1]))}`);
    await expectInvalid(`/contacts/${fx.contactId}/notes?cursor=${enc('["2026-13-45 25:61:61+00",1]')}`);
  });

  it("webhook endpoints and an endpoint's deliveries", async () => {
    const cursors = [
      ...BAD_TS.map((ts) => enc(JSON.stringify([ts, UUID0]))),
      enc('["2026-01-01 00:00:00+00","not-a-uuid"]'),
      enc('["2026-01-01 00:00:00+00",1]'),
    ];
    for (const c of cursors) {
      await expectInvalid(`/webhook_endpoints?cursor=${c}`);
      await expectInvalid(`/webhook_endpoints/${fx.endpointId}/deliveries?cursor=${c}`);
    }
  });

  it("tags and segments: NUL or a lone surrogate in the name, a bad id", async () => {
    const cursors = [
      enc('["\\u0000",1]'), // the JSON escape
      enc('["a\u0000b",1]'), // a raw NUL byte in the decoded text
      enc('["\\ud800",1]'),
      enc('["x\\udc00y",1]'),
      enc('["a",-1]'),
      enc('["a",9007199254740993]'),
      enc(JSON.stringify(["a".repeat(201), 1])),
    ];
    for (const c of cursors) {
      await expectInvalid(`/tags?cursor=${c}`);
      await expectInvalid(`/segments?cursor=${c}`);
    }
  });

  it("valid but extreme cursors are read by Postgres as they are: 200", async () => {
    for (const ts of [
      "9999-12-31 23:59:59.999999-15:59",
      "0001-01-01 00:00:00+15",
      "2024-02-29 12:00:00.5+05:30",
    ]) {
      for (const url of [
        `/contacts?cursor=${enc(JSON.stringify([ts, 1]))}`,
        `/contacts?search=dana&cursor=${enc(JSON.stringify([ts, 1]))}`,
        `/contacts/${fx.contactId}/notes?cursor=${enc(JSON.stringify([ts, 1]))}`,
        `/webhook_endpoints?cursor=${enc(JSON.stringify([ts, UUID0]))}`,
        `/webhook_endpoints/${fx.endpointId}/deliveries?cursor=${enc(JSON.stringify([ts, UUID0]))}`,
      ]) {
        const res = await v1("GET", url);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      }
    }
    // a cursor far in the future lists everything; one before year 2 lists nothing
    const all = await v1("GET", `/contacts?cursor=${enc('["9999-12-31 23:59:59-15",9007199254740991]')}`);
    expect(all.json().data.map((c: { id: number }) => c.id)).toContain(fx.contactId);
    const none = await v1("GET", `/contacts?cursor=${enc('["0001-01-01 00:00:00+00",1]')}`);
    expect(none.json().data).toEqual([]);
    // the cursors the list gives out still page through it, each contact once
    for (const name of ["Eve", "Finn"])
      expect((await v1("POST", "/contacts", { first_name: name, email: uniqueEmail(name) })).statusCode).toBe(
        201,
      );
    const seen: number[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page = await v1("GET", `/contacts?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.statusCode, page.body).toBe(200);
      seen.push(...page.json().data.map((c: { id: number }) => c.id));
      cursor = page.json().next_cursor;
    }
    const all100 = (await v1("GET", "/contacts?limit=100")).json().data.map((c: { id: number }) => c.id);
    expect(all100.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual(all100);
  });
});
