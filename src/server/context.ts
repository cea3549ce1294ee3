import type { Logger } from "pino";
import type { Env } from "../env";
import type { Db, Sql } from "./db/client";
import type { JobClient } from "./jobs/client";
import type { RateLimiters } from "./lib/rate-limit";
import type { Providers } from "./providers";

/** Everything a service needs: the app-wide dependencies, built once in createServer. */
export interface AppContext {
  db: Db;
  sql: Sql;
  env: Env;
  providers: Providers;
  jobs: JobClient;
  log: Logger;
  limiters: RateLimiters;
}
