import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { deliverWebhookJob } from "../src/server/features/webhooks/webhooks.jobs";
import { PgBossJobClient } from "../src/server/jobs/client";
import type { JobDeps } from "../src/server/jobs/define";
import { handlerOf } from "../src/server/jobs/registry";
import { startBoss, startWorkers } from "../src/server/jobs/worker";
import { createTestApp, type TestApp } from "./helpers";

/** What the receiver answers a path with: a status and, optionally, a `Retry-After` header. */
export type ReceiverAnswer = { status: number; retryAfter?: string };

/**
 * Webhook deliveries on real pg-boss workers against a local receiver, for the describe block (or
 * file) that calls it: a test app allowed to deliver to 127.0.0.1, an HTTP receiver whose answer per
 * path is set in `answers` (200 when unset) and which records each request it gets (`received`:
 * path and time, ms), and pg-boss with one worker for webhooks.deliver (`boss`, `deps` with a
 * pg-boss job client). Hooks are registered for set-up and teardown; the returned object's fields
 * are filled once beforeAll has run.
 */
export function webhookReceiverHarness() {
  const h = {
    t: undefined as unknown as TestApp,
    boss: undefined as unknown as Awaited<ReturnType<typeof startBoss>>,
    deps: undefined as unknown as JobDeps,
    /** the receiver's base URL, `http://127.0.0.1:<port>/hooks` */
    url: "",
    answers: new Map<string, ReceiverAnswer>(),
    received: [] as { path: string; at: number }[],
  };
  let server: http.Server | undefined;
  beforeAll(async () => {
    h.t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        h.received.push({ path: req.url ?? "", at: Date.now() });
        const a = h.answers.get(req.url ?? "") ?? { status: 200 };
        res.statusCode = a.status;
        if (a.retryAfter !== undefined) res.setHeader("Retry-After", a.retryAfter);
        res.end(a.status < 300 ? "ok" : "down");
      });
    });
    await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
    h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const registry = [handlerOf(deliverWebhookJob)];
    h.boss = await startBoss(h.t.env.DATABASE_URL!, registry, { max: 4 });
    const t = h.t;
    h.deps = {
      db: t.db,
      sql: t.sql,
      env: t.env,
      providers: t.providers,
      jobs: new PgBossJobClient(h.boss),
      log: t.ctx.log,
    };
    await startWorkers(h.boss, registry, h.deps, 1);
  });
  afterAll(async () => {
    await h.boss?.stop({ graceful: false, timeout: 2000 });
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await h.t?.close();
  });
  return h;
}
