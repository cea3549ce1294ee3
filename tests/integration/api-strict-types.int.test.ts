import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { API_SCOPES } from "../../src/server/features/api/api.schemas";
import { createTestApp, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

// Numbers and true/false are taken as written, never guessed with JavaScript's Number(): a query
// string's whole numbers are decimal digits (`limit=1e2` was read as 100, `limit=0x10` as 16), and a
// JSON body's number or boolean field takes that JSON type (`"lead_score": "5"` was stored as 5,
// `"email_opt_in": "yes"` as true). Each refusal is a 400 naming the parameter or field.

let t: TestApp;
let key: string;
let client: Awaited<ReturnType<typeof signUp>>["client"];

const v1 = (method: "GET" | "POST" | "PATCH", url: string, payload?: object) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${key}` },
    ...(payload ? { payload } : {}),
  });

/** Expects a v1 400 in the Error shape naming `param`, with a sentence that names it too. */
async function refused(res: ReturnType<typeof v1>, param: string, where: string) {
  const r = await res;
  expect(r.statusCode, `${where}: ${r.body}`).toBe(400);
  const e = r.json().error;
  expect(e.type, where).toBe("invalid_request_error");
  expect(e.param, where).toBe(param);
  const words = param.split(".").pop()!.replace(/_/g, " ");
  expect(e.message.toLowerCase(), where).toContain(words);
  return e.message as string;
}

beforeAll(async () => {
  t = await createTestApp();
  const u = await signUp(t.app);
  client = u.client;
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", { name: "strict", scopes: [...API_SCOPES] });
  expect(res.statusCode, res.body).toBe(200);
  key = res.json().key;
});
afterAll(async () => {
  await t?.close();
});

const NOT_DIGITS = ["1e2", "1e1", "0x10", "+5", "-5", "%205", "5%20", "5.0", "0b11", "Infinity", ""];

describe("v1 query strings: whole numbers are decimal digits", () => {
  it("limit of every list and the contacts list's tag_id refuse exponents, hex, signs and spaces", async () => {
    for (const url of ["/contacts", "/tags", "/segments", "/campaigns", "/media", "/webhook_endpoints"]) {
      for (const bad of NOT_DIGITS) {
        const message = await refused(v1("GET", `${url}?limit=${bad}`), "limit", `${url} limit=${bad}`);
        expect(message).toMatch(/^Limit must be /);
      }
      const ok = await v1("GET", `${url}?limit=07`);
      expect(ok.statusCode, ok.body).toBe(200);
    }
    for (const bad of NOT_DIGITS)
      await refused(v1("GET", `/contacts?tag_id=${bad}`), "tag_id", `tag_id=${bad}`);
    const tag = await v1("POST", "/tags", { name: "Hot" });
    expect(tag.statusCode, tag.body).toBe(201);
    const byTag = await v1("GET", `/contacts?tag_id=${tag.json().id}`);
    expect(byTag.statusCode, byTag.body).toBe(200);
  });

  it("the OpenAPI document still says integer with its bounds and default", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const params = doc.paths["/contacts"].get.parameters as { name: string; schema: any }[];
    expect(params.find((p) => p.name === "limit")?.schema).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 50,
    });
    expect(params.find((p) => p.name === "tag_id")?.schema).toMatchObject({ type: "integer" });
    const body = doc.paths["/contacts"].post.requestBody.content["application/json"].schema;
    expect(body.properties.lead_score).toMatchObject({ type: "integer", minimum: 0, maximum: 100 });
    expect(body.properties.email_opt_in).toMatchObject({ type: "boolean" });
    const search = doc.paths["/lead_searches"].post.requestBody.content["application/json"].schema;
    expect(search.properties.radius).toMatchObject({ type: "number", minimum: 1, maximum: 50 });
  });
});

describe("v1 JSON bodies: fields take their documented types", () => {
  it("contacts: a score given as text or null, an opt-in given as text or 1, is a 400 naming the field", async () => {
    const base = () => ({ first_name: "Typed", email: uniqueEmail("typed") });
    const cases: [string, unknown][] = [
      ["lead_score", "5"],
      ["lead_score", null],
      ["lead_score", true],
      ["engagement_score", "10"],
      ["email_opt_in", "yes"],
      ["sms_opt_in", "true"],
      ["call_opt_in", 1],
    ];
    for (const [field, value] of cases) {
      const where = `POST /contacts ${field}=${JSON.stringify(value)}`;
      const message = await refused(v1("POST", "/contacts", { ...base(), [field]: value }), field, where);
      if (typeof value === "string") expect(message, where).toMatch(/not text/);
    }
    // nothing was stored by those
    expect((await v1("GET", "/contacts")).json().data).toEqual([]);
    const ok = await v1("POST", "/contacts", { ...base(), lead_score: 5, email_opt_in: false });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ lead_score: 5, email_opt_in: false });
    const id = ok.json().id;
    await refused(v1("PATCH", `/contacts/${id}`, { lead_score: "50" }), "lead_score", "PATCH lead_score");
    await refused(v1("PATCH", `/contacts/${id}`, { sms_opt_in: "no" }), "sms_opt_in", "PATCH sms_opt_in");
    const after = await v1("GET", `/contacts/${id}`);
    expect(after.json()).toMatchObject({ lead_score: 5, sms_opt_in: false });
  });

  it("lead searches' radius and search_radius, and a campaign's inline contact id, are JSON numbers", async () => {
    const search = { location: "Austin, TX", business_type: "dentist" };
    await refused(v1("POST", "/lead_searches", { ...search, radius: "5" }), "radius", "radius");
    await refused(
      v1("POST", "/lead_searches", { ...search, search_radius: "2" }),
      "search_radius",
      "search_radius",
    );
    await refused(
      v1("POST", "/campaigns", {
        name: "C",
        channel: "email",
        content: { subject: "s", body: "b" },
        audience: { contacts: [{ id: "1", email: "a@example.com" }] },
      }),
      "audience.contacts.0.id",
      "audience contact id",
    );
    expect((await v1("GET", "/campaigns")).json().data).toEqual([]);
  });
});

describe("GET /api/contacts (the app's REST list): page, limit and tag are decimal digits", () => {
  it("refuses 1e2, 0x10 and the like naming the parameter; the client's own queries still work", async () => {
    for (const param of ["page", "limit", "tag"])
      for (const bad of ["1e2", "0x10", "+5", "5.0", "%205"]) {
        const r = await client.get(`/api/contacts?${param}=${bad}`);
        expect(r.statusCode, `${param}=${bad}: ${r.body}`).toBe(400);
        expect(r.json().error.toLowerCase(), `${param}=${bad}`).toContain(param);
      }
    // what the app sends: digits, and empty stage/status for "all" (spec-era list filters)
    const ok = await client.get("/api/contacts?search=&stage=&status=&page=1&limit=50");
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().pagination).toMatchObject({ page: 1 });
    const csv = await client.get("/api/contacts/export.csv?limit=1e2");
    expect(csv.statusCode, csv.body).toBe(400);
    // tRPC crm.list takes numbers as the client sends them
    const list = await trpcCall(client, "crm.list", { page: 1, limit: 25 }, "query");
    expect(list.status, JSON.stringify(list.error)).toBe(200);
  });
});

describe("the app's campaign REST routes: ids, page, limit and afterId are decimal digits", () => {
  it("GET /api/campaigns/0x.. is not that campaign, and its recipients' page/limit/afterId refuse 1e0 and the like", async () => {
    const made = await v1("POST", "/campaigns", {
      name: "Digits",
      channel: "email",
      content: { subject: "s", body: "b" },
      audience: { contacts: [{ email: uniqueEmail("digits") }] },
    });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().campaign.id as number;
    expect((await client.get(`/api/campaigns/${id}`)).statusCode).toBe(200);
    for (const alias of [`0x${id.toString(16)}`, `${id}e0`, `%2B${id}`, `${id}.0`]) {
      // names no campaign: the unknown id's 404 (lib/validate pathRecordId), never campaign `id`
      const r = await client.get(`/api/campaigns/${alias}`);
      expect(r.statusCode, `${alias}: ${r.body}`).toBe(404);
      expect(r.json().error, alias).toBe("Campaign not found");
    }
    for (const param of ["page", "limit", "afterId"]) {
      const r = await client.get(`/api/campaigns/${id}/recipients?${param}=1e0`);
      expect(r.statusCode, `${param}: ${r.body}`).toBe(400);
      // "After id must be ...": the sentence names the parameter in words
      expect(r.json().error.toLowerCase().replace(/ /g, ""), param).toContain(param.toLowerCase());
    }
    const ok = await client.get(`/api/campaigns/${id}/recipients?page=1&limit=10`);
    expect(ok.statusCode, ok.body).toBe(200);
    // tRPC takes numbers as the client sends them
    const viaTrpc = await trpcCall(client, "campaigns.recipients", { id, page: 1, limit: 10 }, "query");
    expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
  });
});

describe("the studio's REST routes: media and edit ids are decimal digits", () => {
  it("/api/media/0x10, 1e1 and the like name no media (the unknown id's 404), not media 16 or 10", async () => {
    for (const alias of ["0x10", "1e1", "%2B5", "5.0", "0b11"]) {
      for (const url of [
        `/api/media/${alias}`,
        `/api/media/${alias}/file`,
        `/api/media/${alias}/versions/original/file`,
      ]) {
        const r = await client.get(url);
        expect(r.statusCode, `${url}: ${r.body}`).toBe(404);
        expect(r.json().error, url).toBe("Media not found");
      }
      const edit = await client.get(`/api/media/edits/${alias}`);
      expect(edit.statusCode, `edits/${alias}: ${edit.body}`).toBe(404);
      expect(edit.json().error, alias).toBe("Edit not found");
    }
    // plain digits still reach the lookup (no such media in this workspace: 404)
    expect((await client.get("/api/media/999999999")).statusCode).toBe(404);
  });
});
