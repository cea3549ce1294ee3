import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthedClient, createTestApp, signUp, TEST_ORIGIN, type TestApp } from "../helpers";

// Many HTTP clients (axios with a default header, fetch wrappers, Postman collections) send
// `Content-Type: application/json` on every request, a body-less DELETE or POST included. On the app's
// REST routes that empty body is no body at all, as on /api/v1 (api.v1 apiV1): a DELETE deletes, and a
// route that needs a body says it is missing, never "The request body is not valid JSON" for a body
// nobody sent.

let t: TestApp;
let client: AuthedClient;

beforeAll(async () => {
  t = await createTestApp();
  client = (await signUp(t.app)).client;
});
afterAll(async () => t?.close());

const json = { "content-type": "application/json" };

describe("an empty body sent as application/json", () => {
  it.each([
    ["empty", ""],
    ["a newline (whitespace only)", "\n"],
  ])("a DELETE with an %s body deletes the contact", async (_what, payload) => {
    const c = await client.post("/api/contacts", {
      first_name: "Ada",
      email: `ada-${payload.length}@example.com`,
    });
    expect(c.statusCode, c.body).toBe(200);
    const id = c.json().contact.id as number;
    const del = await client.inject({ method: "DELETE", url: `/api/contacts/${id}`, headers: json, payload });
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json().success).toBe(true);
    expect((await client.get(`/api/contacts/${id}`)).statusCode).toBe(404);
  });

  it("a route that needs a body says the body is missing", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      headers: { ...json, origin: TEST_ORIGIN },
      payload: "",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: "The request body is missing: send a JSON object",
    });
  });

  it("a body that is not JSON is still refused as such", async () => {
    const res = await client.inject({
      method: "POST",
      url: "/api/contacts",
      headers: json,
      payload: "{first",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("The request body is not valid JSON");
  });
});
