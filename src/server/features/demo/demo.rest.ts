import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { postKeypressOptOut } from "../../http/keypress-opt-out";
import { parseInput } from "../../lib/validate";
import { DEMO_CALL_OPT_OUT_PATH, readDemoCallOptOut } from "../compliance/call-opt-out";
import { demoInput } from "./demo.schemas";
import { optOutOfDemoCalls, requestDemo } from "./demo.service";

/**
 * POST /api/demo/send -> {success} (spec section 7), and the demo call's keypress opt-out
 * (POST /api/webhooks/voice/demo-opt-out?n=&s=, the signed URL of the call's <Gather>; with
 * VOICE_PROVIDER=twilio the request must also carry a valid X-Twilio-Signature) -> TwiML.
 */
export async function demoRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/demo/send", async (req) => {
    await requestDemo(ctx, parseInput(demoInput, req.body), { ip: req.clientIp });
    return { success: true };
  });
  postKeypressOptOut(app, ctx, DEMO_CALL_OPT_OUT_PATH, readDemoCallOptOut, (phone, params) =>
    optOutOfDemoCalls(ctx, phone, params.Digits ?? ""),
  );
}
