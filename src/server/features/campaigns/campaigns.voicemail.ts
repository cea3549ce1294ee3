import { createHash, randomUUID } from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import type { AppContext } from "../../context";
import type { CampaignContent, CampaignRecipient, MediaItem } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { resolveFfmpegBinaries, runFfmpeg } from "../../lib/ffmpeg";
import { sign, verifySignature } from "../../lib/signing";
import { encodeWav, speak } from "../../providers/avatar/tts";
import { voicemailNotice } from "../compliance/call-opt-out";
import { MAX_MEDIA_SECONDS } from "../studio/studio.schemas";
import { findMedia } from "../studio/studio.service";
import { getSenderProfile } from "../workspaces/workspaces.service";
import { applyRecipientEvent } from "./campaigns.events";
import { selectCampaign, selectRecipientById } from "./campaigns.queries";

/*
 * The recording a ringless voicemail campaign plays (issue 14: "pick a recording from the media
 * library"). A launch names one of the workspace's audio items (`audioMediaId`, or its library URL
 * `/api/media/{id}/file` in `audioUrl`); nothing else is accepted, so a campaign never plays a
 * stranger's file. The voicemail provider fetches the audio itself (Drop Cowboy's RVM API takes an
 * `audio_url` to an MP3 or WAV file it downloads), and the library's URLs need the owner's session,
 * so the provider is given a signed public URL of the campaign's recording instead, one per drop:
 * `{APP_URL}/va/{campaignId}/{recipientId}/{signature}.mp3`, valid while the campaign, the recipient
 * and the media item exist (the recipient in the URL is the drop a failed fetch marks failed).
 * URLs without the recipient (`/va/{campaignId}/{signature}.mp3`, handed out before) still work.
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
 * @throws AppError BAD_REQUEST 'Choose the recording from your media library: ...' for any other URL
 *   (param `audioUrl`);
 *   NOT_FOUND 'Recording not found in your media library' for an unknown id or another workspace's;
 *   BAD_REQUEST for a video item or one still processing (the provider plays MP3 audio; param the field
 *   that named it, `audioMediaId` or `audioUrl`).
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
        { param: "audioUrl" },
      );
  }
  if (mediaId === null) return { ...content, audioUrl: null, audioMediaId: null };
  const media = await findMedia(ctx, workspaceId, mediaId);
  if (!media) throw new AppError("NOT_FOUND", "Recording not found in your media library");
  // the input field the recording was named in, for APIs that name it (v1 `param`)
  const param = content.audioMediaId != null ? "audioMediaId" : "audioUrl";
  if (media.type !== "audio")
    throw new AppError(
      "BAD_REQUEST",
      `"${media.name}" is a video: ringless voicemail plays audio. Choose an audio recording.`,
      { param },
    );
  if (media.processingStatus !== "ready")
    throw new AppError(
      "BAD_REQUEST",
      `"${media.name}" is still being processed. Try again when it shows as ready in your library.`,
      { param },
    );
  return { ...content, audioUrl: null, audioMediaId: media.id };
}

/**
 * The signed public URL the voicemail provider downloads a drop's recording from:
 * `{APP_URL}/va/{campaignId}/{recipientId}/{signature}.mp3` (signature over campaign, media and
 * recipient); without `recipientId`, the older per-campaign form `{APP_URL}/va/{campaignId}/{signature}.mp3`.
 */
export function voicemailAudioUrl(
  env: Pick<AppContext["env"], "APP_URL" | "APP_SECRET">,
  campaignId: number,
  mediaId: number,
  recipientId?: number,
): string {
  const base = `${env.APP_URL}/va/${campaignId}`;
  if (recipientId === undefined) return `${base}/${sign(env.APP_SECRET, PURPOSE, [campaignId, mediaId])}.mp3`;
  return `${base}/${recipientId}/${sign(env.APP_SECRET, PURPOSE, [campaignId, mediaId, recipientId])}.mp3`;
}

/**
 * Path of the route that takes a ringless voicemail drop's delivery status from Drop Cowboy (its
 * webhook, posted to the drop's `callback_url`); the drop's token follows it: `{path}/{token}`.
 */
export const VOICEMAIL_STATUS_PATH = "/api/webhooks/dropcowboy/rvm";
const STATUS_PURPOSE = "voicemail-status";

