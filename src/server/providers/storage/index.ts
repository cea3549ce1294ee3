import type { Readable } from "node:stream";

/** A byte range, both ends inclusive (HTTP Range semantics, RFC 9110 section 14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

/** Metadata of a stored object. */
export interface StoredObject {
  /** bytes */
  size: number;
  contentType?: string;
}

/**
 * Object storage for media files. Keys are `/`-separated relative paths (e.g. `u/<user>/m/<id>/original`).
 * Implementations stream: no method holds a whole file in memory.
 * Implementations: `local` (files under DATA_DIR/media) and `s3` (S3-compatible, e.g. Tigris on Fly).
 */
export interface StorageProvider {
  readonly name: "local" | "s3";
  /**
   * Stores a stream under `key`; resolves with the stored size in bytes.
   * On failure nothing is left under `key`.
   */
  put(key: string, body: Readable, opts: { contentType: string }): Promise<StoredObject>;
  /** Stores a local file under `key` (the local provider moves it when `move` is true). */
  putFile(
    key: string,
    filePath: string,
    opts: { contentType: string; move?: boolean },
  ): Promise<StoredObject>;
  /** Size and type, or null when absent. */
  stat(key: string): Promise<StoredObject | null>;
  /**
   * Opens a read stream of the whole object or of `range`.
   * @throws StorageNotFoundError when absent.
   */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /**
   * A local filesystem path for tools that need one (ffmpeg). The local provider returns the stored
   * file itself; S3 downloads into `tmpDir` and `cleanup` removes the copy.
   */
  toLocalFile(key: string, tmpDir: string): Promise<{ path: string; cleanup: () => Promise<void> }>;
  /** Deletes one object (absent is fine). */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix` (absent is fine). */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * The keys of the objects directly in `folder` (`folder/<name>`, not in its sub-folders), in no
   * particular order; none when it does not exist.
   */
  listFolder(folder: string): Promise<string[]>;
}

/** The object does not exist. */
export class StorageNotFoundError extends Error {
  constructor(key: string) {
    super(`object not found: ${key}`);
    this.name = "StorageNotFoundError";
  }
}

/** Refuses keys that could escape the storage root (`..`, absolute paths, backslashes, NUL). */
export function assertSafeKey(key: string): string {
  if (
    !key ||
    key.startsWith("/") ||
    key.includes("\\") ||
    key.includes("\0") ||
    key.split("/").some((p) => p === ".." || p === "." || p === "")
  )
    throw new Error(`unsafe storage key: ${JSON.stringify(key)}`);
  return key;
}
