import { ProviderError } from "../errors";
import { obj, requestJson, statusReason, str } from "./http";
import type { RemoteAvatarProvider, VendorPhase, VendorVideoStatus } from "./index";

export interface DidOptions {
  apiKey: string;
  /** e.g. https://api.d-id.com (DID_API_URL) */
  baseUrl: string;
  /** the presenter image D-ID animates (DID_SOURCE_URL) */
  sourceUrl: string;
  /** Microsoft TTS voice used by D-ID (DID_VOICE_ID), e.g. en-US-JennyNeural */
  voiceId: string;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/** D-ID talk statuses (docs.d-id.com, "Get a specific talk"): created, started, done, error, rejected. */
const PHASES: Record<string, VendorPhase> = {
  created: "queued",
  started: "rendering",
  done: "done",
  error: "failed",
  rejected: "failed",
};

/** D-ID error bodies are `{kind, description, details?}` (e.g. ValidationError, InsufficientCreditsError). */
function describeDidError(status: number, body: unknown) {
  const kind = str(body, "kind");
  const description = str(body, "description");
  const details = obj(body, "details");
  let detailText = "";
  if (details) {
    const parts = Object.entries(details)
      .map(([k, v]) => `${k}: ${str(v, "message") ?? (typeof v === "string" ? v : JSON.stringify(v))}`)
      .slice(0, 3);
    if (parts.length) detailText = ` (${parts.join("; ")})`;
  }
  if (kind === "InsufficientCreditsError") return { message: "the account has no credits left", code: kind };
  if (status === 401 || status === 403) return { message: statusReason(status), code: kind };
  if (description) return { message: `${description}${detailText}`, code: kind };
  return { message: statusReason(status), code: kind };
}

/**
 * D-ID "talks" over fetch: `POST /talks` with a text script, `GET /talks/{id}` until `done` with a
 * `result_url`. Auth is `Authorization: Basic <API key>` as D-ID's docs show (the key is sent as given).
 */
export class DidAvatarProvider implements RemoteAvatarProvider {
  readonly kind = "remote" as const;
  readonly name = "did" as const;
  private readonly http;

  constructor(private readonly opts: DidOptions) {
    this.http = {
      vendor: "D-ID",
      timeoutMs: opts.timeoutMs ?? 30_000,
      describeError: describeDidError,
      fetchImpl: opts.fetchImpl,
    };
  }

  private headers() {
    return { authorization: `Basic ${this.opts.apiKey}` };
  }

  private url(path: string) {
    return `${this.opts.baseUrl.replace(/\/+$/, "")}${path}`;
  }

  async create(input: { script: string; title: string }) {
    const body = await requestJson(this.http, this.url("/talks"), {
      method: "POST",
      headers: this.headers(),
      body: {
        source_url: this.opts.sourceUrl,
        script: {
          type: "text",
          input: input.script,
          provider: { type: "microsoft", voice_id: this.opts.voiceId },
        },
        config: { stitch: true, result_format: "mp4" },
        name: input.title.slice(0, 100),
      },
    });
    const id = str(body, "id");
    if (!id) throw new ProviderError("D-ID: the answer had no talk id", { transient: false });
    return { vendorVideoId: id, vendorStatus: str(body, "status") ?? "created" };
  }

  async getStatus(vendorVideoId: string): Promise<VendorVideoStatus> {
    const body = await requestJson(this.http, this.url(`/talks/${encodeURIComponent(vendorVideoId)}`), {
      method: "GET",
      headers: this.headers(),
    });
    const vendorStatus = str(body, "status") ?? "unknown";
    let phase: VendorPhase = PHASES[vendorStatus] ?? "rendering";
    const resultUrl = str(body, "result_url");
    const duration = (body as { duration?: unknown }).duration;
    if (phase === "done" && !resultUrl) phase = "rendering"; // done without a URL yet: keep polling
    if (phase === "failed") {
      const err = obj(body, "error");
      const reason =
        vendorStatus === "rejected"
          ? "D-ID rejected the video (content moderation)"
          : `D-ID could not render the video${err ? `: ${str(err, "description") ?? str(err, "kind") ?? "unknown error"}` : ""}`;
      return { phase, vendorStatus, error: reason };
    }
    return {
      phase,
      vendorStatus,
      videoUrl: phase === "done" ? resultUrl : undefined,
      durationSeconds: typeof duration === "number" ? duration : undefined,
    };
  }
}
