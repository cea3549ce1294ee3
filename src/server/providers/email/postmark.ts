import * as postmark from "postmark";
import { emailSubjectLine } from "../../lib/email-subject";
import { isTransientStatus, ProviderError } from "../errors";
import type { BatchSendResult, EmailMessage, EmailProvider } from "./index";

/** Postmark's batch limit (https://postmarkapp.com/developer/api/email-api#send-batch-emails). */
export const POSTMARK_BATCH_LIMIT = 500;
/** Metadata key carrying our idempotency key, searchable with `metadata_pw_key` on /messages/outbound. */
const KEY_FIELD = "pw_key";

export interface PostmarkOptions {
  serverToken: string;
  defaultFrom: string;
  /** broadcast message stream id (POSTMARK_BROADCAST_STREAM) */
  broadcastStream: string;
  /** "127.0.0.1:4010" or "http://127.0.0.1:4010" to reach a fake; default api.postmarkapp.com over https */
  apiHost?: string;
}

/**
 * Email through Postmark's official SDK. Broadcasts (campaigns) go to the broadcast message stream;
 * opens and HTML+text link tracking are on when asked; metadata is echoed by Postmark's webhooks.
 * Errors: HTTP 429/5xx and network errors are transient; 4xx (422 ApiInputError: inactive recipient,
 * invalid address, ...) are permanent with Postmark's ErrorCode as vendorCode.
 */
export class PostmarkEmailProvider implements EmailProvider {
  readonly name = "postmark";
  readonly client: postmark.ServerClient;
  constructor(private readonly opts: PostmarkOptions) {
    let host: string | undefined;
    let useHttps = true;
    if (opts.apiHost) {
      const h = opts.apiHost.replace(/\/+$/, "");
      useHttps = !h.startsWith("http://");
      host = h.replace(/^https?:\/\//, "");
    }
    this.client = new postmark.ServerClient(opts.serverToken, {
      ...(host ? { requestHost: host } : {}),
      useHttps,
      timeout: 15,
    });
  }

  toMessage(m: EmailMessage): postmark.Models.Message {
    const metadata = {
      ...(m.metadata ?? {}),
      ...(m.idempotencyKey ? { [KEY_FIELD]: m.idempotencyKey } : {}),
    };
    return {
      From: m.from ?? this.opts.defaultFrom,
      To: m.to,
      // one header line: no CR/LF from a name in the subject, at most 989 characters (EmailProvider)
      Subject: emailSubjectLine(m.subject),
      HtmlBody: m.html,
      TextBody: m.text,
      ReplyTo: m.replyTo,
      Tag: m.tag,
      MessageStream: m.stream === "broadcast" ? this.opts.broadcastStream : "outbound",
      TrackOpens: m.trackOpens,
      TrackLinks: m.trackLinks ? postmark.Models.LinkTrackingOptions.HtmlAndText : undefined,
      Headers: Object.entries(m.headers ?? {}).map(([Name, Value]) => ({ Name, Value })),
      Metadata: Object.keys(metadata).length ? metadata : undefined,
    };
  }

  async send(m: EmailMessage) {
    try {
      const res = await this.client.sendEmail(this.toMessage(m));
      return { providerMessageId: res.MessageID };
    } catch (e) {
      throw toProviderError(e);
    }
  }

  /** One POST /email/batch per call (at most 500 messages). Per-message ErrorCode != 0 is a per-message failure. */
  async sendBatch(messages: EmailMessage[]): Promise<BatchSendResult[]> {
    if (messages.length > POSTMARK_BATCH_LIMIT)
      throw new ProviderError("Postmark batch is limited to 500 messages", { transient: false });
    if (messages.length === 0) return [];
    let res: postmark.Models.MessageSendingResponse[];
    try {
      res = await this.client.sendEmailBatch(messages.map((m) => this.toMessage(m)));
    } catch (e) {
      throw toProviderError(e);
    }
    return messages.map((_m, i) => {
      const r = res[i];
      if (!r) return { error: { message: "Postmark returned no result for this message", transient: true } };
      if (r.ErrorCode !== 0) {
        // 429-like account throttling codes are not per message; Postmark reports 406 (inactive), 300 (invalid) ...
        return { error: { message: r.Message, transient: false, vendorCode: r.ErrorCode } };
      }
      return { providerMessageId: r.MessageID };
    });
  }

  /** GET /messages/outbound?metadata_pw_key=... (Postmark's messages search by metadata). */
  async findSent(idempotencyKey: string, hint: { to: string; since: Date }): Promise<string | null> {
    try {
      const res = await this.client.getOutboundMessages({
        count: 1,
        offset: 0,
        recipient: hint.to,
        [`metadata_${KEY_FIELD}`]: idempotencyKey,
      });
      return res.Messages[0]?.MessageID ?? null;
    } catch (e) {
      throw toProviderError(e);
    }
  }
}

function toProviderError(e: unknown): ProviderError {
  if (e instanceof ProviderError) return e;
  const err = e as { message?: string; statusCode?: number; code?: number };
  const status = typeof err.statusCode === "number" && err.statusCode > 0 ? err.statusCode : undefined;
  return new ProviderError(`Postmark: ${err.message ?? "request failed"}`, {
    transient: isTransientStatus(status),
    vendorCode: err.code,
    httpStatus: status,
  });
}
