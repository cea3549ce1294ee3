import { eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookEndpoints, workspaces } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, trpcCall } from "../helpers";
import { type ReceivedWebhook, webhookReceiver } from "./webhook-receiver";

// A webhook endpoint's signing secret could not be rotated: after a leak the owner had to delete the
// endpoint and make a new one (new id, delivery log gone). Rolling it now makes a new secret and keeps
// the old one signing beside it for a while (Standard Webhooks: `webhook-signature: v1,<new> v1,<old>`,
// a receiver accepts any signature that verifies), so a receiver switches without losing a delivery.
// Real deliveries to a local receiver, verified with the standardwebhooks package.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

/** A Business workspace with a webhooks:write (and contacts:read, for contact.created) API key and its v1 caller. */
async function keyed() {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const res = await u.client.post("/api/api-keys", {
    name: "hooks",
    scopes: ["webhooks:write", "contacts:read"],
  });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const call = (method: string, url: string, payload?: unknown) =>
    t.app.inject({
      method: method as "POST",
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return { ...u, call };
}

const headersOf = (g: ReceivedWebhook) => ({
  "webhook-id": String(g.headers["webhook-id"]),
  "webhook-timestamp": String(g.headers["webhook-timestamp"]),
  "webhook-signature": String(g.headers["webhook-signature"]),
});
/** Whether the standardwebhooks package accepts the delivery with `secret`. */
const verifies = (g: ReceivedWebhook, secret: string) => {
  try {
    new Webhook(secret).verify(g.body, headersOf(g));
    return true;
  } catch {
    return false;
  }
};
/** The delivery's signatures (`v1,<base64>` each). */
const signatures = (g: ReceivedWebhook) => String(g.headers["webhook-signature"]).split(" ");

describe("rolling a webhook endpoint's signing secret", () => {
  it("signs with the new and the old secret until the old one expires, then with the new one only", async () => {
    const rx = await webhookReceiver();
    try {
      const k = await keyed();
      const ep = await k.call("POST", "/webhook_endpoints", { url: rx.url, events: ["contact.created"] });
      expect(ep.statusCode, ep.body).toBe(201);
      const { id, secret: old } = ep.json() as { id: string; secret: string };
      expect(ep.json().previous_secret_expires_at).toBeNull();
      const test = async () => {
        const r = await k.call("POST", `/webhook_endpoints/${id}/test`);
        expect(r.statusCode, r.body).toBe(200);
        return { got: rx.got.at(-1)!, deliveryId: r.json().delivery_id as string };
      };

      // before: one signature, the creation's secret
      const before = await test();
      expect(signatures(before.got)).toHaveLength(1);
      expect(verifies(before.got, old)).toBe(true);

      // roll through the public API with no body: the default keeps the old secret for 24 hours
      const t0 = Date.now();
      const rolled = await k.call("POST", `/webhook_endpoints/${id}/rotate_secret`);
      expect(rolled.statusCode, rolled.body).toBe(200);
      const fresh = rolled.json().secret as string;
      expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(fresh).not.toBe(old);
      expect(rolled.json()).toMatchObject({ id, url: rx.url, enabled: true });
      const until = Date.parse(rolled.json().previous_secret_expires_at);
      expect(until).toBeGreaterThanOrEqual(t0 + 24 * 3_600_000 - 1000);
      expect(until).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000 + 1000);
      // the secret is shown once: reading the endpoint tells the expiry only
      const read = (await k.call("GET", `/webhook_endpoints/${id}`)).json();
      expect(read.secret).toBeUndefined();
      expect(read.previous_secret_expires_at).toBe(rolled.json().previous_secret_expires_at);

      // during the grace: two signatures, the new first; either secret verifies
      const during = await test();
      expect(signatures(during.got)).toHaveLength(2);
      expect(signatures(during.got).every((s) => s.startsWith("v1,"))).toBe(true);
      expect(verifies(during.got, fresh)).toBe(true);
      expect(verifies(during.got, old)).toBe(true);
      expect(verifies(during.got, `whsec_${Buffer.from("z".repeat(24)).toString("base64")}`)).toBe(false);
      // a resend of the delivery made before the roll is signed with both too
      const resend = await k.call("POST", `/webhook_deliveries/${before.deliveryId}/resend`);
      expect(resend.statusCode, resend.body).toBe(200);
      const resent = rx.got.at(-1)!;
      expect(resent.headers["webhook-id"]).toBe(before.got.headers["webhook-id"]);
      expect(signatures(resent)).toHaveLength(2);
      expect(verifies(resent, fresh) && verifies(resent, old)).toBe(true);

      // after the old secret's expiry: the new one only
      await t.db
        .update(webhookEndpoints)
        .set({ previousSecretExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(webhookEndpoints.id, id));
      const after = await test();
      expect(signatures(after.got)).toHaveLength(1);
      expect(verifies(after.got, fresh)).toBe(true);
      expect(verifies(after.got, old)).toBe(false);
      expect((await k.call("GET", `/webhook_endpoints/${id}`)).json().previous_secret_expires_at).toBeNull();

      // the app's own adapters: the session REST route (0 hours: the old secret stops at once) and tRPC
      const now = await k.client.post(`/api/webhook-endpoints/${id}/rotate-secret`, { expiresInHours: 0 });
      expect(now.statusCode, now.body).toBe(200);
      const third = now.json().endpoint.secret as string;
      expect(now.json().endpoint.previous_secret_expires_at).toBeNull();
      const at0 = await test();
      expect(signatures(at0.got)).toHaveLength(1);
      expect(verifies(at0.got, third)).toBe(true);
      expect(verifies(at0.got, fresh)).toBe(false);
      const viaTrpc = await trpcCall(k.client, "webhooks.rotateSecret", { id, expiresInHours: 1 });
      expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
      const fourth = viaTrpc.data.secret as string;
      expect(Date.parse(viaTrpc.data.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3_590_000);
      const listed = await trpcCall(k.client, "webhooks.list", undefined, "query");
      expect(listed.data[0].previous_secret_expires_at).toBe(viaTrpc.data.previous_secret_expires_at);
      expect(listed.data[0].secret).toBeUndefined();
      // rolling again keeps only the secret it replaces
      const last = await test();
      expect(signatures(last.got)).toHaveLength(2);
      expect(verifies(last.got, fourth) && verifies(last.got, third)).toBe(true);
      expect(verifies(last.got, fresh)).toBe(false);
    } finally {
      await rx.close();
    }
  });

  it("refuses hours outside 0..168 and unknown fields with a 400 naming them; another workspace's endpoint is a 404 and keeps its secret", async () => {
    const rx = await webhookReceiver();
    try {
      const a = await keyed();
      const b = await keyed();
      const ep = await a.call("POST", "/webhook_endpoints", { url: rx.url, events: ["contact.created"] });
      const { id, secret } = ep.json() as { id: string; secret: string };
      for (const bad of [169, -1, 1.5, "24", null]) {
        const r = await a.call("POST", `/webhook_endpoints/${id}/rotate_secret`, { expires_in_hours: bad });
        expect(r.statusCode, `${bad}: ${r.body}`).toBe(400);
        expect(r.json().error.param, String(bad)).toBe("expires_in_hours");
      }
      const unknown = await a.call("POST", `/webhook_endpoints/${id}/rotate_secret`, { expires: 1 });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error.param).toBe("expires");
      const rest = await a.client.post(`/api/webhook-endpoints/${id}/rotate-secret`, { expiresInHours: 200 });
      expect(rest.statusCode, rest.body).toBe(400);
      expect(rest.json().error).toMatch(/at most 168 hours/);
      // 168 is allowed
      const week = await a.call("POST", `/webhook_endpoints/${id}/rotate_secret`, { expires_in_hours: 168 });
      expect(week.statusCode, week.body).toBe(200);
      const current = week.json().secret as string;

      // workspace B: its key, its session and tRPC all get 404 for A's endpoint
      const v1 = await b.call("POST", `/webhook_endpoints/${id}/rotate_secret`, {});
      expect(v1.statusCode, v1.body).toBe(404);
      expect(v1.json().error.type).toBe("not_found");
      expect((await b.client.post(`/api/webhook-endpoints/${id}/rotate-secret`, {})).statusCode).toBe(404);
      expect((await trpcCall(b.client, "webhooks.rotateSecret", { id })).status).toBe(404);
      for (const bogus of ["abc", "00000000-0000-4000-8000-000000000000"])
        expect((await a.call("POST", `/webhook_endpoints/${bogus}/rotate_secret`)).statusCode).toBe(404);
      // A's secrets are unchanged: its next delivery verifies with the one it has, and the creation's
      const r = await a.call("POST", `/webhook_endpoints/${id}/test`);
      expect(r.statusCode, r.body).toBe(200);
      const got = rx.got.at(-1)!;
      expect(signatures(got)).toHaveLength(2);
      expect(verifies(got, current) && verifies(got, secret)).toBe(true);
    } finally {
      await rx.close();
    }
  });
});