/**
 * The `callback_url` a drop is sent with: `{APP_URL}/api/webhooks/dropcowboy/rvm/{token}`, the token
 * an HMAC of the drop's `foreign_id` (our recipient key, campaigns.delivery vendorKey) under
 * APP_SECRET (lib/signing, 132 bits). Drop Cowboy signs no webhook (its docs name no signature), so
 * this token is what authenticates the callback: the route accepts a status only for the
 * `foreign_id` its token was made for (voicemailStatusTokenValid).
 */
export function voicemailStatusCallbackUrl(
  env: Pick<AppContext["env"], "APP_URL" | "APP_SECRET">,
  foreignId: string,
): string {
  return `${env.APP_URL}${VOICEMAIL_STATUS_PATH}/${sign(env.APP_SECRET, STATUS_PURPOSE, [foreignId])}`;
}

/** Whether `token` (from the callback's path) is the one voicemailStatusCallbackUrl made for `foreignId`. */
export function voicemailStatusTokenValid(
  env: Pick<AppContext["env"], "APP_SECRET">,
  foreignId: string,
  token: string,
): boolean {
  return verifySignature(env.APP_SECRET, STATUS_PURPOSE, [foreignId], token);
}

/**
 * The media item behind a signed voicemail audio URL (`/va/{campaignId}[/{recipientId}]/{signature}.mp3`),
 * or null when the signature is wrong, the campaign is gone or has no recording, or the item was deleted.
 */
export async function voicemailAudioMedia(
  ctx: Pick<AppContext, "db" | "env">,
  campaignId: number,
  signature: string,
  recipientId: number | null = null,
): Promise<MediaItem | null> {
  const campaign = await selectCampaign(ctx.db, campaignId);
  const mediaId = campaign?.channel === "voicemail" ? campaign.content.audioMediaId : null;
  if (!campaign || !mediaId) return null;
  const parts = recipientId === null ? [campaignId, mediaId] : [campaignId, mediaId, recipientId];
  if (!verifySignature(ctx.env.APP_SECRET, PURPOSE, parts, signature)) return null;
  return findMedia(ctx, campaign.workspaceId, mediaId);
}

/**
 * What the campaign report says of a drop whose recording could not be made into the voicemail's
 * audio (the business's name and the opt-out sentence around it): no voicemail was left.
 */
export const VOICEMAIL_AUDIO_FAILED_REASON =
  "The recording could not be prepared for voicemail (adding your business name and opt-out sentence to it failed), so no voicemail was left. Check that the recording plays in your media library, then use Resend to failed.";

/**
 * The voicemail's audio could not be made (ffmpeg or eSpeak failed, the recording could not be read):
 * `cause` is the underlying error, `remembered` true when this is an earlier failure of the same
 * audio answered again without running ffmpeg (FAILED_BUILD_MEMORY_MS).
 */
export class VoicemailAudioError extends Error {
  constructor(
    message: string,
    readonly cause: unknown,
    readonly remembered = false,
  ) {
    super(message);
    this.name = "VoicemailAudioError";
  }
}

/**
 * How long a failed build of one voicemail audio (campaign, recording and notice) is remembered by
 * this process: the campaign's other drops fetching the same audio get the failure at once instead
 * of each running eSpeak and ffmpeg again (a campaign of thousands of drops fetched within minutes).
 */
const FAILED_BUILD_MEMORY_MS = 10 * 60_000;
const failedBuilds = new Map<string, { until: number; message: string }>();

/** Remembers a failed build of `key` (at most 1,000 are kept; expired ones go first). */
function rememberFailedBuild(key: string, message: string): void {
  const now = Date.now();
  if (failedBuilds.size >= 1000)
    for (const [k, v] of failedBuilds)
      if (v.until <= now || failedBuilds.size >= 1000) failedBuilds.delete(k);
  failedBuilds.set(key, { until: now + FAILED_BUILD_MEMORY_MS, message });
}

/**
 * Builds of voicemail audio under way in this process, by storage key: a download arriving while
 * its audio is being made waits for that build instead of starting eSpeak and ffmpeg again (the
 * voicemail provider fetches a campaign's drops in parallel; each fetch found the file missing and
 * ran its own build, one ffmpeg process per request).
 */
const buildsUnderWay = new Map<string, Promise<MediaItem>>();

