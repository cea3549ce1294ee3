import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPC_UNREADABLE_INPUT } from "../../src/server/trpc/init";
import { createTestApp, signUp, type TestApp } from "../helpers";

// Attack re-test: a tRPC input whose superjson envelope cannot be read (a `meta` naming a type it
// does not hold, an unknown transformation, nesting past the stack) was refused with 400, but its
// sentence was the JavaScript error's own text: "Maximum call stack size exceeded", "Unknown
// transformation: nope". Hostile input gets a 4xx with a sentence a person understands.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

describe("a tRPC input that cannot be read", () => {
  it("is a 400 with a sentence, never the deserialiser's error text", async () => {
    const u = await signUp(t.app);
    const envelopes = [
      `{"json":"x","meta":{"values":"bigint"}}`,
      `{"json":{"first_name":"a","email":"a@b.co"},"meta":{"values":{"first_name":["nope"]}}}`,
      `{"json":{"first_name":"a","email":"a@b.co"},"meta":{"values":${deepObject(50_000)}}}`,
      `{"json":[1,2],"meta":{"values":"set"}}`,
    ];
    for (const payload of envelopes) {
      const res = await u.client.inject({
        method: "POST",
        url: "/trpc/crm.create",
        payload,
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, payload.slice(0, 80)).toBe(400);
      expect(res.json().error.json.message, payload.slice(0, 80)).toBe(TRPC_UNREADABLE_INPUT);
    }
    // a readable input refused by its schema keeps its own sentence
    const bad = await u.client.inject({
      method: "POST",
      url: "/trpc/crm.create",
      payload: { json: { first_name: "a", email: "nope" } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.json.message).toBe("Please enter a valid email address");
  });
});
