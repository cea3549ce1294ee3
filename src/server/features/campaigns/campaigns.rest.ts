import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";

/** REST adapters of the campaigns feature (spec section 7). */
export async function campaignsRest(_app: FastifyInstance, _opts: { ctx: AppContext }) {}
