import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";

/** REST adapters of the studio feature (spec section 7). */
export async function studioRest(_app: FastifyInstance, _opts: { ctx: AppContext }) {}