/** The storage folder of a workspace's voicemail audio built with its notice (voicemailAudioWithNotice). */
export function voicemailNoticePrefix(workspaceId: string): string {
  return `voicemail-notice/${workspaceId}`;
}

/**
 * The recording a voicemail campaign's drops play, as stored audio (MP3): the business identity
 * spoken first ("This is a message from <business>."), then the workspace's recording, then the
 * opt-out sentence with the callback number (compliance voicemailNotice; 47 CFR 64.1200(b)). A
 * recording cannot carry them otherwise: the voicemail provider plays one audio file and takes no
 * keypress. The sentences are spoken offline with eSpeak NG (providers/avatar/tts) and joined to the
 * recording with ffmpeg (44.1 kHz mono MP3), made once per campaign, recording and notice and kept in
 * storage under `voicemail-notice/<workspace>/` (one build at a time per file in this process: concurrent callers
 * share it). Returns the media item to serve with `currentKey` pointing at
 * that file, or null when the voice provider has no callback number (the drop would be refused).
 * @throws VoicemailAudioError when the audio cannot be made (eSpeak or ffmpeg failed, the recording
 *   could not be read), or the same audio failed within FAILED_BUILD_MEMORY_MS (`remembered`).
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
  // under the workspace's folder, so deleting the workspace deletes them (stopCampaignsForDeletion)
  const key = `${voicemailNoticePrefix(campaign.workspaceId)}/${campaign.id}-${media.id}-${hash}.mp3`;
  const served = { ...media, currentKey: key, mimeType: "audio/mpeg" };
  if (await ctx.providers.storage.stat(key)) return served;
  const failed = failedBuilds.get(key);
  if (failed && failed.until > Date.now()) throw new VoicemailAudioError(failed.message, null, true);
  const underWay = buildsUnderWay.get(key);
  if (underWay) return underWay;
  const build = buildVoicemailAudio(ctx, campaign, media, media.currentKey, notice, key, served);
  buildsUnderWay.set(key, build);
  try {
    return await build;
  } finally {
    buildsUnderWay.delete(key);
  }
}

/**
 * How long joining the spoken notice to a recording of `durationSeconds` may run (ffmpeg: resampling
 * and MP3 encoding), in milliseconds: 60 s plus 1 s per 10 s of recording (the studio's longest, 2 hours,
 * when the length is unknown). The join ran at about 46x real time on 2 cores (20 minutes in 26 s), so
 * a 2-hour recording gets 13 min, some 4x what it needs. Past it ffmpeg is killed (SIGKILL) and the
 * build fails.
 */
export function voicemailBuildTimeLimitMs(durationSeconds: number | null): number {
  return 60_000 + Math.ceil((durationSeconds ?? MAX_MEDIA_SECONDS) / 10) * 1000;
}

