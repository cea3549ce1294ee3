import path from "node:path";
import type { Env } from "../../../env";
import type { StorageProvider } from "./index";
import { LocalStorageProvider } from "./local";

/**
 * Picks the media storage from env: `STORAGE_PROVIDER=local` (default) keeps files under
 * `DATA_DIR/media`; `s3` uses an S3-compatible bucket (`S3_BUCKET`, `S3_ENDPOINT`, `S3_REGION`,
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`).
 */
export function createStorageProvider(env: Env): StorageProvider {
  if (env.STORAGE_PROVIDER === "s3") {
    throw new Error("STORAGE_PROVIDER=s3 is not available in this build yet; use STORAGE_PROVIDER=local");
  }
  return new LocalStorageProvider(path.join(env.DATA_DIR, "media"));
}
