import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";

/** REST adapters of the avatar feature (spec section 7). */
export async function avatarRest(_app: FastifyInstance, _opts: { ctx: AppContext }) {}
