import { createHash, randomUUID } from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import type { AppContext } from "../../context";
import type { CampaignContent, MediaItem } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { type FfmpegBinaries, resolveFfmpegBinaries, runFfmpeg } from "../../lib/ffmpeg";
import { sign, verifySignature } from "../../lib/signing";
import { encodeWav, speak } from "../../providers/avatar/tts";
import { voicemailNotice } from "../compliance/call-opt-out";
import { findMedia } from "../studio/studio.service";
import { getSenderProfile } from "../workspaces/workspaces.service";
import { selectCampaign } from "./campaigns.queries";

/*
 * The recording a ringless voicemail campaign plays (issue 14: "pick a recording from the media
 * library"). A launch names one of the workspace's audio items (`audioMediaId`, or its library URL
 * `/api/media/{id}/file` in `audioUrl`); nothing else is accepted, so a campaign never plays a
 * stranger's file. The voicemail provider fetches the audio itself (Drop Cowboy's RVM API takes an
 * `audio_url` to an MP3 or WAV file it downloads), and the library's URLs need the owner's session,
 * so the provider is given a signed public URL of the campaign's recording instead:
 * `{APP_URL}/va/{campaignId}/{signature}.mp3`, valid while the campaign and the media item exist.
 */

const PURPOSE = "voicemail-audio";
const LIBRARY_URL = /^\/api\/media\/(\d{1,15})\/file(?:\?[^#]*)?$/;

/**
 * The media id of one of this app's own library URLs (`/api/media/{id}/file[?v=N]`, relative or
 * under `appUrl`), else null.
 */
export function mediaIdOfLibraryUrl(url: string, appUrl: string): number | null {
  const base = appUrl.replace(/\/+$/, "");
  const rest = url.startsWith(`${base}/`) ? url.slice(base.length) : url;
  const m = LIBRARY_URL.exec(rest);
  return m ? Number(m[1]) : null;
}

/**
 * Checks a voicemail launch's recording and returns the content to store: `audioMediaId` set to one
 * of the workspace's ready audio items (from `audioMediaId`, or from a library URL in `audioUrl`),
 * `audioUrl` cleared. Content without a recording is returned unchanged (text to speech).
 * @throws AppError BAD_REQUEST 'Choose the recording from your media library: ...' for any other URL;
 *   NOT_FOUND 'Recording not found in your media library' for an unknown id or another workspace's;
 *   BAD_REQUEST for a video item or one still processing (the provider plays MP3 audio).
 */
export async function resolveVoicemailAudio(
  ctx: Pick<AppContext, "db" | "env">,
  workspaceId: string,
  content: CampaignContent,
): Promise<CampaignContent> {
  let mediaId = content.audioMediaId ?? null;
  const url = content.audioUrl?.trim();
  if (mediaId === null && url) {
    mediaId = mediaIdOfLibraryUrl(url, ctx.env.APP_URL);
    if (mediaId === null)
      throw new AppError(
        "BAD_REQUEST",
        "Choose the recording from your media library: other addresses cannot be used for voicemail audio.",
      );
  }
  if (mediaId === null) return { ...content, audioUrl: null, audioMediaId: null };
  const media = await findMedia(ctx, workspaceId, mediaId);
  if (!media) throw new AppError("NOT_FOUND", "Recording not found in your media library");
  if (media.type !== "audio")
    throw new AppError(
      "BAD_REQUEST",
      `"${media.name}" is a video: ringless voicemail plays audio. Choose an audio recording.`,
    );
  if (media.processingStatus !== "ready")
    throw new AppError(
      "BAD_REQUEST",
      `"${media.name}" is still being processed. Try again when it shows as ready in your library.`,
    );
  return { ...content, audioUrl: null, audioMediaId: media.id };
}

/** The signed public URL the voicemail provider downloads a campaign's recording from. */
export function voicemailAudioUrl(
  env: Pick<AppContext["env"], "APP_URL" | "APP_SECRET">,
  campaignId: number,
  mediaId: number,
): string {
  const signature = sign(env.APP_SECRET, PURPOSE, [campaignId, mediaId]);
  return `${env.APP_URL.replace(/\/+$/, "")}/va/${campaignId}/${signature}.mp3`;
}

/**
 * The media item behind a signed voicemail audio URL (`/va/{campaignId}/{signature}.mp3`), or null
 * when the signature is wrong, the campaign is gone or has no recording, or the item was deleted.
 */
export async function voicemailAudioMedia(
  ctx: Pick<AppContext, "db" | "env">,
  campaignId: number,
  signature: string,
): Promise<MediaItem | null> {
  const campaign = await selectCampaign(ctx.db, campaignId);
  const mediaId = campaign?.channel === "voicemail" ? campaign.content.audioMediaId : null;
  if (!campaign || !mediaId) return null;
  if (!verifySignature(ctx.env.APP_SECRET, PURPOSE, [campaignId, mediaId], signature)) return null;
  return findMedia(ctx, campaign.workspaceId, mediaId);
}

let ffmpegBins: FfmpegBinaries | null = null;

/**
 * The recording a voicemail campaign's drops play, as stored audio (MP3): the business identity
 * spoken first ("This is a message from <business>."), then the workspace's recording, then the
 * opt-out sentence with the callback number (compliance voicemailNotice; 47 CFR 64.1200(b)). A
 * recording cannot carry them otherwise: the voicemail provider plays one audio file and takes no
 * keypress. The sentences are spoken offline with eSpeak NG (providers/avatar/tts) and joined to the
 * recording with ffmpeg (44.1 kHz mono MP3), made once per campaign, recording and notice and kept in
 * storage under `voicemail-notice/`. Returns the media item to serve with `currentKey` pointing at
 * that file, or null when the voice provider has no callback number (the drop would be refused).
 * @throws FfmpegError / Error when the audio cannot be made (the download then fails; the provider retries).
 */
export async function voicemailAudioWithNotice(
  ctx: Pick<AppContext, "db" | "env" | "providers">,
  campaign: { id: number; workspaceId: string },
  media: MediaItem,
): Promise<MediaItem | null> {
  const callback = ctx.providers.voice.callbackNumber;
  if (!callback || !media.currentKey) return null;
  const sender = await getSenderProfile(ctx, campaign.workspaceId);
  const notice = voicemailNotice(sender.businessName, callback);
  const hash = createHash("sha256")
    .update([media.currentKey, notice.identity, notice.optOut].join("\n"))
    .digest("hex")
    .slice(0, 24);
  const key = `voicemail-notice/${campaign.id}-${media.id}-${hash}.mp3`;
  const served = { ...media, currentKey: key, mimeType: "audio/mpeg" };
  if (await ctx.providers.storage.stat(key)) return served;
  const dir = path.join(ctx.env.DATA_DIR, "tmp", `voicemail-${randomUUID()}`);
  await fsp.mkdir(dir, { recursive: true });
  try {
    const recording = await ctx.providers.storage.toLocalFile(media.currentKey, dir);
    const speech = { voice: "en-us", wordsPerMinute: 160 };
    const [identity, optOut] = await Promise.all([
      speak(notice.identity, speech),
      speak(notice.optOut, speech),
    ]);
    const identityWav = path.join(dir, "identity.wav");
    const optOutWav = path.join(dir, "opt-out.wav");
    await fsp.writeFile(identityWav, encodeWav(identity));
    await fsp.writeFile(optOutWav, encodeWav(optOut));
    const out = path.join(dir, "voicemail.mp3");
    ffmpegBins ??= resolveFfmpegBinaries(ctx.env);
    const norm = "aresample=44100,aformat=sample_fmts=fltp:channel_layouts=mono";
    await runFfmpeg(ffmpegBins, {
      inputs: [
        { path: identityWav, format: "wav" },
        { path: recording.path, format: media.currentKey.endsWith(".wav") ? "wav" : "mp3" },
        { path: optOutWav, format: "wav" },
      ],
      filterComplex: `[0:a]${norm}[a0];[1:a]${norm}[a1];[2:a]${norm}[a2];[a0][a1][a2]concat=n=3:v=0:a=1[out]`,
      outputs: [{ path: out, options: ["-map", "[out]", "-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3"] }],
    });
    await ctx.providers.storage.putFile(key, out, { contentType: "audio/mpeg", move: true });
    return served;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
