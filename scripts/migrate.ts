/** Applies migrations (fly.toml release command; also run at every start). */
import { loadEnv } from "../src/env";
import { prepareDatabase } from "../src/server/boot";
import { createLogger } from "../src/server/lib/logger";

const env = loadEnv();
const { embedded } = await prepareDatabase(env, createLogger(env));
await embedded?.stop();
console.log("migrations applied");
