import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { API_SCOPES } from "../../src/server/features/api/api.schemas";
import { type AuthedClient, createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

// An id no record can have (past Number.MAX_SAFE_INTEGER, past bigint, 0) names a record that does
// not exist: the app's REST routes and tRPC answer it the 404 sentence they give an unknown id, as
// /api/v1 does, never a 400 about the id's size and never a 500 (lib/validate recordId).

let t: TestApp;
let client: AuthedClient;
let key: string;
let contactId: number;

/** 20 digits (past bigint), 2^53 + 1 (past Number.MAX_SAFE_INTEGER, reads as 2^53 in JS), and 0. */
const IMPOSSIBLE = ["99999999999999999999", "9007199254740993", "0"];
/** An id that could exist but does not: what the impossible ones must be answered like. */
const UNKNOWN = "999999999";

beforeAll(async () => {
  t = await createTestApp();
  const u = await signUp(t.app);
  client = u.client;
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const keyRes = await client.post("/api/api-keys", { name: "ids", scopes: [...API_SCOPES] });
  expect(keyRes.statusCode, keyRes.body).toBe(200);
  key = keyRes.json().key;
  const c = await client.post("/api/contacts", { first_name: "Ida", email: "ida@example.com" });
  expect(c.statusCode, c.body).toBe(200);
  contactId = c.json().contact.id;
});
afterAll(async () => t?.close());

describe("the app's REST routes: an impossible id is the unknown id's 404", () => {
  const routes = (id: string): [string, string, object?][] => [
    ["GET", `/api/contacts/${id}`],
    ["PUT", `/api/contacts/${id}`, { first_name: "X" }],
    ["DELETE", `/api/contacts/lists/${id}`],
    ["DELETE", `/api/contacts/{contact}/notes/${id}`],
    ["GET", `/api/campaigns/${id}`],
    ["GET", `/api/campaigns/${id}/recipients`],
    ["GET", `/api/campaigns/${id}/recipients.csv`],
    ["POST", `/api/campaigns/${id}/pause`, {}],
    ["GET", `/api/campaigns/video/${id}/stats`],
    ["GET", `/api/media/${id}`],
    ["DELETE", `/api/media/${id}`],
    ["GET", `/api/media/${id}/versions/original/file`],
    ["GET", `/api/media/edits/${id}`],
  ];
  /** One of `routes`' requests, `{contact}` standing for the test's contact. */
  const send = (method: string, url: string, payload?: object) =>
    client.inject({
      method: method as "GET",
      url: url.replace("{contact}", String(contactId)),
      ...(payload ? { payload } : {}),
    });

  it("answers 404 with the same sentence as an unknown id, for every impossible id", async () => {
    const unknown = routes(UNKNOWN);
    for (const id of IMPOSSIBLE) {
      const each = routes(id);
      for (let i = 0; i < each.length; i++) {
        const [method, url, payload] = each[i]!;
        const expected = await send(...unknown[i]!);
        expect(expected.statusCode, `${unknown[i]![1]}: ${expected.body}`).toBe(404);
        const res = await send(method, url, payload);
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
        const error = res.json().error as string;
        expect(error, url).toBe(expected.json().error);
        expect(error, url).toMatch(/^[A-Z][a-z]+ not found/);
      }
    }
  });

  it("says what /api/v1 says for the same id", async () => {
    const v1 = (url: string) =>
      t.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${key}` } });
    for (const id of IMPOSSIBLE.slice(0, 2))
      for (const [app, api] of [
        [`/api/contacts/${id}`, `/api/v1/contacts/${id}`],
        [`/api/campaigns/${id}`, `/api/v1/campaigns/${id}`],
        [`/api/media/${id}`, `/api/v1/media/${id}`],
      ] as const) {
        const [a, b] = [await client.get(app), await v1(api)];
        expect([a.statusCode, b.statusCode], `${app} / ${api}`).toEqual([404, 404]);
        expect(a.json().error, app).toBe(b.json().error.message);
      }
  });

  it("answers a path segment that is not written in digits as the unknown id too (a path names a record or none)", async () => {
    // campaign, media and edit routes answered 400 'Campaign id must be a number' where contacts and
    // /api/v1 answered 404 (lib/validate pathRecordId)
    const unknown = routes(UNKNOWN);
    for (const id of ["abc", "0x10", "1e1", "-5", "1.5", "%20"]) {
      const each = routes(id);
      for (let i = 0; i < each.length; i++) {
        const [method, url, payload] = each[i]!;
        const res = await send(method, url, payload);
        expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
        expect(res.json().error, url).toBe((await send(...unknown[i]!)).json().error);
      }
    }
  });
});

describe("tRPC procedures taking ids: an impossible id is NOT_FOUND, never a 400 or 500", () => {
  it("answers every impossible number the unknown id's sentence", async () => {
    const calls = (id: number): [string, object, "query" | "mutation"][] => [
      ["crm.get", { id }, "query"],
      ["crm.update", { id, data: {} }, "mutation"],
      ["crm.deleteNote", { id: contactId, noteId: id }, "mutation"],
      ["crm.deleteList", { id }, "mutation"],
      ["campaigns.report", { id }, "query"],
      ["campaigns.pause", { id }, "mutation"],
      ["campaigns.videoCampaignStats", { campaignId: id }, "query"],
      ["studio.get", { id }, "query"],
      ["studio.delete", { id }, "mutation"],
      ["studio.edit", { id }, "query"],
    ];
    const unknown = calls(Number(UNKNOWN));
    // JSON numbers as a client sends them: 1e20 (past bigint), 2^53 (what JSON 9007199254740993 reads as), 1e300, 0, -1
    for (const id of [1e20, 2 ** 53, 1e300, 0, -1]) {
      const each = calls(id);
      for (let i = 0; i < each.length; i++) {
        const [path, input, kind] = each[i]!;
        const expected = await trpcCall(client, ...unknown[i]!);
        expect(expected.status, `${path}: ${JSON.stringify(expected.error)}`).toBe(404);
        const r = await trpcCall(client, path, input, kind);
        expect(r.status, `${path} ${id}: ${JSON.stringify(r.error)}`).toBe(404);
        expect(r.error?.message, `${path} ${id}`).toBe(expected.error?.message);
      }
    }
  });
});
