import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context";
import { twilioFormParams, twilioRequestSigned } from "../providers/sms/twilio-webhooks";

/**
 * Registers `POST path` for a key pressed during a call: the call's `<Gather>` posts the caller's
 * digits (Twilio's form, application/x-www-form-urlencoded) to a URL the server signed itself
 * (compliance call-opt-out: `?w=&n=&c=&r=&s=` or `?n=&s=`, an HMAC keyed with APP_SECRET).
 *
 * Every such URL is checked the same way, in this order:
 * 1. `read(env, query)` reads the URL's signed target; null (unsigned or altered) -> 403
 *    `{success: false, error: "Invalid opt-out link"}`;
 * 2. with VOICE_PROVIDER=twilio the request must also carry a valid X-Twilio-Signature over
 *    APP_URL + the path and query and the form (twilioRequestSigned); otherwise -> 403
 *    `{success: false, error: "Invalid Twilio signature"}`;
 * 3. `press(target, params)` (params: the form's string fields, `Digits` among them) does the work;
 *    its `twiml` is the answer, as text/xml.
 * `ctx.env` is read at each request.
 */
export function postKeypressOptOut<T>(
  app: FastifyInstance,
  ctx: Pick<AppContext, "env">,
  path: string,
  read: (env: AppContext["env"], query: Record<string, unknown>) => T | null,
  press: (target: T, params: Record<string, string>) => Promise<{ twiml: string }>,
): void {
  app.post(path, async (req, reply) => {
    const params = twilioFormParams(req.body);
    const target = read(ctx.env, (req.query ?? {}) as Record<string, unknown>);
    if (!target) return reply.status(403).send({ success: false, error: "Invalid opt-out link" });
    if (ctx.env.VOICE_PROVIDER === "twilio" && !twilioRequestSigned(ctx.env, req, params))
      return reply.status(403).send({ success: false, error: "Invalid Twilio signature" });
    const { twiml } = await press(target, params);
    return reply.type("text/xml").send(twiml);
  });
}
