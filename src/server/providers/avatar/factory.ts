import type { Env } from "../../../env";
import { resolveFfmpegBinaries } from "../../lib/ffmpeg";
import { DidAvatarProvider } from "./did";
import { HeygenAvatarProvider } from "./heygen";
import { AvatarProviders } from "./index";
import { LocalAvatarRenderer } from "./local";

/**
 * Builds the avatar providers from env: `local` always (offline), `did` when DID_API_KEY is set,
 * `heygen` when HEYGEN_API_KEY is set. AVATAR_PROVIDER names the default (env validation already
 * requires the key of a vendor chosen as default).
 */
export function createAvatarProviders(env: Env): AvatarProviders {
  return new AvatarProviders(env.AVATAR_PROVIDER, {
    local: new LocalAvatarRenderer({ ffmpeg: resolveFfmpegBinaries(env) }),
    did: env.DID_API_KEY
      ? new DidAvatarProvider({
          apiKey: env.DID_API_KEY,
          baseUrl: env.DID_API_URL,
          sourceUrl: env.DID_SOURCE_URL,
          voiceId: env.DID_VOICE_ID,
        })
      : undefined,
    heygen: env.HEYGEN_API_KEY
      ? new HeygenAvatarProvider({
          apiKey: env.HEYGEN_API_KEY,
          baseUrl: env.HEYGEN_API_URL,
          avatarId: env.HEYGEN_AVATAR_ID,
          voiceId: env.HEYGEN_VOICE_ID,
        })
      : undefined,
  });
}
