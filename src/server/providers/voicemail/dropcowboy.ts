import { isTransientStatus, ProviderError } from "../errors";
import type { VoicemailDrop, VoicemailProvider } from "./index";

export interface DropCowboyOptions {
  teamId: string;
  secret: string;
  /** DROPCOWBOY_API_URL, default https://api.dropcowboy.com/v1 */
  apiUrl: string;
  /** caller id shown on the voicemail (E.164) */
  callerId?: string;
  brandId?: string;
}

/**
 * Ringless voicemail through Drop Cowboy's RVM API over fetch: POST {apiUrl}/rvm with JSON
 * {team_id, secret, phone_number, caller_id, audio_url | tts_body, foreign_id, callback_url}.
 * `foreign_id` is our recipient key and comes back on the callback. 429/5xx and network errors are
 * transient; other non-2xx responses are permanent with the vendor's message.
 */
export class DropCowboyVoicemailProvider implements VoicemailProvider {
  readonly name = "dropcowboy";
  constructor(private readonly opts: DropCowboyOptions) {}

  async drop(d: VoicemailDrop) {
    const body = {
      team_id: this.opts.teamId,
      secret: this.opts.secret,
      ...(this.opts.brandId ? { brand_id: this.opts.brandId } : {}),
      phone_number: d.to,
      caller_id: this.opts.callerId,
      ...(d.audioUrl
        ? { audio_url: d.audioUrl, audio_type: d.audioUrl.endsWith(".wav") ? "wav" : "mp3" }
        : { tts_body: d.ttsText ?? "" }),
      foreign_id: d.idempotencyKey,
      ...(d.statusCallback ? { callback_url: d.statusCallback } : {}),
    };
    let res: Response;
    try {
      res = await fetch(`${this.opts.apiUrl.replace(/\/+$/, "")}/rvm`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      throw new ProviderError(`Drop Cowboy: ${(e as Error).message}`, { transient: true });
    }
    const json = (await res.json().catch(() => ({}))) as {
      drop_id?: string;
      id?: string;
      message?: string;
      error?: string;
      errorCode?: string;
    };
    if (!res.ok) {
      throw new ProviderError(`Drop Cowboy: ${json.message ?? json.error ?? `HTTP ${res.status}`}`, {
        transient: isTransientStatus(res.status),
        httpStatus: res.status,
        vendorCode: json.errorCode,
      });
    }
    const id = json.drop_id ?? json.id;
    if (!id)
      throw new ProviderError("Drop Cowboy: no drop id in the response", {
        transient: false,
        httpStatus: res.status,
      });
    return { providerMessageId: String(id) };
  }
}
