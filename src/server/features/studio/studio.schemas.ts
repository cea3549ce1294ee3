import { z } from "zod";
import { DECODE_MAX_PIXELS } from "../../lib/ffmpeg";
import { recordId } from "../../lib/validate";

/** Upload limit: 100 MB (spec section 9), counted in bytes as 100 x 1024 x 1024. */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const FILE_TOO_LARGE_MESSAGE = "File too large. Maximum size is 100MB.";
export const UNSUPPORTED_TYPE_MESSAGE =
  "Unsupported file type. Please upload MP4, WebM, MOV, MP3, or WAV files.";

/**
 * The longest media the studio keeps and the longest edit it renders: 2 hours, in seconds. The upload
 * limit bounds bytes, not time: a file of a few kilobytes can say it lasts 10 hours (two frames far
 * apart) and every ffmpeg run over it would then make hours of output. Longer uploads fail processing
 * with a sentence; longer edits are a 400 before anything is queued.
 */
export const MAX_MEDIA_SECONDS = 2 * 60 * 60;
/**
 * The largest video frame the studio converts: 4096 x 2160 pixels (DCI 4K), counted as a pixel total.
 * Checked on the probed size before processing, and by the decoder on every frame of every run over
 * the file (lib/ffmpeg DECODE_MAX_PIXELS, `-max_pixels`): a stream can grow past its header's size.
 */
export const MAX_VIDEO_PIXELS = DECODE_MAX_PIXELS;

/**
 * The most video the studio encodes from one item, as frames x pixels per frame: 30 minutes of
 * 1920 x 1080 at 30 fps (what the processing job can encode within its 30-minute expiry). Bytes do not
 * bound it: a 4 MB H.264 file can hold 14,000 frames of 4K (about 25 bytes per repeated frame).
 */
export const MAX_VIDEO_WORK_PIXELS = 1920 * 1080 * 30 * 60 * 30;

/** A length for people: "2 h", "2 h 40 min", "45 min", "30 s". */
export function formatLength(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (!h) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
}

/**
 * Allowed MIME types decided by magic bytes (spec section 5: video/mp4, video/webm, video/quicktime,
 * audio/mpeg, audio/wav, audio/mp3, audio/webm). file-type's names for the same containers map here.
 */
export const ALLOWED_MIME: Record<string, { mime: string; ext: string }> = {
  "video/mp4": { mime: "video/mp4", ext: "mp4" },
  "video/x-m4v": { mime: "video/mp4", ext: "mp4" },
  "video/webm": { mime: "video/webm", ext: "webm" },
  "audio/webm": { mime: "audio/webm", ext: "webm" },
  "video/quicktime": { mime: "video/quicktime", ext: "mov" },
  "audio/mpeg": { mime: "audio/mpeg", ext: "mp3" },
  "audio/mp3": { mime: "audio/mpeg", ext: "mp3" },
  "audio/wav": { mime: "audio/wav", ext: "wav" },
  "audio/x-wav": { mime: "audio/wav", ext: "wav" },
  "audio/vnd.wave": { mime: "audio/wav", ext: "wav" },
};

/**
 * A media item's id: a JSON number or, in a path, decimal digits only (lib/validate recordId:
 * `/api/media/0x10` or `1e1` is a 400, not media 16 or 10; a number no media can have, 0 or
 * 99999999999999999999, is "Media not found" like any unknown id).
 */
export const mediaIdSchema = recordId("Media id");

/** Display name of a media item: trimmed, 1-200 characters. */
export const mediaNameSchema = z.string().trim().max(200, "Name must be at most 200 characters");

const seconds = (label: string) =>
  z.coerce
    .number({ error: `${label} must be a number` })
    .finite(`${label} must be a number`)
    .min(0, `${label} cannot be negative`);

/** Simple editor speeds (spec section 9). */
export const SIMPLE_SPEEDS = [0.5, 1, 2] as const;
/** Advanced editor speeds (spec section 9). */
export const ADVANCED_SPEEDS = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2] as const;

/**
 * Simple editor payload (spec sections 3 and 7): times in seconds, volume 0-2, fades 0-5 s,
 * speed 0.5/1/2; `status: "draft"` saves a draft, `quality: "source"` exports.
 */
export const trimEditSchema = z.object({
  mediaId: mediaIdSchema,
  startTime: seconds("Start time"),
  endTime: seconds("End time"),
  volume: z.coerce
    .number()
    .min(0, "Volume must be between 0 and 2")
    .max(2, "Volume must be between 0 and 2")
    .default(1),
  speed: z.coerce
    .number()
    .refine((v) => (SIMPLE_SPEEDS as readonly number[]).includes(v), "Speed must be 0.5, 1 or 2")
    .default(1),
  fadeIn: seconds("Fade in").max(5, "Fade in must be at most 5 seconds").default(0),
  fadeOut: seconds("Fade out").max(5, "Fade out must be at most 5 seconds").default(0),
  quality: z.literal("source").optional(),
  status: z.literal("draft").optional(),
});
export type TrimEditInput = z.input<typeof trimEditSchema>;

/** A fade flag (true = 1 second, spec section 9) or a length in seconds (0-5). */
const fadeSchema = z
  .union([z.boolean(), z.coerce.number().min(0).max(5, "Fades must be at most 5 seconds")])
  .transform((v) => (v === true ? 1 : v === false ? 0 : v))
  .default(0);

const percent = (label: string) =>
  z.coerce
    .number()
    .min(0, `${label} must be between 0 and 200`)
    .max(200, `${label} must be between 0 and 200`)
    .default(100);

/**
 * Advanced editor payload (spec sections 3 and 7): picture effects in percent (0-200, default 100),
 * blur 0-10 px, fades, cuts (times in seconds that split the selection into segments). Extension:
 * `removedSegments` lists the indexes (0-based, in time order) of segments the user dropped.
 */
export const advancedEditSchema = z.object({
  mediaId: mediaIdSchema,
  startTime: seconds("Start time"),
  endTime: seconds("End time"),
  volume: z.coerce
    .number()
    .min(0, "Volume must be between 0 and 2")
    .max(2, "Volume must be between 0 and 2")
    .default(1),
  speed: z.coerce
    .number()
    .refine(
      (v) => (ADVANCED_SPEEDS as readonly number[]).includes(v),
      "Speed must be one of 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2",
    )
    .default(1),
  effects: z
    .object({
      brightness: percent("Brightness"),
      contrast: percent("Contrast"),
      saturation: percent("Saturation"),
      blur: z.coerce
        .number()
        .min(0, "Blur must be between 0 and 10")
        .max(10, "Blur must be between 0 and 10")
        .default(0),
      fadeIn: fadeSchema,
      fadeOut: fadeSchema,
    })
    .default({ brightness: 100, contrast: 100, saturation: 100, blur: 0, fadeIn: 0, fadeOut: 0 }),
  cuts: z.array(seconds("Cut")).max(100, "At most 100 cuts").default([]),
  removedSegments: z.array(z.number().int().min(0)).max(101).default([]),
  quality: z.literal("source").optional(),
});
export type AdvancedEditInput = z.input<typeof advancedEditSchema>;

/**
 * An edit's id (render progress): a JSON number or, in a path, decimal digits only (lib/validate
 * recordId: a number no edit can have is "Edit not found" like any unknown id).
 */
export const editIdSchema = recordId("Edit id");

/** A media version id: "original" or a finished edit's id (studio versions). */
export const mediaVersionIdSchema = z.union([z.literal("original"), editIdSchema], {
  error: 'Version must be "original" or an edit id',
});
