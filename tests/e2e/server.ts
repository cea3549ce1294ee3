/**
 * The app as Playwright sees it: the built client, a real Postgres (TEST_DATABASE_URL or a fresh
 * embedded cluster), a real pg-boss worker in the same process, local providers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadEnv } from "../../src/env";
import { bootCore } from "../../src/server/boot";
import { runMigrations } from "../../src/server/db/client";
import { startEmbeddedPostgres } from "../../src/server/db/embedded";
import { createLogger } from "../../src/server/lib/logger";
import { createServer } from "../../src/server/main";
import { e2eInfoPath, e2eReceiverPort } from "./e2e-info";

const port = Number(process.env.E2E_PORT ?? 3100);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-e2e-"));
fs.chmodSync(dir, 0o777);
let url = process.env.TEST_DATABASE_URL;
const embedded = url
  ? null
  : await startEmbeddedPostgres({
      dataDir: path.join(dir, "pg"),
      port: port + 20000,
      database: "pitchwise_e2e",
      persistent: false,
    });
url ??= embedded!.url;
await runMigrations(url);
const env = loadEnv({
  ...process.env,
  NODE_ENV: "test",
  DATABASE_URL: url,
  DATA_DIR: path.join(dir, "data"),
  PORT: String(port),
  HOST: "127.0.0.1",
  APP_URL: `http://127.0.0.1:${port}`,
  LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
  AUTH_RATE_LIMIT_PER_IP: "100000",
  DEMO_RATE_LIMIT_PER_IP: "100000",
  DEMO_RATE_LIMIT_PER_TARGET: "100000",
  // the webhooks spec's local receiver, and nothing else private (the SSRF guard still holds)
  OUTBOUND_ALLOWED_HOSTS: [process.env.OUTBOUND_ALLOWED_HOSTS, `127.0.0.1:${e2eReceiverPort(port)}`]
    .filter(Boolean)
    .join(","),
});
const log = createLogger(env);
const core = await bootCore(env, url, log);
await core.startWorkers();
const { app } = await createServer({
  db: core.db,
  sql: core.sql,
  env,
  providers: core.providers,
  jobs: core.jobs,
  logger: log,
  serveClient: true,
});
await app.listen({ port, host: "127.0.0.1" });
console.log(`e2e server on ${env.APP_URL}`);
// specs that must arrange state no screen can make yet (e.g. a workspace's plan) read the database URL here
fs.writeFileSync(e2eInfoPath(port), JSON.stringify({ databaseUrl: url }));
const stop = async () => {
  fs.rmSync(e2eInfoPath(port), { force: true });
  await app.close().catch(() => {});
  await core.stop();
  await embedded?.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
