import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY_LIMIT } from "../../src/server/features/api/api.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// The public API's rate limit is per key (API_RATE_LIMIT_PER_MINUTE), and keys could be minted
// without end (40 at once were all created): a workspace multiplied its request rate by as many keys
// as it cared to make. A workspace now has at most API_KEY_LIMIT live keys, counted under a lock;
// revoked and expired keys do not count.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: "2" });
});
afterAll(async () => t?.close());

describe("API keys per workspace", () => {
  it(`stop at ${API_KEY_LIMIT} live keys, also for concurrent creations; a revoke makes room`, async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const create = (name: string) => u.client.post("/api/api-keys", { name, scopes: ["contacts:read"] });
    const results = await Promise.all(Array.from({ length: API_KEY_LIMIT + 5 }, (_, i) => create(`k${i}`)));
    const made = results.filter((r) => r.statusCode === 200);
    expect(made).toHaveLength(API_KEY_LIMIT);
    const refused = results.filter((r) => r.statusCode === 409);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.json()).toMatchObject({
      success: false,
      error: expect.stringMatching(new RegExp(`already has ${API_KEY_LIMIT} active API keys`)),
    });

    // each live key still has its own limit of 2 requests a minute: the workspace gets at most
    // API_KEY_LIMIT times that
    let ok = 0;
    for (const r of made)
      for (let i = 0; i < 3; i++) {
        const res = await t.app.inject({
          method: "GET",
          url: "/api/v1/contacts",
          headers: { authorization: `Bearer ${r.json().key}` },
        });
        if (res.statusCode === 200) ok += 1;
        else expect(res.statusCode).toBe(429);
      }
    expect(ok).toBe(API_KEY_LIMIT * 2);

    const revoked = await u.client.del(`/api/api-keys/${made[0]!.json().apiKey.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect((await create("after revoke")).statusCode).toBe(200);
    expect((await create("one too many")).statusCode).toBe(409);
  });
});
