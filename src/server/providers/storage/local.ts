import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  assertSafeKey,
  type ByteRange,
  StorageNotFoundError,
  type StorageProvider,
  type StoredObject,
} from "./index";

/**
 * Files under `root` (DATA_DIR/media by default). Writes go to a `.part` file renamed on success, so a
 * failed or aborted write leaves nothing behind.
 */
export class LocalStorageProvider implements StorageProvider {
  readonly name = "local" as const;
  constructor(readonly root: string) {}

  /** Absolute path of `key` inside the root. */
  pathOf(key: string): string {
    return path.join(this.root, assertSafeKey(key));
  }

  async put(key: string, body: Readable, _opts: { contentType: string }): Promise<StoredObject> {
    const dest = this.pathOf(key);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    const part = `${dest}.${process.pid}.${Date.now()}.part`;
    try {
      await pipeline(body, fs.createWriteStream(part));
      await fsp.rename(part, dest);
    } catch (error) {
      await fsp.rm(part, { force: true });
      throw error;
    }
    const st = await fsp.stat(dest);
    return { size: st.size };
  }

  async putFile(
    key: string,
    filePath: string,
    opts: { contentType: string; move?: boolean },
  ): Promise<StoredObject> {
    const dest = this.pathOf(key);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    if (opts.move) {
      try {
        await fsp.rename(filePath, dest);
        return { size: (await fsp.stat(dest)).size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
      }
      const stored = await this.put(key, fs.createReadStream(filePath), opts);
      await fsp.rm(filePath, { force: true });
      return stored;
    }
    return this.put(key, fs.createReadStream(filePath), opts);
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const st = await fsp.stat(this.pathOf(key));
      return st.isFile() ? { size: st.size } : null;
    } catch {
      return null;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathOf(key);
    if (!(await this.stat(key))) throw new StorageNotFoundError(key);
    return fs.createReadStream(file, range ? { start: range.start, end: range.end } : {});
  }

  async toLocalFile(key: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
    if (!(await this.stat(key))) throw new StorageNotFoundError(key);
    return { path: this.pathOf(key), cleanup: async () => {} };
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    const clean = prefix.replace(/\/+$/, "");
    await fsp.rm(this.pathOf(clean), { recursive: true, force: true });
  }

  async listFolder(folder: string): Promise<string[]> {
    const clean = assertSafeKey(folder.replace(/\/+$/, ""));
    try {
      const entries = await fsp.readdir(this.pathOf(clean), { withFileTypes: true });
      // (a write under way is a .part file: not an object yet)
      return entries.filter((e) => e.isFile() && !e.name.endsWith(".part")).map((e) => `${clean}/${e.name}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }
}
