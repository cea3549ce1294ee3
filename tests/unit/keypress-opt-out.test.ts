import formbody from "@fastify/formbody";
import Fastify from "fastify";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import type { AppContext } from "../../src/server/context";
import { postKeypressOptOut } from "../../src/server/http/keypress-opt-out";

// The one rule of the three keypress opt-out webhooks (an AI call's, the callback menu's, the demo
// call's): the server's own signed link first, then Twilio's signature with the Twilio voice provider.
const APP_URL = "https://app.example.test";
const TOKEN = "keypress-test-token";

async function appWith(voiceProvider: "local" | "twilio") {
  const env = { APP_URL, APP_SECRET: "s", TWILIO_AUTH_TOKEN: TOKEN, VOICE_PROVIDER: voiceProvider };
  const ctx = { env } as unknown as Pick<AppContext, "env">;
  const pressed: { target: string; digits: string | undefined }[] = [];
  const app = Fastify();
  await app.register(formbody);
  postKeypressOptOut(
    app,
    ctx,
    "/api/webhooks/voice/test-opt-out",
    (_env, query) => (query.s === "good" && typeof query.n === "string" ? query.n : null),
    async (target, params) => {
      pressed.push({ target, digits: params.Digits });
      return { twiml: `<Response><Say>${target}</Say></Response>` };
    },
  );
  return { app, pressed };
}

const form = { Digits: "9", CallSid: "CA1" };
const post = (app: Awaited<ReturnType<typeof appWith>>["app"], url: string, signature?: string) =>
  app.inject({
    method: "POST",
    url,
    payload: new URLSearchParams(form).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(signature ? { "x-twilio-signature": signature } : {}),
    },
  });

describe("postKeypressOptOut (http/keypress-opt-out)", () => {
  it("refuses an unsigned or altered link with 403 before anything else", async () => {
    const { app, pressed } = await appWith("local");
    const res = await post(app, "/api/webhooks/voice/test-opt-out?n=%2B15550100&s=bad");
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ success: false, error: "Invalid opt-out link" });
    expect(pressed).toEqual([]);
    await app.close();
  });

  it("with the local voice provider, answers a signed link with the press's TwiML as text/xml", async () => {
    const { app, pressed } = await appWith("local");
    const res = await post(app, "/api/webhooks/voice/test-opt-out?n=%2B15550100&s=good");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/xml/);
    expect(res.body).toBe("<Response><Say>+15550100</Say></Response>");
    expect(pressed).toEqual([{ target: "+15550100", digits: "9" }]);
    await app.close();
  });

  it("with the Twilio voice provider, also needs Twilio's signature over the URL and form", async () => {
    const { app, pressed } = await appWith("twilio");
    const path = "/api/webhooks/voice/test-opt-out?n=%2B15550100&s=good";
    for (const signature of [undefined, "bm90LXR3aWxpbw=="]) {
      const res = await post(app, path, signature);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ success: false, error: "Invalid Twilio signature" });
    }
    expect(pressed).toEqual([]);
    const signed = twilio.getExpectedTwilioSignature(TOKEN, `${APP_URL}${path}`, form);
    const res = await post(app, path, signed);
    expect(res.statusCode).toBe(200);
    expect(pressed).toEqual([{ target: "+15550100", digits: "9" }]);
    await app.close();
  });
});
