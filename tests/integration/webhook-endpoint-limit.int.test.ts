import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_ENDPOINT_LIMIT } from "../../src/server/features/webhooks/webhooks.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// A hostile tenant could create webhook endpoints without end (60 in a row were all 201). Each
// emitted event stores and POSTs one delivery per subscribed endpoint, so N endpoints turned every
// contact write (a 1,000-row bulk upsert: 1,000 events) into N times as many delivery rows and jobs in
// the queue every workspace shares. A workspace now has at most WEBHOOK_ENDPOINT_LIMIT endpoints,
// counted under a lock, so concurrent creations cannot pass it together.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("webhook endpoints per workspace", () => {
  it(`stop at ${WEBHOOK_ENDPOINT_LIMIT}, also for concurrent creations, on /api/v1 and in Settings`, async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const { key } = (
      await u.client.post("/api/api-keys", { name: "hooks", scopes: ["webhooks:write", "contacts:read"] })
    ).json();
    const create = (i: number) =>
      t.app.inject({
        method: "POST",
        url: "/api/v1/webhook_endpoints",
        headers: { authorization: `Bearer ${key}` },
        payload: { url: `https://example.com/hooks/${i}`, events: ["contact.created"] },
      });
    const attempts = WEBHOOK_ENDPOINT_LIMIT + 5;
    const results = await Promise.all(Array.from({ length: attempts }, (_, i) => create(i)));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(WEBHOOK_ENDPOINT_LIMIT);
    expect(codes.filter((c) => c === 409)).toHaveLength(5);
    const refused = results.find((r) => r.statusCode === 409)!;
    expect(refused.json().error).toMatchObject({ type: "conflict" });
    expect(refused.json().error.message).toMatch(
      new RegExp(`already has ${WEBHOOK_ENDPOINT_LIMIT} webhook endpoints`),
    );
    const count = async () =>
      (
        await t.db.execute<{ n: number }>(
          sql`select count(*)::int as n from webhook_endpoints where workspace_id = ${u.user.id}`,
        )
      )[0]!.n;
    expect(await count()).toBe(WEBHOOK_ENDPOINT_LIMIT);

    // the settings page's route is the same service
    const settings = await u.client.post("/api/webhook-endpoints", {
      url: "https://example.com/hooks/settings",
      events: ["contact.created"],
    });
    expect(settings.statusCode, settings.body).toBe(409);

    // deleting one makes room for one
    const first = results.find((r) => r.statusCode === 201)!.json().id as string;
    const del = await t.app.inject({
      method: "DELETE",
      url: `/api/v1/webhook_endpoints/${first}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(del.statusCode, del.body).toBe(200);
    expect((await create(1000)).statusCode).toBe(201);
    expect((await create(1001)).statusCode).toBe(409);
    expect(await count()).toBe(WEBHOOK_ENDPOINT_LIMIT);
  });
});
