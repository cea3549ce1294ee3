import { z } from "zod";
import { defineJob } from "../../jobs/contract";

/**
 * Sends the landing-page demo (email with an avatar video, SMS, voice call) of a demo request; the
 * work is in demo.handlers.ts. Idempotent per request.
 */
export const sendDemoJob = defineJob({
  name: "demo.send-demo",
  schema: z.object({ demoRequestId: z.number().int() }),
  options: { retryLimit: 3 },
});
