import { renderDemoEmail } from "../../emails/demo-email";
import { type AnyJobDefinition, defineHandler } from "../../jobs/define";
import { startDemoAvatarVideo } from "../avatar/avatar.service";
import { demoCallOptOutOffer } from "../compliance/call-opt-out";
import { smsStoppedNumbers } from "../compliance/compliance.service";
import { sendDemoJob } from "./demo.jobs";
import { getDemoRequest, markDemoRequestSent } from "./demo.queries";
import { demoFirstName, demoOptedOut, demoQuietHoursRefusal } from "./demo.service";

/**
 * Sends the landing-page demo: an email, an SMS and an AI voice call through the configured
 * providers. Idempotent: a request already marked sent is skipped. A number that replied STOP to
 * Pitchwise's sending number (and not START since), or pressed 9 on an earlier demo call, gets
 * neither the text nor the call: anyone can type any number into the demo form, so the person's STOP
 * or keypress is the only say they have. Like every AI call, the call names the business first ("This
 * is a message from Pitchwise."), offers that keypress ("To stop calls from us, press 9 at any time.")
 * and ends with the callback number (the voice provider's; its menu offers the same opt-out):
 * compliance demoCallOptOutOffer, 47 CFR 64.1200(b). The
 * text and call keep the quiet hours of every text and call (08:00-21:00 where the number is,
 * demoQuietHoursRefusal; the request was refused outside them): a request whose job runs outside
 * them (queued late, retried) sends neither, and is not sent later; its email still goes.
 */
const sendDemoHandler = defineHandler(sendDemoJob, {
  handler: async ({ demoRequestId }, deps) => {
    const { db, providers, env } = deps;
    const req = await getDemoRequest(db, demoRequestId);
    if (!req || req.status === "sent") return;
    // fixed texts around a cleaned first name: no links, addresses or long text from the form
    const firstName = demoFirstName(req.name);
    if (req.email) {
      // spec section 2: the success view promises 'AI Avatar Video Included' with the email
      const videoUrl = await startDemoAvatarVideo(deps, { demoRequestId: req.id, firstName });
      const { html, text } = await renderDemoEmail({ name: firstName, appUrl: env.APP_URL, videoUrl });
      await providers.email.send({
        to: req.email,
        subject: `${firstName}, your Pitchwise demo is here`,
        html,
        text,
        tag: "demo",
      });
    }
    const reachable =
      !!req.phone &&
      !(await smsStoppedNumbers(db, [req.phone])).has(req.phone) &&
      !(await demoOptedOut(deps, req.phone));
    // re-checked at send time: a demo that has fallen outside the window is dropped, not delayed
    const quiet = reachable && req.phone ? demoQuietHoursRefusal(new Date(), req.phone) : null;
    if (quiet)
      deps.log.info({ demoRequestId }, "demo text and call dropped: outside quiet hours at send time");
    if (reachable && req.phone && !quiet) {
      await providers.sms.send({
        to: req.phone,
        body: `Hi ${firstName}, this is your Pitchwise demo text. Personal video, SMS, email and AI calls from one place. Start free: ${env.APP_URL}/register Reply STOP to opt out.`,
      });
      await providers.voice.call({
        to: req.phone,
        script: `Hello ${firstName}! This is the Pitchwise AI assistant calling with your demo. Pitchwise lets your business reach customers by personal video, text message, email and calls like this one. Thanks for trying it, and have a great day!`,
        machineDetection: true,
        optOut: demoCallOptOutOffer(env, req.phone, providers.voice.callbackNumber),
      });
    }
    await markDemoRequestSent(db, demoRequestId);
  },
});

/** The demo feature's job handlers (worker registry). */
export const demoHandlers: AnyJobDefinition[] = [sendDemoHandler];
