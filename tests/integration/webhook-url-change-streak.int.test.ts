import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookEndpoints, workspaces } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// An endpoint whose deliveries keep failing for 5 days is disabled (issue 15). The streak belonged to
// the endpoint, not to its URL: an admin who pointed a long-failing endpoint at a working receiver
// kept the old streak, so the new receiver's first failed answer (a deploy, one 503) disabled the
// endpoint at once, "after 5 days of failed deliveries", and emailed the owner. A new URL now starts
// without a streak; the same URL sent again keeps it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("webhook endpoint failure streak", () => {
  it("a changed URL starts a new streak: its first failure does not disable the endpoint", async () => {
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    const { key } = (
      await u.client.post("/api/api-keys", {
        name: "hooks",
        scopes: ["webhooks:write", "contacts:read", "contacts:write"],
      })
    ).json();
    const call = (method: string, p: string, payload?: object) =>
      t.app.inject({
        method: method as "POST",
        url: `/api/v1${p}`,
        headers: { authorization: `Bearer ${key}` },
        ...(payload ? { payload } : {}),
      });
    const broken = await webhookReceiver(Array(10).fill(503));
    const fixed = await webhookReceiver([503]); // one failed answer, then 200
    try {
      const ep = await call("POST", "/webhook_endpoints", { url: broken.url, events: ["contact.created"] });
      expect(ep.statusCode, ep.body).toBe(201);
      const id = ep.json().id as string;
      const almostFiveDays = new Date(Date.now() - 5 * 24 * 3600_000 + 3600_000);
      await t.db
        .update(webhookEndpoints)
        .set({ failingSince: almostFiveDays })
        .where(eq(webhookEndpoints.id, id));

      // the same URL sent again is no fix: the streak stays
      expect(
        (await call("PATCH", `/webhook_endpoints/${id}`, { url: broken.url })).json().failing_since,
      ).toBe(almostFiveDays.toISOString());
      // a new URL: no streak yet
      const moved = await call("PATCH", `/webhook_endpoints/${id}`, { url: fixed.url });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(moved.json().failing_since).toBeNull();

      // an hour later the old streak would be past 5 days; the new receiver fails once
      const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
      if (row!.failingSince)
        await t.db
          .update(webhookEndpoints)
          .set({ failingSince: new Date(row!.failingSince.getTime() - 2 * 3600_000) })
          .where(eq(webhookEndpoints.id, id));
      const c = await call("POST", "/contacts", { first_name: "S", email: uniqueEmail("streak") });
      expect(c.statusCode, c.body).toBe(201);
      expect(fixed.got.length).toBeGreaterThanOrEqual(1);
      const after = (await call("GET", `/webhook_endpoints/${id}`)).json();
      expect(after.enabled, JSON.stringify(after)).toBe(true);
      expect(after.disabled_reason).toBeNull();
      expect(broken.got).toHaveLength(0);
    } finally {
      await broken.close();
      await fixed.close();
    }
  });
});
