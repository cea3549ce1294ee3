import { z } from "zod";
import { AVATAR_PROVIDERS } from "../../db/schema/avatar";

/** Spec section 5: "Avatar video: script must not be blank ('Please enter a script')". */
export const SCRIPT_REQUIRED_MESSAGE = "Please enter a script";
/** HeyGen's documented limit for `input_text` ("less than 5000 characters"); applied to every provider. */
export const MAX_SCRIPT_CHARS = 5000;

/** A missing (or non-text) script reads as blank, so it gets the same message. */
export const scriptSchema = z.preprocess(
  (v) => (typeof v === "string" ? v : ""),
  z
    .string({ error: SCRIPT_REQUIRED_MESSAGE })
    .trim()
    .min(1, SCRIPT_REQUIRED_MESSAGE)
    .max(MAX_SCRIPT_CHARS, `The script must be at most ${MAX_SCRIPT_CHARS} characters`),
);

/** Body of `POST /api/videos/create/{provider}` (spec section 7: JSON {script}). */
export const createAvatarInput = z.object({
  script: scriptSchema,
  /** name in the media library; defaults to the script's first words */
  title: z.string().trim().max(200, "The title must be at most 200 characters").optional(),
});
export type CreateAvatarInput = z.input<typeof createAvatarInput>;

/** A provider named in a path or a request; "d-id" (the spec's spelling in the UI) means "did". */
export const providerSchema = z.preprocess(
  (v) =>
    typeof v === "string"
      ? v
          .trim()
          .toLowerCase()
          .replace(/^d-id$/, "did")
      : v,
  z.enum(AVATAR_PROVIDERS, { error: "Unknown avatar provider (use did, heygen or local)" }),
);

/** A video id as the create call returned it (Pitchwise's uuid; a vendor id is also accepted). */
export const videoIdSchema = z
  .string({ error: "videoId is required" })
  .trim()
  .min(1, "videoId is required")
  .max(200, "videoId is too long")
  .regex(/^[A-Za-z0-9_-]+$/, "videoId has invalid characters");

export const statusInput = z.object({ provider: providerSchema, videoId: videoIdSchema });
