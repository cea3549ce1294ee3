import type { AvatarProviderName } from "../../db/schema/avatar";

export type { AvatarProviderName };

/**
 * A vendor's status mapped onto four phases: `queued` (accepted, not started: D-ID `created`, HeyGen
 * `pending`/`waiting`), `rendering` (D-ID `started`, HeyGen `processing`), `done` (a result URL exists:
 * D-ID `done` + `result_url`, HeyGen `completed` + `video_url`), `failed` (D-ID `error`/`rejected`,
 * HeyGen `failed`).
 */
export type VendorPhase = "queued" | "rendering" | "done" | "failed";

export interface VendorVideoStatus {
  phase: VendorPhase;
  /** the vendor's own status word, e.g. "started" */
  vendorStatus: string;
  /** the finished video (time-limited vendor URL) when phase is done */
  videoUrl?: string;
  /** seconds, when the vendor reports it */
  durationSeconds?: number;
  /** the vendor's reason, readable, when phase is failed */
  error?: string;
}

/** A hosted avatar vendor reached over HTTP: submit a script, poll, download the result. */
export interface RemoteAvatarProvider {
  readonly kind: "remote";
  readonly name: Exclude<AvatarProviderName, "local">;
  /**
   * Submits a text script for rendering.
   * @returns the vendor's video id and its first status word
   * @throws ProviderError (transient for network, 408, 429, 5xx; permanent with the vendor's reason otherwise)
   */
  create(input: { script: string; title: string }): Promise<{ vendorVideoId: string; vendorStatus: string }>;
  /** Reads the vendor's status. @throws ProviderError as `create` */
  getStatus(vendorVideoId: string): Promise<VendorVideoStatus>;
}

/** A caption cue burned into the local video: seconds from the start. */
export interface CaptionCue {
  start: number;
  end: number;
  text: string;
}

/** The offline provider: renders the video itself (text-to-speech + ffmpeg). */
export interface LocalAvatarProvider {
  readonly kind: "local";
  readonly name: "local";
  /**
   * Renders `script` into an MP4 at `outPath` (H.264 + AAC).
   * @returns the speech duration and the caption cues (seconds)
   * @throws Error when ffmpeg fails (its last stderr lines in the message)
   */
  render(input: {
    script: string;
    outPath: string;
  }): Promise<{ durationSeconds: number; cues: CaptionCue[] }>;
}

export type AvatarProvider = RemoteAvatarProvider | LocalAvatarProvider;

/** Human names of the providers (spec section 9: d-id standard quality, heygen premium quality). */
export const AVATAR_PROVIDER_LABELS: Record<AvatarProviderName, string> = {
  local: "Local preview avatar (offline)",
  did: "D-ID (standard quality)",
  heygen: "HeyGen (premium quality)",
};

/** The avatar providers of this deployment: the local one always, vendors when their API key is set. */
export class AvatarProviders {
  constructor(
    /** from AVATAR_PROVIDER */
    readonly defaultName: AvatarProviderName,
    private readonly byName: Partial<Record<AvatarProviderName, AvatarProvider>>,
  ) {}

  /** The provider called `name`, or null when it is not configured (no API key). */
  get(name: AvatarProviderName): AvatarProvider | null {
    return this.byName[name] ?? null;
  }

  /** Every provider with whether it can be used here. */
  list(): { name: AvatarProviderName; label: string; configured: boolean; isDefault: boolean }[] {
    return (["local", "did", "heygen"] as const).map((name) => ({
      name,
      label: AVATAR_PROVIDER_LABELS[name],
      configured: Boolean(this.byName[name]),
      isDefault: name === this.defaultName,
    }));
  }
}
