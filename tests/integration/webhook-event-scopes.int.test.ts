import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "../../src/server/features/webhooks/webhooks.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// An API key with only `webhooks:write` could subscribe an endpoint to contact.* events and so
// receive every contact it could not read with GET /api/v1/contacts (403). Subscribing to an event
// needs the scope that reads that event's data; session users (owners and admins) are not scoped.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

async function keyed(scopes: string[]) {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const res = await u.client.post("/api/api-keys", { name: "hooks", scopes });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const call = (method: "GET" | "POST" | "PATCH", url: string, payload?: object) =>
    t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });
  return { ...u, call };
}

/** The scope each event type needs, as documented (contact.* contacts:read, and so on). */
const NEEDS: Record<string, string> = {
  "contact.created": "contacts:read",
  "contact.updated": "contacts:read",
  "contact.deleted": "contacts:read",
  "contact.unsubscribed": "contacts:read",
  "campaign.launched": "campaigns:read",
  "campaign.rescheduled": "campaigns:read",
  "campaign.completed": "campaigns:read",
  "message.sent": "campaigns:read",
  "message.delivered": "campaigns:read",
  "message.opened": "campaigns:read",
  "message.clicked": "campaigns:read",
  "message.replied": "campaigns:read",
  "message.bounced": "campaigns:read",
  "video.viewed": "campaigns:read",
  "lead_search.completed": "leads:read",
};

describe("webhook subscriptions need the scope that reads the event's data", () => {
  it("a webhooks:write-only key cannot subscribe to contact events (403 naming contacts:read), so no contact reaches its URL", async () => {
    const k = await keyed(["webhooks:write"]);
    expect((await k.call("GET", "/contacts")).statusCode).toBe(403);
    const rx = await webhookReceiver();
    try {
      const res = await k.call("POST", "/webhook_endpoints", {
        url: rx.url,
        events: ["contact.created", "contact.updated"],
      });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error).toMatchObject({ type: "permission_error" });
      expect(res.json().error.message).toContain("'contacts:read'");
      expect(res.json().error.message).toContain("contact.created");
      expect((await k.client.get("/api/webhook-endpoints")).json().endpoints).toEqual([]);
      const c = await k.client.post("/api/contacts", { first_name: "Secret", email: "secret@example.com" });
      expect(c.statusCode, c.body).toBeLessThan(300);
      expect(rx.got).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });

  it("every event type is mapped: each alone is refused without its scope and accepted with it", async () => {
    expect(Object.keys(NEEDS).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const bare = await keyed(["webhooks:write"]);
    const scoped = new Map<string, Awaited<ReturnType<typeof keyed>>>();
    for (const scope of new Set(Object.values(NEEDS)))
      scoped.set(scope, await keyed(["webhooks:write", scope]));
    for (const [event, scope] of Object.entries(NEEDS)) {
      const body = { url: "https://hooks.example.com/x", events: [event] };
      const refused = await bare.call("POST", "/webhook_endpoints", body);
      expect(refused.statusCode, event).toBe(403);
      expect(refused.json().error.message, event).toContain(`'${scope}'`);
      const ok = await scoped.get(scope)!.call("POST", "/webhook_endpoints", body);
      expect(ok.statusCode, `${event} ${ok.body}`).toBe(201);
    }
  });

  it("PATCH: adding events, pointing the endpoint at another URL or enabling it needs the scopes of its events; disabling does not", async () => {
    const owner = await keyed(["webhooks:write", "contacts:read"]);
    const ep = await owner.call("POST", "/webhook_endpoints", {
      url: "https://hooks.example.com/a",
      events: ["contact.created"],
    });
    expect(ep.statusCode, ep.body).toBe(201);
    const id = ep.json().id as string;
    // a second key of the same workspace with webhooks:write only
    const res = await owner.client.post("/api/api-keys", { name: "narrow", scopes: ["webhooks:write"] });
    const narrowKey = res.json().key as string;
    const narrow = (payload: object) =>
      t.app.inject({
        method: "PATCH",
        url: `/api/v1/webhook_endpoints/${id}`,
        headers: { authorization: `Bearer ${narrowKey}` },
        payload,
      });
    const repointed = await narrow({ url: "https://evil.example.com/steal" });
    expect(repointed.statusCode, repointed.body).toBe(403);
    expect(repointed.json().error.message).toContain("'contacts:read'");
    const added = await narrow({ events: ["lead_search.completed"] });
    expect(added.statusCode).toBe(403);
    expect(added.json().error.message).toContain("'leads:read'");
    expect((await narrow({ enabled: false })).statusCode).toBe(200);
    expect((await narrow({ enabled: true })).statusCode).toBe(403);
    const after = (await owner.call("GET", `/webhook_endpoints/${id}`)).json();
    expect(after).toMatchObject({ url: "https://hooks.example.com/a", events: ["contact.created"] });
    // the key that holds contacts:read may
    expect((await owner.call("PATCH", `/webhook_endpoints/${id}`, { enabled: true })).statusCode).toBe(200);
    expect(
      (await owner.call("PATCH", `/webhook_endpoints/${id}`, { url: "https://hooks.example.com/b" }))
        .statusCode,
    ).toBe(200);
  });

  it("session users (owner/admin in the app) are not limited by scopes", async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const res = await u.client.post("/api/webhook-endpoints", {
      url: "https://hooks.example.com/app",
      events: [...WEBHOOK_EVENT_TYPES],
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
