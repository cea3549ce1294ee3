import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_RETRY_LIMIT } from "../../src/server/features/webhooks/webhooks.jobs";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

// A hostile webhook receiver: it answers every delivery 500 with a NUL character in its body. The
// start of that body goes into the delivery's last_error, a Postgres text column, which cannot hold
// NUL: the attempt's record failed (22021), so the delivery stayed pending with 0 attempts after
// every retry, the endpoint's failure streak never started (never auto-disabled), and the stranded
// sweep kept finding it "never attempted".

let t: TestApp;
let server: http.Server;
let url: string;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.statusCode = 500;
      res.end("upstream\u0000broke");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await t?.close();
});

describe("a receiver whose error response holds a NUL character", () => {
  it("still has each attempt recorded, and the delivery fails after its retries", async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    const ep = await u.client.post("/api/webhook-endpoints", { url, events: ["contact.created"] });
    expect(ep.statusCode, ep.body).toBe(200);
    const id = ep.json().endpoint.id as string;
    // the inline job client runs the delivery and its retries at once
    const sent = await u.client.post(`/api/webhook-endpoints/${id}/test`);
    expect(sent.statusCode, sent.body).toBe(200);

    const deliveries = await u.client.get(`/api/webhook-endpoints/${id}/deliveries`);
    const [d] = deliveries.json().deliveries as {
      status: string;
      attempts: number;
      response_code: number;
      last_error: string;
    }[];
    expect(d).toMatchObject({
      status: "failed",
      attempts: DELIVERY_RETRY_LIMIT + 1,
      response_code: 500,
      last_error: "HTTP 500: upstream\uFFFDbroke",
    });
    const [e] = await t.db.execute<{ failing_since: string | null }>(
      sql`select failing_since from webhook_endpoints where id = ${id}`,
    );
    expect(e!.failing_since).not.toBeNull();
  });
});
