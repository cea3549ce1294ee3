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
