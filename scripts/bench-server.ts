/**
 * The app as the HTTP benchmarks run it (bench:api, bench:crm, bench:leads): migrations, a test-mode env
 * with silent logs and a temporary DATA_DIR, local providers, the inline job client bound to the job
 * registry, and `createServer` without the client. `env` adds or overrides settings (e.g. rate limits).
 * Returns the app, pool, env, job client, the job deps (providers included), the DATA_DIR and `close`.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import inspector from "node:inspector";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadEnv } from "../src/env";
import { createDb, runMigrations } from "../src/server/db/client";
import { startEmbeddedPostgres } from "../src/server/db/embedded";
import type { JobDeps } from "../src/server/jobs/define";
import { InlineJobClient } from "../src/server/jobs/inline";
import { jobRegistry } from "../src/server/jobs/registry";
import { createServer } from "../src/server/main";
import { createProviders } from "../src/server/providers";

/**
 * The V8 flag the web process runs with in production (Dockerfile CMD, fly.toml `app`, `npm start`: a
 * 32 MB young generation; README "Build and deploy"). The benchmarks serve from their own process, so
 * their package.json scripts pass it to tsx; startBenchServer says so when a run lacks it.
 */
export const WEB_NODE_FLAG = "--max-semi-space-size=32";

export async function startBenchServer(
  url: string,
  opts: { tag: string; poolMax?: number; env?: Record<string, string> },
) {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  if (!flags.includes(WEB_NODE_FLAG))
    console.warn(
      `note: production runs the web server with ${WEB_NODE_FLAG}; this process runs without it, so its HTTP figures are not production's (run it through its npm script, e.g. npm run bench:crm)`,
    );
  await runMigrations(url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `pw-bench-${opts.tag}-`));
  const env = loadEnv({
    ...process.env,
    NODE_ENV: "test",
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    APP_URL: "http://localhost:80",
    ...opts.env,
  } as Record<string, string>);
  const { db, sql } = createDb(url, { max: opts.poolMax ?? 10 });
  const log = pino({ level: "silent" });
  // the job deps exist once the server does
  let deps: JobDeps | null = null;
  const jobs = new InlineJobClient(() => deps as JobDeps, jobRegistry);
  const providers = createProviders(env, { db });
  const { app } = await createServer({ db, sql, env, providers, jobs, serveClient: false, logger: log });
  deps = { db, sql, env, providers, jobs, log };
  /** Closes the app and the pool and removes the DATA_DIR. */
  const close = async () => {
    await app.close();
    await sql.end({ timeout: 5 });
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { app, db, sql, env, jobs, deps: deps as JobDeps, dataDir, close };
}

/**
 * The benchmarks' database: BENCH_DATABASE_URL when set, else the embedded Postgres kept in
 * ./.data/bench-pg (port 54329, database `bench`, persistent between runs). `pgDataDir` is the embedded
 * cluster's data folder (null for BENCH_DATABASE_URL); `stop` stops the embedded cluster (no-op otherwise).
 */
export async function openBenchDatabase(): Promise<{
  url: string;
  pgDataDir: string | null;
  stop: () => Promise<void>;
}> {
  const given = process.env.BENCH_DATABASE_URL;
  if (given) return { url: given, pgDataDir: null, stop: async () => {} };
  const dir = path.resolve(".data/bench-pg");
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o777);
  const pgDataDir = path.join(dir, "pg");
  const embedded = await startEmbeddedPostgres({
    dataDir: pgDataDir,
    port: 54329,
    database: "bench",
    persistent: true,
  });
  return { url: embedded.url, pgDataDir, stop: () => embedded.stop() };
}

/**
 * CPU milliseconds used so far by a Postgres cluster's processes (the postmaster named in
 * `<dataDir>/postmaster.pid` and its children: backends, writers, and those that exited, which the
 * postmaster's cutime/cstime keep), read from /proc; null when it cannot
 * be read (a shared server, or not Linux). Differences over a run give Postgres CPU per request,
 * a cost that does not depend on what else the machine is doing.
 */
export function pgCpuMs(dataDir: string | null): number | null {
  if (!dataDir) return null;
  try {
    const pm = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const tick = 100; // USER_HZ on Linux
    let total = 0;
    for (const d of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      } catch {
        continue;
      }
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(d);
      const ppid = Number(f[1]);
      if (pid !== pm && ppid !== pm) continue;
      // utime + stime; the postmaster's also cutime + cstime: the CPU of the backends and workers
      // that exited and were reaped, so a backend closing between two readings keeps its CPU in the
      // sum (without it a leg whose start saw an autovacuum worker that then exited read negative)
      const own = Number(f[11]) + Number(f[12]);
      total += ((pid === pm ? own + Number(f[13]) + Number(f[14]) : own) * 1000) / tick;
    }
    return total;
  } catch {
    return null;
  }
}

/** What one autocannonInChild run measured. */
export interface LoadFigures {
  /** mean requests per second */
  rps: number;
  /** latency percentiles, ms */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** this process's CPU (the server: event loop, GC, libuv) per request, ms */
  serverMs: number;
  /** the embedded Postgres cluster's CPU per request, ms (null on BENCH_DATABASE_URL) */
  pgMs: number | null;
}

/**
 * `connections` connections for `duration` s of GET `url` with `headers`, by autocannon in its own
 * process (the server keeps this process and its event loop to itself, as with a real client), with
 * what each request cost on the server and in Postgres (pgCpuMs of `pgDataDir`). CPU time per request
 * hardly moves with the machine's load, unlike latency. @throws when autocannon fails.
 */
export async function autocannonInChild(
  url: string,
  headers: Record<string, string>,
  opts: { connections: number; duration: number; pgDataDir: string | null },
): Promise<LoadFigures> {
  const cpu0 = process.cpuUsage();
  const pg0 = pgCpuMs(opts.pgDataDir);
  const args = [
    path.resolve(import.meta.dirname, "../node_modules/autocannon/autocannon.js"),
    "-c",
    String(opts.connections),
    "-d",
    String(opts.duration),
    "-j",
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]),
    url,
  ];
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
  const cpu = process.cpuUsage(cpu0);
  const pg1 = pgCpuMs(opts.pgDataDir);
  const r = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  const n = Math.max(1, r.requests.total);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    serverMs: (cpu.user + cpu.system) / 1000 / n,
    pgMs: pg0 !== null && pg1 !== null ? (pg1 - pg0) / n : null,
  };
}

/**
 * With BENCH_CPU_PROFILE=<dir>, a V8 CPU profile of the server during one run (open it in Chrome
 * DevTools); otherwise null.
 */
export async function startProfile() {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return null;
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  await post("Profiler.enable");
  await post("Profiler.start");
  return {
    async stop(title: string) {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${title.replace(/\W+/g, "_")}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`CPU profile of ${title}: ${file}`);
    },
  };
}
