import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { parseInput } from "../../lib/validate";
import { demoInput } from "./demo.schemas";
import { requestDemo } from "./demo.service";

/** POST /api/demo/send -> {success} (spec section 7). */
export async function demoRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/demo/send", async (req) => {
    await requestDemo(ctx, parseInput(demoInput, req.body), { ip: req.clientIp });
    return { success: true };
  });
}
