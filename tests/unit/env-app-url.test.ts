import twilio from "twilio";
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/env";
import { callNotice, callOptOutOffer } from "../../src/server/features/compliance/call-opt-out";
import { twilioRequestSigned } from "../../src/server/providers/sms/twilio-webhooks";

// APP_URL is written with or without a trailing slash. The links the server hands out strip it
// (a call's keypress opt-out URL), while the Twilio signature check rebuilt the URL Twilio called as
// APP_URL + path: with "https://app.example.com/" every signed webhook (status callbacks, inbound SMS,
// the keypress opt-outs and the callback menu) was refused, so a person's "press 9" was lost.

const base = {
  LOG_LEVEL: "silent",
  VOICE_PROVIDER: "twilio",
  SMS_PROVIDER: "twilio",
  TWILIO_ACCOUNT_SID: `AC${"1".repeat(32)}`,
  TWILIO_AUTH_TOKEN: "token",
  TWILIO_FROM_NUMBER: "+15005550006",
};

describe("APP_URL with a trailing slash", () => {
  it("is kept without it", () => {
    expect(loadEnv({ ...base, APP_URL: "https://app.example.com/" }).APP_URL).toBe("https://app.example.com");
    expect(loadEnv({ ...base, APP_URL: "https://app.example.com//" }).APP_URL).toBe(
      "https://app.example.com",
    );
    expect(loadEnv({ ...base, APP_URL: "https://app.example.com" }).APP_URL).toBe("https://app.example.com");
  });

  it("a keypress posted by Twilio to the opt-out URL the server gave passes the signature check", () => {
    const env = loadEnv({ ...base, APP_URL: "https://app.example.com/" });
    const offer = callOptOutOffer(
      env,
      {
        workspaceId: "00000000-0000-4000-8000-000000000001",
        phone: "+14155550100",
        contactId: 7,
        recipientId: null,
      },
      callNotice("Acme", "+15005550006"),
    );
    expect(offer.actionUrl.startsWith("https://app.example.com/api/webhooks/voice/opt-out?")).toBe(true);
    const params = { Digits: "9", CallSid: "CA123" };
    const signature = twilio.getExpectedTwilioSignature("token", offer.actionUrl, params);
    const req = {
      url: offer.actionUrl.slice("https://app.example.com".length),
      headers: { "x-twilio-signature": signature },
    };
    expect(twilioRequestSigned(env, req, params)).toBe(true);
    // and a wrong signature still fails
    expect(twilioRequestSigned(env, { ...req, headers: { "x-twilio-signature": "x" } }, params)).toBe(false);
  });
});
