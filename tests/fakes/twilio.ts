import { randomBytes } from "node:crypto";

import { type FakeReply, type RecordedRequest, startFake } from "./http";

/** Twilio-shaped SIDs: a prefix and 32 hex characters, unique like Twilio's. */
const sid = (prefix: string) => `${prefix}${randomBytes(16).toString("hex")}`;

/**
 * A fake of Twilio's REST API 2010-04-01 for Messages and Calls (create + list), with HTTP basic
 * auth (AccountSid:AuthToken) and Twilio's error JSON ({code, message, more_info, status}).
 * Numbers in `blocked` get error 21610 (unsubscribed recipient), like Twilio. A call's inline `Twiml`
 * longer than 4,000 characters is refused with error 32018, like Twilio.
 * GET Messages/{Sid}.json fetches one message: sent ones, or `receive()`d inbound ones with the
 * `date_created` Twilio gave them (RFC 2822, like Twilio's JSON).
 * GET Messages.json lists outbound messages newest first, filtered as Twilio documents: `To`, `From`,
 * and `DateSent` / `DateSent<` / `DateSent>` on the message's date_sent, which a message still
 * queued at Twilio does not have yet (null), so no DateSent filter returns it. Messages are sent at
 * once unless `state.holdQueued` is set: then they stay queued (status queued, date_sent null).
 */
