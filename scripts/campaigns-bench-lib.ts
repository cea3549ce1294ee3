/**
 * Shared set-up for the campaigns benchmark and crash test: a database (BENCH_DATABASE_URL, else an
 * embedded Postgres in ./.data/bench-campaigns-pg), migrations, a user with N contacts whose local
 * time is daytime (so quiet hours never defer the SMS run), and an env for the engine.
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql as dsql, eq, inArray } from "drizzle-orm";
import pino from "pino";
import { loadEnv } from "../src/env";
import { createDb, runMigrations } from "../src/server/db/client";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "../src/server/db/embedded";
import { contacts, users, workspaces } from "../src/server/db/schema";
import { findOrCreateContacts } from "../src/server/features/crm/crm.service";
import { createWorkspace } from "../src/server/features/workspaces/workspaces.service";

export async function benchDatabase(): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  let url = process.env.BENCH_DATABASE_URL;
  let embedded: EmbeddedDatabase | null = null;
  if (!url) {
    const dir = path.resolve(".data/bench-campaigns-pg");
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o777);
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(dir, "pg"),
      port: Number(process.env.BENCH_PG_PORT ?? 54339),
      database: "bench",
      persistent: true,
    });
    url = embedded.url;
  }
  await runMigrations(url);
  return { url, embedded };
}

/** Engine env for benchmarks: local providers, no simulated engagement, throttles from BENCH_RATE (default: unthrottled). */
export function benchEnv(url: string, extra: Record<string, string> = {}) {
  const rate = process.env.BENCH_RATE ?? "1000000";
  return loadEnv({
    NODE_ENV: "production",
    APP_SECRET: process.env.APP_SECRET ?? "bench-secret-0123456789abcdef0123456789abcdef",
    DATABASE_URL: url,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pw-bench-campaigns-")),
    LOG_LEVEL: "silent",
    APP_URL: "http://localhost:3000",
    CAMPAIGN_SIMULATE_ENGAGEMENT: "false",
    SEND_RATE_EMAIL_PER_SEC: rate,
    SEND_RATE_SMS_PER_SEC: rate,
    SEND_RATE_VOICE_PER_SEC: rate,
    WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY ?? "4",
    ...extra,
  });
}

/** An Etc/GMT zone where it is now about 14:00. */
export function daytimeZone(): string {
  const o = ((14 - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

/** A fresh user with `n` contacts (unique email and E.164 phone each, daytime zone). */
export async function seedUserWithContacts(url: string, n: number) {
  const { db, sql } = createDb(url, { max: 4 });
  const stamp = Date.now();
  const [user] = await db
    .insert(users)
    .values({
      name: "Bench User",
      email: `bench-${stamp}@example.com`,
      passwordHash: "x",
      businessName: "Bench Co",
    })
    .returning();
  await createWorkspace({ db }, user, { sameIdAsUser: true });
  // Enterprise: 10,000 SMS a month and unlimited contacts, so a 10,000-recipient run fits its limits
  // (the plan check still runs: SMS is a limited meter on Enterprise)
  await db
    .update(workspaces)
    .set({ plan: "enterprise", subscriptionStatus: "active", subscriptionTier: "premium" })
    .where(eq(workspaces.id, user.id));
  const rows = Array.from({ length: n }, (_, i) => ({
    name: `Person ${i}`,
    email: `p${i}-${stamp}@example.com`,
    phone: `+1212${String(5_000_000 + i).padStart(7, "0")}`,
    company: i % 3 ? `Company ${i % 97}` : "",
  }));
  // the statistics refresh findOrCreateContacts queues is done here at once (no worker in a seed)
  const noJobs = { send: async () => null, sendMany: async () => {} };
  const ids = await findOrCreateContacts({ db, jobs: noJobs }, user.id, rows);
  await sql`analyze contacts`;
  const zone = daytimeZone();
  for (let i = 0; i < ids.length; i += 5000)
    await db
      .update(contacts)
      .set({ timezone: zone, smsOptIn: true, callOptIn: true })
      .where(inArray(contacts.id, ids.slice(i, i + 5000)));
  await sql.end();
  return { workspaceId: user.id, contactIds: ids };
}

export const log = pino({ level: "silent" });

/** Waits until the campaign has no queued or sending recipient; returns the counts by status. */
export async function waitForCampaign(
  sql: ReturnType<typeof createDb>["sql"],
  campaignId: number,
  timeoutMs = 600_000,
  verbose = false,
) {
  const start = Date.now();
  let lastLog = start;
  for (;;) {
    const rows = await sql<
      { status: string; n: number }[]
    >`select status, count(*)::int as n from campaign_recipients where campaign_id = ${campaignId} group by status`;
    const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    if (!counts.queued && !counts.sending) return counts as Record<string, number>;
    if (verbose && Date.now() - lastLog > 5000) {
      lastLog = Date.now();
      console.log(`  ${((lastLog - start) / 1000).toFixed(0)} s: ${JSON.stringify(counts)}`);
    }
    if (Date.now() - start > timeoutMs)
      throw new Error(`campaign ${campaignId} did not finish: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { dsql };