/** voicemailAudioWithNotice's build of `key` (eSpeak, ffmpeg, storage). @throws VoicemailAudioError */
async function buildVoicemailAudio(
  ctx: Pick<AppContext, "env" | "providers">,
  campaign: { id: number },
  media: MediaItem,
  recordingKey: string,
  notice: { identity: string; optOut: string },
  key: string,
  served: MediaItem,
): Promise<MediaItem> {
  const dir = path.join(ctx.env.DATA_DIR, "tmp", `voicemail-${randomUUID()}`);
  await fsp.mkdir(dir, { recursive: true });
  try {
    const recording = await ctx.providers.storage.toLocalFile(recordingKey, dir);
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
    const ffmpegBins = resolveFfmpegBinaries(ctx.env);
    const norm = "aresample=44100,aformat=sample_fmts=fltp:channel_layouts=mono";
    await runFfmpeg(
      ffmpegBins,
      {
        inputs: [
          { path: identityWav, format: "wav" },
          { path: recording.path, format: recordingKey.endsWith(".wav") ? "wav" : "mp3" },
          { path: optOutWav, format: "wav" },
        ],
        filterComplex: `[0:a]${norm}[a0];[1:a]${norm}[a1];[2:a]${norm}[a2];[a0][a1][a2]concat=n=3:v=0:a=1[out]`,
        outputs: [
          { path: out, options: ["-map", "[out]", "-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3"] },
        ],
      },
      { timeLimitMs: voicemailBuildTimeLimitMs(media.durationSeconds) },
    );
    await ctx.providers.storage.putFile(key, out, { contentType: "audio/mpeg", move: true });
    return served;
  } catch (e) {
    const message = `voicemail audio for campaign ${campaign.id} (media ${media.id}) could not be made: ${(e as Error).message}`;
    rememberFailedBuild(key, message);
    throw new VoicemailAudioError(message, e);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Makes (or finds in storage) the audio a recorded voicemail campaign's drops will fetch, before any
 * is dropped (campaigns.send callOrDrop), so a recording that cannot be made into it fails its drops
 * with VOICEMAIL_AUDIO_FAILED_REASON instead of leaving voicemails whose audio download fails.
 * Returns that reason (after logging the error), or null when the audio is ready or there is nothing
 * to make here (no recording, recording deleted, no callback number: the drop deals with those).
 */
export async function prepareVoicemailAudio(
  ctx: Pick<AppContext, "db" | "env" | "providers" | "log">,
  campaign: { id: number; workspaceId: string; content: CampaignContent },
): Promise<string | null> {
  const mediaId = campaign.content.audioMediaId;
  const media = mediaId ? await findMedia(ctx, campaign.workspaceId, mediaId) : null;
  if (!media) return null;
  try {
    await voicemailAudioWithNotice(ctx, campaign, media);
    return null;
  } catch (e) {
    if (!(e instanceof VoicemailAudioError)) throw e;
    ctx.log.error(
      { err: e.cause ?? e, campaignId: campaign.id, mediaId: media.id },
      `${e.message}: the campaign's drops fail instead of leaving a voicemail without its audio`,
    );
    return VOICEMAIL_AUDIO_FAILED_REASON;
  }
}

/** What a drop's audio download gets (voicemailAudioForDrop). */
export type VoicemailAudioAnswer =
  | { kind: "file"; media: MediaItem }
  | { kind: "failed"; message: string }
  | { kind: "not_found" };

/**
 * The answer to the voicemail provider's download of a drop's audio (`GET /va/{campaignId}[/{recipientId}]/{signature}.mp3`):
 * the audio with the notice (voicemailAudioWithNotice), `not_found` for a wrong signature, a gone
 * campaign, recipient or recording, or no callback number; `failed` when the audio cannot be made.
 * A failure is no server crash: it is logged, the drop's recipient (when the URL names one) is marked
 * failed with VOICEMAIL_AUDIO_FAILED_REASON (shown in the campaign report; a final status, so the
 * send is not retried), and the provider gets a final "gone" answer, so its retries or the campaign's other
 * drops do not run eSpeak and ffmpeg again (a drop already marked so is answered at once, and the
 * failed build is remembered for a while).
 */
export async function voicemailAudioForDrop(
  ctx: Pick<AppContext, "db" | "env" | "providers" | "log" | "jobs">,
  campaignId: number,
  recipientId: number | null,
  signature: string,
): Promise<VoicemailAudioAnswer> {
  const media = await voicemailAudioMedia(ctx, campaignId, signature, recipientId);
  if (!media) return { kind: "not_found" };
  let recipient: CampaignRecipient | undefined;
  if (recipientId !== null) {
    recipient = await selectRecipientById(ctx.db, recipientId);
    if (!recipient || recipient.campaignId !== campaignId) return { kind: "not_found" };
    if (recipient.status === "failed" && recipient.reason === VOICEMAIL_AUDIO_FAILED_REASON)
      return { kind: "failed", message: VOICEMAIL_AUDIO_FAILED_REASON };
  }
  try {
    const served = await voicemailAudioWithNotice(
      ctx,
      { id: campaignId, workspaceId: media.workspaceId },
      media,
    );
    return served ? { kind: "file", media: served } : { kind: "not_found" };
  } catch (e) {
    if (!(e instanceof VoicemailAudioError)) throw e;
    ctx.log.error(
      { err: e.cause ?? e, campaignId, recipientId, mediaId: media.id, remembered: e.remembered },
      `${e.message}: the drop's audio download is answered 410 and the drop marked failed`,
    );
    if (recipient)
      await applyRecipientEvent(ctx, recipient, "failed", { reason: VOICEMAIL_AUDIO_FAILED_REASON });
    return { kind: "failed", message: VOICEMAIL_AUDIO_FAILED_REASON };
  }
}