export async function startTwilioFake(accountSid: string, authToken: string) {
  const messages: Record<string, string>[] = [];
  const inbound: Record<string, string>[] = [];
  const calls: Record<string, string>[] = [];
  const blocked = new Set<string>();
  const state = { holdQueued: false };
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
  const err = (status: number, code: number, message: string): FakeReply => ({
    status,
    json: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
  });
  const fake = await startFake((req: RecordedRequest): FakeReply => {
    if (req.headers.authorization !== expectedAuth) return err(401, 20003, "Authenticate");
    const base = `/2010-04-01/Accounts/${accountSid}`;
    const form = Object.fromEntries(new URLSearchParams(req.body));
    const now = new Date().toUTCString();
    if (req.method === "POST" && req.path === `${base}/Messages.json`) {
      if (!form.To || !form.Body) return err(400, 21602, "Message body is required.");
      if (!form.From && !form.MessagingServiceSid)
        return err(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required.");
      if (blocked.has(form.To)) return err(400, 21610, "Attempt to send to unsubscribed recipient");
      const m: Record<string, string> = { ...form, sid: sid("SM"), date_created: now };
      if (!state.holdQueued) m.date_sent = now;
      messages.push(m);
      return {
        status: 201,
        json: {
          sid: m.sid,
          account_sid: accountSid,
          to: form.To,
          from: form.From ?? null,
          body: form.Body,
          status: "queued",
          messaging_service_sid: form.MessagingServiceSid ?? null,
          num_segments: "1",
          date_created: now,
          date_sent: null,
        },
      };
    }
    const one =
      req.method === "GET"
        ? new RegExp(`^${base}/Messages/((?:SM|MM)[0-9a-f]{32})\\.json$`).exec(req.path)
        : null;
    if (one) {
      const m = [...messages, ...inbound].find((x) => x.sid === one[1]);
      if (!m) return err(404, 20404, `The requested resource ${req.path} was not found`);
      return {
        status: 200,
        json: {
          sid: m.sid,
          account_sid: accountSid,
          to: m.To,
          from: m.From ?? null,
          body: m.Body,
          status: m.direction === "inbound" ? "received" : "sent",
          direction: m.direction ?? "outbound-api",
          date_created: m.date_created,
          date_sent: m.date_created,
          date_updated: m.date_created,
        },
      };
    }
    if (req.method === "GET" && req.path === `${base}/Messages.json`) {
      const to = req.query.get("To");
      const from = req.query.get("From");
      // Twilio's DateSent filters (the SDK's dateSent, dateSentBefore, dateSentAfter): ISO dates or
      // date-times; a message without a date_sent (still queued) matches none of them
      const on = req.query.get("DateSent");
      const before = req.query.get("DateSent<");
      const after = req.query.get("DateSent>");
      const sentAt = (m: Record<string, string>) => (m.date_sent ? Date.parse(m.date_sent) : null);
      const list = messages
        .filter((m) => !to || m.To === to)
        .filter((m) => !from || m.From === from)
        .filter((m) => {
          if (!on && !before && !after) return true;
          const at = sentAt(m);
          if (at === null) return false;
          if (on && new Date(at).toISOString().slice(0, 10) !== on.slice(0, 10)) return false;
          if (before && at > Date.parse(before)) return false;
          if (after && at < Date.parse(after)) return false;
          return true;
        })
        .reverse()
        .map((m) => ({
          sid: m.sid,
          to: m.To,
          from: m.From ?? null,
          body: m.Body,
          status: m.date_sent ? "sent" : "queued",
          date_created: m.date_created,
          date_sent: m.date_sent ?? null,
        }));
      return {
        status: 200,
        json: {
          messages: list,
          page: 0,
          page_size: 50,
          first_page_uri: `${base}/Messages.json?PageSize=50&Page=0`,
          next_page_uri: null,
          previous_page_uri: null,
          uri: `${base}/Messages.json`,
          start: 0,
          end: list.length,
        },
      };
    }
    if (req.method === "POST" && req.path === `${base}/Calls.json`) {
      if (!form.To || !form.From) return err(400, 21201, "No 'To' number is specified");
      if (!form.Twiml && !form.Url) return err(400, 21205, "Url or Twiml is required");
      // Twilio's limit on inline TwiML (error 32018); a longer document must be served from Url
      if (form.Twiml && form.Twiml.length > 4000)
        return err(400, 32018, "Twiml size exceeded maximum allowed value of 4000 characters");
      if (form.Url && !/^https?:\/\/\S+$/.test(form.Url)) return err(400, 21205, "Url is not a valid URL");
      const c = { ...form, sid: sid("CA"), date_created: now };
      calls.push(c);
      return {
        status: 201,
        json: {
          sid: c.sid,
          account_sid: accountSid,
          to: form.To,
          from: form.From,
          status: "queued",
          date_created: now,
        },
      };
    }
    if (req.method === "GET" && req.path === `${base}/Calls.json`) {
      const to = req.query.get("To");
      const list = calls
        .filter((c) => !to || c.To === to)
        .map((c) => ({ sid: c.sid, to: c.To, from: c.From, status: "queued", date_created: c.date_created }));
      return {
        status: 200,
        json: {
          calls: list,
          page: 0,
          page_size: 50,
          first_page_uri: `${base}/Calls.json?PageSize=50&Page=0`,
          next_page_uri: null,
          previous_page_uri: null,
          uri: `${base}/Calls.json`,
          start: 0,
          end: list.length,
        },
      };
    }
    return err(404, 20404, "The requested resource was not found");
  });
  /** Records an inbound message Twilio received at `at`; returns its MessageSid. */
  const receive = (m: { from: string; to: string; body: string; at: Date }) => {
    const msg = {
      sid: sid("SM"),
      From: m.from,
      To: m.to,
      Body: m.body,
      direction: "inbound",
      date_created: m.at.toUTCString(),
    };
    inbound.push(msg);
    return msg.sid;
  };
  return { ...fake, messages, calls, blocked, inbound, receive, state };
}

/**
 * The app environment that sends SMS and calls through a Twilio fake at `url` (createTestApp
 * overrides): the twilio providers, the fake's credentials and host, and the sending number.
 */
export function twilioFakeEnv(accountSid: string, authToken: string, url: string): Record<string, string> {
  return {
    SMS_PROVIDER: "twilio",
    VOICE_PROVIDER: "twilio",
    TWILIO_ACCOUNT_SID: accountSid,
    TWILIO_AUTH_TOKEN: authToken,
    TWILIO_FROM_NUMBER: "+15005550006",
    TWILIO_API_HOST: url,
  };
}
