import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";

/** REST adapters of the crm feature (spec section 7). */
export async function crmRest(_app: FastifyInstance, _opts: { ctx: AppContext }) {}
