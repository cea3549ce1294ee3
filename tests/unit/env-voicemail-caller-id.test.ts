import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/env";

// A ringless voicemail tells people to call the callback number (TWILIO_FROM_NUMBER, whose inbound
// webhook serves the "press 9" opt-out menu) and shows Drop Cowboy's caller ID. When the two differ, a
// person calling back the number they see never reaches the menu: production refuses to boot with a
// sentence saying how to fix it; elsewhere it is a boot warning.

const base = {
  LOG_LEVEL: "silent",
  VOICE_PROVIDER: "twilio",
  SMS_PROVIDER: "twilio",
  TWILIO_ACCOUNT_SID: `AC${"1".repeat(32)}`,
  TWILIO_AUTH_TOKEN: "token",
  TWILIO_FROM_NUMBER: "+15005550006",
  VOICEMAIL_PROVIDER: "dropcowboy",
  DROPCOWBOY_TEAM_ID: "team",
  DROPCOWBOY_SECRET: "secret",
};
const production = {
  ...base,
  NODE_ENV: "production",
  APP_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
};
const SENTENCE =
  "DROPCOWBOY_CALLER_ID (+15005550001) is not TWILIO_FROM_NUMBER (+15005550006): voicemails would show +15005550001 as caller ID but tell people to call +15005550006 to opt out, and a call back to +15005550001 does not reach the opt-out menu (only TWILIO_FROM_NUMBER's voice webhook, /api/webhooks/voice/inbound, serves it). Unset DROPCOWBOY_CALLER_ID (voicemails then show TWILIO_FROM_NUMBER) or set it to +15005550006.";

describe("the voicemail caller ID must be the callback number", () => {
  it("production refuses a DROPCOWBOY_CALLER_ID that is not TWILIO_FROM_NUMBER, saying how to fix it", () => {
    expect(() => loadEnv({ ...production, DROPCOWBOY_CALLER_ID: "+15005550001" })).toThrow(SENTENCE);
  });

  it("production boots when they are the same number (however written) or the caller ID is unset", () => {
    expect(loadEnv({ ...production, DROPCOWBOY_CALLER_ID: "+1 (500) 555-0006" }).configWarnings).toEqual([]);
    expect(loadEnv(production).configWarnings).toEqual([]);
    // no Twilio voice number: no callback number to compare with (voicemail launches are refused instead)
    expect(
      loadEnv({ ...production, VOICE_PROVIDER: "local", DROPCOWBOY_CALLER_ID: "+15005550001" })
        .configWarnings,
    ).toEqual([]);
  });

  it("outside production the mismatch boots with the same sentence as a warning", () => {
    const env = loadEnv({ ...base, NODE_ENV: "development", DROPCOWBOY_CALLER_ID: "+15005550001" });
    expect(env.configWarnings).toEqual([SENTENCE]);
  });
});
