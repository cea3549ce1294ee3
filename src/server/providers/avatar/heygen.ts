import { ProviderError } from "../errors";
import { num, obj, requestJson, statusReason, str } from "./http";
import type { RemoteAvatarProvider, VendorPhase, VendorVideoStatus } from "./index";

export interface HeygenOptions {
  apiKey: string;
  /** e.g. https://api.heygen.com (HEYGEN_API_URL) */
  baseUrl: string;
  /** HEYGEN_AVATAR_ID */
  avatarId: string;
  /** HEYGEN_VOICE_ID */
  voiceId: string;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/**
 * HeyGen video statuses (docs.heygen.com "Retrieve Video Status/Details"): waiting, pending,
 * processing, completed (with `video_url`, a link that expires after 7 days), failed.
 */
const PHASES: Record<string, VendorPhase> = {
  waiting: "queued",
  pending: "queued",
  processing: "rendering",
  completed: "done",
  failed: "failed",
};

/** A HeyGen `error` is a string, or `{code, message, detail}`. */
function errorText(e: unknown): string | undefined {
  if (typeof e === "string") return e || undefined;
  if (typeof e === "object" && e !== null) {
    const message = str(e, "message");
    const detail = str(e, "detail");
    if (message && detail && detail !== message) return `${message} (${detail})`;
    return message ?? detail ?? str(e, "code");
  }
  return undefined;
}

/** HeyGen error bodies: `{error: {code, message}, data: null}` (v2) or `{code, message}` (v1). */
function describeHeygenError(status: number, body: unknown) {
  const err = (body as { error?: unknown } | null)?.error;
  const code = str(obj(body, "error"), "code") ?? (body as { code?: string | number } | null)?.code;
  if (status === 401 || status === 403) return { message: statusReason(status), code };
  const text = errorText(err) ?? str(body, "message");
  return { message: text ?? statusReason(status), code };
}

/**
 * HeyGen over fetch: `POST /v2/video/generate` with one avatar scene speaking the script, then
 * `GET /v1/video_status.get?video_id=` until `completed`. Auth is the `X-Api-Key` header.
 */
export class HeygenAvatarProvider implements RemoteAvatarProvider {
  readonly kind = "remote" as const;
  readonly name = "heygen" as const;
  private readonly http;

  constructor(private readonly opts: HeygenOptions) {
    this.http = {
      vendor: "HeyGen",
      timeoutMs: opts.timeoutMs ?? 30_000,
      describeError: describeHeygenError,
      fetchImpl: opts.fetchImpl,
    };
  }

  private headers() {
    return { "x-api-key": this.opts.apiKey };
  }

  private url(path: string) {
    return `${this.opts.baseUrl.replace(/\/+$/, "")}${path}`;
  }

  async create(input: { script: string; title: string }) {
    const body = await requestJson(this.http, this.url("/v2/video/generate"), {
      method: "POST",
      headers: this.headers(),
      body: {
        title: input.title.slice(0, 100),
        video_inputs: [
          {
            character: { type: "avatar", avatar_id: this.opts.avatarId, avatar_style: "normal" },
            voice: { type: "text", input_text: input.script, voice_id: this.opts.voiceId },
          },
        ],
        dimension: { width: 1280, height: 720 },
      },
    });
    const apiError = errorText((body as { error?: unknown }).error);
    if (apiError) throw new ProviderError(`HeyGen: ${apiError}`, { transient: false });
    const id = str(obj(body, "data"), "video_id");
    if (!id) throw new ProviderError("HeyGen: the answer had no video_id", { transient: false });
    return { vendorVideoId: id, vendorStatus: "pending" };
  }

  async getStatus(vendorVideoId: string): Promise<VendorVideoStatus> {
    const body = await requestJson(
      this.http,
      this.url(`/v1/video_status.get?video_id=${encodeURIComponent(vendorVideoId)}`),
      { method: "GET", headers: this.headers() },
    );
    const code = (body as { code?: unknown }).code;
    const data = obj(body, "data");
    if ((code !== undefined && Number(code) !== 100) || !data)
      throw new ProviderError(`HeyGen: ${str(body, "message") ?? "unexpected status answer"}`, {
        transient: false,
        vendorCode: typeof code === "number" || typeof code === "string" ? code : undefined,
      });
    const vendorStatus = str(data, "status") ?? "unknown";
    let phase: VendorPhase = PHASES[vendorStatus] ?? "rendering";
    const videoUrl = str(data, "video_url");
    if (phase === "done" && !videoUrl) phase = "rendering";
    if (phase === "failed")
      return {
        phase,
        vendorStatus,
        error: `HeyGen could not render the video: ${errorText(data.error) ?? "unknown error"}`,
      };
    return {
      phase,
      vendorStatus,
      videoUrl: phase === "done" ? videoUrl : undefined,
      durationSeconds: num(data, "duration"),
    };
  }
}
