import twilio from "twilio";

/**
 * Checks an `X-Twilio-Signature` with the Twilio SDK (`twilio.validateRequest`: HMAC-SHA1 of the public
 * URL plus the sorted POST params, keyed with the auth token). `url` is the URL Twilio called.
 */
export function validateTwilioSignature(
  authToken: string,
  signature: string,
  url: string,
  params: Record<string, string>,
): boolean {
  return twilio.validateRequest(authToken, signature, url, params);
}

/** The string fields of a webhook's form body (Twilio posts application/x-www-form-urlencoded). */
export function twilioFormParams(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (body && typeof body === "object")
    for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v;
  return out;
}

/**
 * True when a webhook request carries a valid `X-Twilio-Signature` for `params` (its form fields;
 * `{}` for a GET): the URL Twilio called is `env.APP_URL` + the request's path and query. False
 * without an auth token or a signature.
 */
export function twilioRequestSigned(
  env: { APP_URL: string; TWILIO_AUTH_TOKEN?: string },
  req: { url: string; headers: Record<string, string | string[] | undefined> },
  params: Record<string, string>,
): boolean {
  const signature = req.headers["x-twilio-signature"];
  const token = env.TWILIO_AUTH_TOKEN;
  if (!token || typeof signature !== "string" || !signature) return false;
  return validateTwilioSignature(token, signature, `${env.APP_URL}${req.url}`, params);
}

/** TwiML `<Response>` with an optional `<Message>` (Twilio's reply to an inbound SMS). */
export function twimlMessageResponse(text: string | null): string {
  const r = new twilio.twiml.MessagingResponse();
  if (text) r.message(text);
  return r.toString();
}

/** TwiML `<Response><Say>{text}</Say><Hangup/></Response>` (a voice webhook's answer that ends the call). */
export function twimlSayAndHangUp(text: string): string {
  const r = new twilio.twiml.VoiceResponse();
  r.say({ voice: "Polly.Joanna-Neural" }, text);
  r.hangup();
  return r.toString();
}
