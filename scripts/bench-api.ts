/**
 * Public API benchmark (`npm run bench:api`), issue 15: 50 connections for 15 s on
 * `GET /api/v1/contacts` (a Business workspace's API key, 10,000 contacts, default page of 50) and,
 * in the same run against the same server, `GET /api/auth/me` with a session cookie as the baseline.
 * Real HTTP over loopback with autocannon, which runs in its own process (the server keeps this
 * process to itself; both runs are measured the same way), with each request's CPU cost on the server
 * and in Postgres (embedded cluster only) beside the latencies. Targets: v1 p99 <= 50 ms and throughput >= 0.5x the
 * baseline's.
 *
 * Database: BENCH_DATABASE_URL, else an embedded Postgres in ./.data/bench-pg.
 * Options: BENCH_DURATION (seconds, default 15), BENCH_CONNECTIONS (default 50), BENCH_SESSION_PATHS
 * (comma-separated paths measured the same way with the session cookie after the two runs, for
 * diagnosis, e.g. `/api/contacts,/api/contacts?search=company 42`; the seeded contacts are
 * First<n> Bench, c<n>@bench.example.com, Company <n mod 97>).
 */
import os from "node:os";
import autocannon from "autocannon";
import { eq } from "drizzle-orm";
import { workspaces } from "../src/server/db/schema";
import { autocannonInChild, openBenchDatabase, startBenchServer, startProfile } from "./bench-server";

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CONTACTS = 10_000;

async function main() {
  const { url, pgDataDir, stop } = await openBenchDatabase();
  const { app, db, sql, jobs, close } = await startBenchServer(url, {
    tag: "api",
    env: { API_RATE_LIMIT_PER_MINUTE: "100000000", AUTH_RATE_LIMIT_PER_IP: "100000" },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${addr.port}`;

  const email = `bench-api-${Date.now()}@example.com`;
  const reg = await app.inject({
    method: "POST",
    url: "/api/auth/register",
    payload: { name: "Bench", email, password: "bench-password-123", business_name: "Bench API" },
  });
  const userId = reg.json().user.id as string;
  const cookie = `pw_session=${reg.cookies.find((c) => c.name === "pw_session")?.value}`;
  await db.update(workspaces).set({ plan: "enterprise" }).where(eq(workspaces.id, userId));
  const keyRes = await app.inject({
    method: "POST",
    url: "/api/api-keys",
    headers: { cookie, origin: "http://localhost:80" },
    payload: { name: "bench", scopes: ["contacts:read", "contacts:write"] },
  });
  const key = keyRes.json().key as string;
  const t0 = performance.now();
  for (let i = 0; i < CONTACTS; i += 1000) {
    const r = await app.inject({
      method: "POST",
      url: "/api/v1/contacts/bulk",
      headers: { authorization: `Bearer ${key}` },
      payload: {
        contacts: Array.from({ length: 1000 }, (_, j) => ({
          first_name: `First${i + j}`,
          last_name: "Bench",
          email: `c${i + j}@bench.example.com`,
          company: `Company ${(i + j) % 97}`,
        })),
      },
    });
    if (r.statusCode !== 200) throw new Error(`seed failed: ${r.body}`);
  }
  // the bulk upserts queued a debounced statistics refresh (crm.analyze-contacts, 5 s later on a
  // worker); the inline client keeps it deferred, so run it as the worker would
  await jobs.runDeferred();
  console.log(
    `seeded ${CONTACTS} contacts through POST /api/v1/contacts/bulk in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  /** One autocannonInChild run of `p`, with a V8 CPU profile of the server when asked for. */
  const run = async (title: string, headers: Record<string, string>, p: string) => {
    const profiler = await startProfile();
    const f = await autocannonInChild(`${base}${p}`, headers, {
      connections: CONNECTIONS,
      duration: DURATION,
      pgDataDir,
    });
    await profiler?.stop(title);
    return { title, ...f };
  };
  // warm-up
  await autocannon({
    url: `${base}/api/v1/contacts`,
    connections: 10,
    duration: 2,
    headers: { authorization: `Bearer ${key}` },
  });
  const meRun = await run("GET /api/auth/me", { cookie }, "/api/auth/me");
  const v1Run = await run("GET /api/v1/contacts", { authorization: `Bearer ${key}` }, "/api/v1/contacts");
  const extraRuns = [];
  for (const p of (process.env.BENCH_SESSION_PATHS ?? "").split(",").filter(Boolean))
    extraRuns.push(await run(`GET ${p}`, { cookie }, encodeURI(p)));

  const line = (x: typeof meRun) =>
    `${x.title}: ${x.rps.toFixed(0)} req/s, p50 ${x.p50} ms, p99 ${x.p99} ms, non-2xx ${x.non2xx}, errors ${x.errors}; cost per request: server CPU ${x.serverMs.toFixed(3)} ms${x.pgMs === null ? "" : `, Postgres CPU ${x.pgMs.toFixed(3)} ms`}`;
  console.log(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(line(meRun));
  console.log(line(v1Run));
  for (const x of extraRuns) console.log(`${line(x)} (${(x.rps / meRun.rps).toFixed(2)}x auth/me)`);
  const ratio = v1Run.rps / meRun.rps;
  const p99ok = v1Run.p99 <= 50;
  console.log(
    `v1 throughput = ${ratio.toFixed(2)}x /api/auth/me (target >= 0.5x: ${ratio >= 0.5 ? "met" : "NOT met"}); v1 p99 ${v1Run.p99} ms (target <= 50 ms: ${p99ok ? "met" : "NOT met"})`,
  );
  // the database is kept between runs: leave it as this run found it, so runs stay comparable
  await sql`delete from workspaces where id = ${userId}`;
  await sql`delete from users where id = ${userId}`;
  await sql.unsafe("vacuum (analyze) contacts, contact_words");
  await close();
  await stop();
  if (v1Run.non2xx > 0 || meRun.non2xx > 0) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
