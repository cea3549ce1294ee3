import twilio from "twilio";
import { isTransientStatus, ProviderError } from "../errors";
import type { SmsMessage, SmsProvider } from "./index";

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  fromNumber?: string;
  messagingServiceSid?: string;
  /** base URL replacing https://*.twilio.com (a local fake in tests), e.g. http://127.0.0.1:4011 */
  apiHost?: string;
}

/**
 * A twilio RequestClient that sends every request to `base` instead of https://<domain>.twilio.com
 * (ARCHITECTURE.md: SDKs are pointed at local fakes). The path and query are kept.
 */
export class RewritingRequestClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super({ timeout: 15_000 });
  }
  override request<T>(opts: any) {
    const u = new URL(opts.uri);
    const target = new URL(this.base);
    u.protocol = target.protocol;
    u.host = target.host;
    return super.request<T>({ ...opts, uri: u.toString() });
  }
}

/** The twilio SDK client for these options (host rewritten when `apiHost` is set). */
export function createTwilioClient(opts: TwilioOptions) {
  return twilio(
    opts.accountSid,
    opts.authToken,
    opts.apiHost ? { httpClient: new RewritingRequestClient(opts.apiHost) } : {},
  );
}

/** Maps a twilio SDK error (RestException: status, code, message) to a ProviderError. */
export function twilioError(e: unknown): ProviderError {
  if (e instanceof ProviderError) return e;
  const err = e as { message?: string; status?: number; code?: number | string };
  const status = typeof err.status === "number" ? err.status : undefined;
  return new ProviderError(`Twilio: ${err.message ?? "request failed"}`, {
    transient: isTransientStatus(status),
    vendorCode: err.code,
    httpStatus: status,
  });
}

/**
 * SMS through Twilio Programmable Messaging (POST /2010-04-01/Accounts/{sid}/Messages.json) with the
 * official SDK: a Messaging Service SID when configured, else the From number; StatusCallback for
 * delivery receipts. 429/5xx are transient; 4xx carry Twilio's error code (e.g. 21610 unsubscribed).
 */
export class TwilioSmsProvider implements SmsProvider {
  readonly name = "twilio";
  readonly client: ReturnType<typeof createTwilioClient>;
  constructor(private readonly opts: TwilioOptions) {
    this.client = createTwilioClient(opts);
  }

  async send(m: SmsMessage) {
    try {
      const msg = await this.client.messages.create({
        to: m.to,
        body: m.body,
        ...(this.opts.messagingServiceSid
          ? { messagingServiceSid: this.opts.messagingServiceSid }
          : { from: this.opts.fromNumber ?? "" }),
        ...(m.statusCallback ? { statusCallback: m.statusCallback } : {}),
      });
      return { providerMessageId: msg.sid };
    } catch (e) {
      throw twilioError(e);
    }
  }

  /**
   * Twilio's `date_created` of a message (GET /2010-04-01/Accounts/{sid}/Messages/{MessageSid}.json),
   * or null when Twilio cannot be asked (network, unknown sid): the caller then uses its receipt time.
   */
  async messageTime(providerMessageId: string): Promise<Date | null> {
    if (!/^(SM|MM)[0-9a-f]{32}$/i.test(providerMessageId)) return null;
    try {
      const msg = await this.client.messages(providerMessageId).fetch();
      return msg.dateCreated ?? msg.dateSent ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Twilio keeps no client idempotency key on messages: a message to `to` with the same body created
   * since `since` (less a second) is taken as ours. Read from the number's 50 newest messages (GET
   * Messages.json?To=, newest first) without a DateSent filter: Twilio sets date_sent only once a
   * message leaves its queue, so a DateSent filter leaves out a message accepted moments ago and
   * still queued, the very one a retry after a timeout must find.
   */
  async findSent(_key: string, hint: { to: string; body: string; since: Date }): Promise<string | null> {
    try {
      const list = await this.client.messages.list({ to: hint.to, limit: 50 });
      const hit = list.find(
        (m) =>
          m.body === hint.body && (!m.dateCreated || m.dateCreated.getTime() >= hint.since.getTime() - 1000),
      );
      return hit?.sid ?? null;
    } catch (e) {
      throw twilioError(e);
    }
  }
}
