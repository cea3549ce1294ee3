import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// A hostile /api/v1 POST: a JSON body nested 100,000 levels deep (about 200 KB, under the 1 MiB
// limit) sent with an Idempotency-Key. The request's idempotency fingerprint JSON.stringify'd the
// parsed body, which recursed past the stack: RangeError, a 500 "Something went wrong on our side".
// Without the header the same body was a 400.

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const res = await u.client.post("/api/api-keys", { name: "deep", scopes: ["contacts:write"] });
  expect(res.statusCode, res.body).toBe(200);
  key = res.json().key;
});
afterAll(async () => t?.close());

const post = (idempotencyKey: string, payload: string) =>
  t.app.inject({
    method: "POST",
    url: "/api/v1/contacts",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "idempotency-key": idempotencyKey,
    },
    payload,
  });

describe("Idempotency-Key with a deeply nested body", () => {
  it.each([
    ["arrays", `{"first_name":"Ann","extra":${"[".repeat(100_000)}${"]".repeat(100_000)}}`],
    ["objects", `${'{"a":'.repeat(60_000)}1${"}".repeat(60_000)}`],
  ])("nested %s: a 400 naming the field for the same key each time, never a 500", async (_, body) => {
    const idem = `deep-${Math.random().toString(36).slice(2)}`;
    const first = await post(idem, body);
    expect(first.statusCode, first.body).toBe(400);
    expect(first.json().error).toMatchObject({ type: "invalid_request_error" });
    expect(first.json().error.message).toMatch(/This field is not accepted here: (extra|a)/);
    // a 400 is not kept under the key (api.service keepsIdempotentAnswer): the repeat is fingerprinted
    // and refused again
    const again = await post(idem, body);
    expect(again.statusCode).toBe(400);
    expect(again.headers["idempotent-replayed"]).toBeUndefined();
    expect(again.json()).toEqual(first.json());
  });
});
