import path from "node:path";
import type { Env } from "../../../env";
import type { StorageProvider } from "./index";
import { LocalStorageProvider } from "./local";
import { S3StorageProvider } from "./s3";

/**
 * Picks the media storage from env: `STORAGE_PROVIDER=local` (default) keeps files under
 * `DATA_DIR/media`; `s3` uses an S3-compatible bucket (`S3_BUCKET`, `S3_ENDPOINT` e.g.
 * https://fly.storage.tigris.dev for Tigris, `S3_REGION` (default auto), `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`; without keys the SDK's default credential chain applies).
 */
export function createStorageProvider(env: Env): StorageProvider {
  if (env.STORAGE_PROVIDER === "s3") {
    return new S3StorageProvider({
      bucket: env.S3_BUCKET as string,
      region: env.S3_REGION,
      endpoint: env.S3_ENDPOINT,
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      tmpDir: path.join(env.DATA_DIR, "tmp"),
    });
  }
  return new LocalStorageProvider(path.join(env.DATA_DIR, "media"));
}
