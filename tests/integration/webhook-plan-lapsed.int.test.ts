import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// Outbound webhooks are part of API access (Business plan and up): creating, changing, testing and
// resending endpoints need it, and a workspace's API keys get 402 the moment its plan in force loses
// it. Its endpoints kept receiving every event, though: a workspace moved to Free, or whose
// subscription went unpaid, still streamed its contacts to the URLs it had registered.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
});
afterAll(async () => t?.close());

describe("webhook deliveries follow the plan in force", () => {
  it("stop on a downgrade or an unpaid subscription, with the reason recorded, and resume once paid", async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const rx = await webhookReceiver();
    try {
      const ep = await u.client.post("/api/webhook-endpoints", { url: rx.url, events: ["contact.created"] });
      expect(ep.statusCode, ep.body).toBe(200);
      const id = ep.json().endpoint.id as string;
      let n = 0;
      const addContact = async () => {
        n += 1;
        const res = await u.client.post("/api/contacts", {
          first_name: `Lapsed${n}`,
          email: `lapsed-${n}-${Date.now()}@example.com`,
        });
        expect(res.statusCode, res.body).toBeLessThan(300);
      };

      await addContact();
      expect(rx.got).toHaveLength(1);

      // the owner moves to Free
      await setPlan(t, u.user.id, "free");
      await addContact();
      // an unpaid Business subscription counts as Free too
      await setPlan(t, u.user.id, "business");
      await t.db.update(workspaces).set({ subscriptionStatus: "unpaid" }).where(eq(workspaces.id, u.user.id));
      await addContact();
      expect(rx.got).toHaveLength(1);
      const failed = await t.db.execute<{ status: string; last_error: string | null }>(
        sql`select status, last_error from webhook_deliveries where endpoint_id = ${id} and status <> 'succeeded'`,
      );
      expect(failed).toHaveLength(2);
      for (const d of failed) {
        expect(d.status).toBe("failed");
        expect(d.last_error).toMatch(/plan no longer includes API access/);
      }

      // paid again: events go out again
      await setPlan(t, u.user.id, "business");
      await addContact();
      expect(rx.got).toHaveLength(2);
      expect(JSON.parse(rx.got[1]!.body).data.first_name).toBe(`Lapsed${n}`);
    } finally {
      await rx.close();
    }
  });
});
