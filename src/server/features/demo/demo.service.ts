import { parsePhoneNumberFromString } from "libphonenumber-js";
import type { z } from "zod";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { consumeOrThrow } from "../../lib/rate-limit";
import { sendDemoJob } from "./demo.jobs";
import { insertDemoRequest } from "./demo.queries";
import type { demoInput } from "./demo.schemas";

/**
 * Records a demo request and queues the demo job. Rate-limited per IP and per phone/email.
 * @throws AppError BAD_REQUEST for an unparseable phone (default country US); TOO_MANY_REQUESTS.
 */
export async function requestDemo(ctx: AppContext, input: z.infer<typeof demoInput>, meta: { ip: string }) {
  let phone: string | null = null;
  if (input.phone) {
    const parsed = parsePhoneNumberFromString(input.phone, "US");
    if (!parsed?.isValid()) throw new AppError("BAD_REQUEST", "Please enter a valid phone number");
    phone = parsed.number;
  }
  const email = input.email ? input.email.toLowerCase() : null;
  await consumeOrThrow(ctx.limiters.demoIp, meta.ip, "demo requests");
  for (const target of [phone, email])
    if (target) await consumeOrThrow(ctx.limiters.demoTarget, target, "demo requests");
  const id = await insertDemoRequest(ctx.db, { name: input.name, phone, email, ip: meta.ip });
  await ctx.jobs.send(sendDemoJob, { demoRequestId: id });
  return { id, phone, email };
}
