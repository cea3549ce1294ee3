import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// Paths Fastify's router refuses before any route or hook runs: a broken percent escape
// (FST_ERR_BAD_URL) and a path parameter over 100 characters (FST_ERR_MAX_PARAM_LENGTH). They got
// Fastify's own body {"error":"Bad Request","code":"FST_ERR_BAD_URL",...,"statusCode":400} with no
// Request-Id, on /api/v1 where every error is {error: {type, message}} and every response carries
// Request-Id, and on the app's REST routes where errors are {success: false, error}.

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  key = (await u.client.post("/api/api-keys", { name: "k", scopes: ["contacts:read"] })).json().key;
});
afterAll(async () => t?.close());

describe("router errors in the API's error shapes", () => {
  it.each([
    ["/api/v1/contacts/%E0%A4%A", 400, /broken percent-encoded character/],
    [`/api/v1/contacts/${"1".repeat(150)}`, 414, /longer than any id/],
    [`/api/v1/lead_searches/${"a".repeat(150)}/results`, 414, /longer than any id/],
  ])("GET %s: %i in the v1 error shape with a Request-Id", async (url, status, message) => {
    const res = await t.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: { type: "invalid_request_error", message: expect.any(String) } });
    expect(res.json().error.message).toMatch(message);
    expect(res.headers["request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("an app REST route answers {success: false, error}", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/contacts/%E0%A4%A" });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: expect.stringMatching(/broken percent-encoded/) });
  });
});
