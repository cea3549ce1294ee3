import { defineHandler } from "../../jobs/define";
import { pruneIdempotencyKeysJob } from "./api.jobs";
import { pruneIdempotencyKeys } from "./api.queries";
import { IDEMPOTENCY_TTL_HOURS } from "./api.service";

const pruneIdempotencyKeysHandler = defineHandler(pruneIdempotencyKeysJob, {
  handler: async (_data, deps) => {
    const removed = await pruneIdempotencyKeys(deps.db, IDEMPOTENCY_TTL_HOURS);
    if (removed) deps.log.info({ removed }, "pruned expired idempotency records");
  },
});

/** The api feature's job handlers (registered by src/server/jobs/registry.ts). */
export const apiHandlers = [pruneIdempotencyKeysHandler];
