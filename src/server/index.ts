import { loadEnv } from "../env";
import { bootCore, prepareDatabase } from "./boot";
import { resolveFfmpegBinaries } from "./lib/ffmpeg";
import { createLogger } from "./lib/logger";
import { createServer } from "./main";

/** `npm start`: database (embedded when DATABASE_URL is unset), migrations, web server and worker per PROCESS_ROLE. */
async function main() {
  const env = loadEnv();
  const log = createLogger(env);
  const ff = resolveFfmpegBinaries(env);
  log.info(
    { ffmpeg: ff.ffmpeg, ffprobe: ff.ffprobe, source: ff.source, version: ff.version ?? "unknown" },
    `ffmpeg: ${ff.source === "system" ? "system" : ff.source === "env" ? "FFMPEG_PATH/FFPROBE_PATH" : "npm @ffmpeg-installer"} build ${ff.version ?? "unknown"}`,
  );
  const { url, embedded } = await prepareDatabase(env, log);
  const core = await bootCore(env, url, log);
  let app: Awaited<ReturnType<typeof createServer>>["app"] | null = null;
  if (env.PROCESS_ROLE !== "web") {
    await core.startWorkers();
    log.info("worker started");
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
    console.log(`\n  Pitchwise is running at ${env.APP_URL}\n`);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    await app?.close().catch(() => {});
    await core.stop();
    await embedded?.stop().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
