import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { parseInput } from "../../lib/validate";
import { twilioFormParams, twilioRequestSigned } from "../../providers/sms/twilio-webhooks";
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
  app.post(DEMO_CALL_OPT_OUT_PATH, async (req, reply) => {
    const params = twilioFormParams(req.body);
    const phone = readDemoCallOptOut(ctx.env, (req.query ?? {}) as Record<string, unknown>);
    if (!phone) return reply.status(403).send({ success: false, error: "Invalid opt-out link" });
    if (ctx.env.VOICE_PROVIDER === "twilio" && !twilioRequestSigned(ctx.env, req, params))
      return reply.status(403).send({ success: false, error: "Invalid Twilio signature" });
    const { twiml } = await optOutOfDemoCalls(ctx, phone, params.Digits ?? "");
    return reply.type("text/xml").send(twiml);
  });
}
