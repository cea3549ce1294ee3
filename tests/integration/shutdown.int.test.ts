/**
 * Graceful shutdown (issue 11): the real server process (src/server/index.ts, PROCESS_ROLE=all) gets
 * SIGTERM while a campaign send job is running. It must stop accepting connections, let pg-boss
 * finish the running job (within SHUTDOWN_TIMEOUT_MS), close its pools and exit 0, with every
 * recipient sent exactly once and no job left active. When a job outlasts the timeout it goes back to
 * its queue and the next start finishes the campaign: nothing lost, nothing sent twice.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { contactsCsv, SmokeClient, sleep, waitForHealthy } from "../../scripts/smoke-lib";
import { runMigrations } from "../../src/server/db/client";

const ROOT = path.resolve(import.meta.dirname, "../..");
// The server here runs every queue's workers (PROCESS_ROLE=all). On the run's shared database they
// took other files' jobs too (avatar-pgboss's D-ID polls, without its fake D-ID: 'error'), so this
// file gets a database of its own, migrated here and dropped at the end.
const sharedUrl = inject("databaseUrl");
const dbName = `pitchwise_shutdown_${process.pid}_${Date.now()}`;
const databaseUrl = (() => {
  const u = new URL(sharedUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-shutdown-"));
const children: ChildProcess[] = [];

beforeAll(async () => {
  const admin = postgres(sharedUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await admin.end({ timeout: 5 });
  await runMigrations(databaseUrl);
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await sql.end({ timeout: 5 });
  const admin = postgres(sharedUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
  await admin.end({ timeout: 5 });
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts the server entry through tsx; `exited` resolves with the exit code. */
function startServer(port: number, env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/server/index.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "test",
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: path.join(tmp, "data"),
      PROCESS_ROLE: "all",
      LOG_LEVEL: "info",
      CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
      AUTH_RATE_LIMIT_PER_IP: "100000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const output = { text: "" };
  child.stdout!.on("data", (d) => (output.text += d));
  child.stderr!.on("data", (d) => (output.text += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, output, exited };
}

/** Outbox rows (the local email provider's sends) of one campaign: all of them and distinct addresses. */
async function sent(campaignId: number): Promise<{ total: number; distinct: number }> {
  const [row] = await sql<{ total: number; distinct: number }[]>`
    select count(*)::int as total, count(distinct "to")::int as distinct
    from outbox_messages where channel = 'email' and metadata->>'campaignId' = ${String(campaignId)}`;
  return row;
}

/** Send jobs of this campaign still marked active in pg-boss. */
async function activeJobs(campaignId: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pgboss.job j
    where j.state = 'active' and j.name = 'campaigns.send-message'
      and exists (select 1 from campaign_recipients r
                  where r.campaign_id = ${campaignId} and (j.data->'recipientIds') @> to_jsonb(r.id))`;
  return row.n;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * The email throttle (SEND_RATE_EMAIL_PER_SEC) paces a send job part by part (one second's worth
 * each), so the job of a campaign to n recipients runs about n / rate seconds, active in pg-boss:
 * that running job, seen part way (some recipients sent, not all), is what SIGTERM lands in.
 */
async function campaignPartWay(client: SmokeClient, n: number) {
  const ids = await client.contactIds();
  expect(ids).toHaveLength(n);
  const campaignId = await client.launchEmailCampaign(ids, "Paced");
  await waitFor("the campaign's send job to be part way", async () => {
    const { total } = await sent(campaignId);
    return total > 0 && total < n && (await activeJobs(campaignId)) > 0;
  });
  return campaignId;
}

describe("SIGTERM", () => {
  it("drains the running send job, closes and exits 0; every recipient sent once", async () => {
    const port = await freePort();
    const tag = `drain${Date.now().toString(36)}`;
    const server = startServer(port, { SEND_RATE_EMAIL_PER_SEC: "3", SHUTDOWN_TIMEOUT_MS: "25000" });
    await waitForHealthy(`http://127.0.0.1:${port}/healthz`);
    const client = new SmokeClient(`http://127.0.0.1:${port}`);
    await client.register(`${tag}@example.com`);
    await client.verifyEmail(sql, `${tag}@example.com`);
    expect((await client.importCsv(contactsCsv(30, tag))).created).toBe(30);
    const campaignId = await campaignPartWay(client, 30);
    server.child.kill("SIGTERM");
    // new connections are refused once the HTTP server closed, while the job keeps running
    await waitFor("the listener to close", async () => {
      try {
        await fetch(`http://127.0.0.1:${port}/healthz`);
        return false;
      } catch {
        return true;
      }
    });
    // exit 0: within SHUTDOWN_TIMEOUT_MS + 5 s (past that the entry exits 1)
    expect(await server.exited, server.output.text.slice(-2000)).toBe(0);
    expect(server.output.text).toContain('"msg":"shutting down"');
    expect(server.output.text).toContain('"msg":"shutdown complete"');
    // the running job was finished, not dropped: all 30 sent before the process left, none twice
    expect(await sent(campaignId)).toEqual({ total: 30, distinct: 30 });
    expect(await activeJobs(campaignId)).toBe(0);
  }, 240_000);

  it("a job that outlasts SHUTDOWN_TIMEOUT_MS goes back to its queue and the next start finishes it", async () => {
    const port = await freePort();
    const tag = `requeue${Date.now().toString(36)}`;
    const env = {
      SEND_RATE_EMAIL_PER_SEC: "1",
      SHUTDOWN_TIMEOUT_MS: "1000",
      CAMPAIGN_SEND_LEASE_SECONDS: "5",
    };
    const first = startServer(port, env);
    await waitForHealthy(`http://127.0.0.1:${port}/healthz`);
    const client = new SmokeClient(`http://127.0.0.1:${port}`);
    await client.register(`${tag}@example.com`);
    await client.verifyEmail(sql, `${tag}@example.com`);
    expect((await client.importCsv(contactsCsv(20, tag))).created).toBe(20);
    const campaignId = await campaignPartWay(client, 20);
    first.child.kill("SIGTERM");
    expect(await first.exited, first.output.text.slice(-2000)).toBe(0);
    // most of its 20 s left: the timeout cut the job short; it was failed back to its queue
    expect((await sent(campaignId)).total).toBeLessThan(20);
    expect(await activeJobs(campaignId)).toBe(0);
    const [job] = await sql<{ state: string }[]>`
      select state from pgboss.job j where j.name = 'campaigns.send-message'
        and exists (select 1 from campaign_recipients r
                    where r.campaign_id = ${campaignId} and (j.data->'recipientIds') @> to_jsonb(r.id))`;
    expect(job.state).toBe("retry");

    const second = startServer(port, env);
    await waitForHealthy(`http://127.0.0.1:${port}/healthz`);
    await client.waitForCampaign(campaignId, 180_000);
    expect(await sent(campaignId)).toEqual({ total: 20, distinct: 20 });
    second.child.kill("SIGTERM");
    expect(await second.exited, second.output.text.slice(-2000)).toBe(0);
  }, 360_000);
});
