import { randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import {
  assertSafeKey,
  type ByteRange,
  StorageNotFoundError,
  type StorageProvider,
  type StoredObject,
} from "./index";

/** Settings of an S3-compatible bucket (AWS S3, Tigris on Fly, R2, MinIO). */
export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** custom endpoint (Tigris: https://fly.storage.tigris.dev); path-style addressing is used with it */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** folder for spooling streams of unknown length before upload */
  tmpDir: string;
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NotFound" || e?.name === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404;
}

/**
 * S3-compatible object storage through the AWS SDK v3. Uploads stream from disk with a known
 * Content-Length (single PUT, objects here are at most 100 MB); downloads stream (`GetObject` with
 * `Range`). Checksums are only computed where an operation requires them, which every S3-compatible
 * service accepts. A custom endpoint uses path-style URLs (`endpoint/bucket/key`).
 */
export class S3StorageProvider implements StorageProvider {
  readonly name = "s3" as const;
  readonly client: S3Client;
  constructor(private readonly opts: S3StorageOptions) {
    const config: S3ClientConfig = {
      region: opts.region,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    };
    if (opts.endpoint) {
      config.endpoint = opts.endpoint;
      config.forcePathStyle = true;
    }
    if (opts.accessKeyId && opts.secretAccessKey)
      config.credentials = { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey };
    this.client = new S3Client(config);
  }

  async put(key: string, body: Readable, opts: { contentType: string }): Promise<StoredObject> {
    // S3 needs the length up front: spool to disk (constant memory), then upload the file
    await fsp.mkdir(this.opts.tmpDir, { recursive: true });
    const tmp = path.join(this.opts.tmpDir, `s3-${randomUUID()}`);
    try {
      await pipeline(body, fs.createWriteStream(tmp));
      return await this.putFile(key, tmp, { contentType: opts.contentType });
    } finally {
      await fsp.rm(tmp, { force: true });
    }
  }

  async putFile(
    key: string,
    filePath: string,
    opts: { contentType: string; move?: boolean },
  ): Promise<StoredObject> {
    const size = (await fsp.stat(filePath)).size;
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.opts.bucket,
        Key: assertSafeKey(key),
        Body: fs.createReadStream(filePath),
        ContentLength: size,
        ContentType: opts.contentType,
      }),
    );
    if (opts.move) await fsp.rm(filePath, { force: true });
    return { size, contentType: opts.contentType };
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.opts.bucket, Key: assertSafeKey(key) }),
      );
      return { size: Number(head.ContentLength ?? 0), contentType: head.ContentType };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.opts.bucket,
          Key: assertSafeKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = res.Body;
      if (!body) throw new StorageNotFoundError(key);
      return body instanceof Readable ? body : Readable.fromWeb(body as never);
    } catch (error) {
      if (isNotFound(error)) throw new StorageNotFoundError(key);
      throw error;
    }
  }

  async toLocalFile(key: string, tmpDir: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
    await fsp.mkdir(tmpDir, { recursive: true });
    const file = path.join(tmpDir, `s3-${randomUUID()}${path.extname(key)}`);
    try {
      await pipeline(await this.get(key), fs.createWriteStream(file));
    } catch (error) {
      await fsp.rm(file, { force: true });
      throw error;
    }
    return { path: file, cleanup: () => fsp.rm(file, { force: true }) };
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: assertSafeKey(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const base = `${assertSafeKey(prefix.replace(/\/+$/, ""))}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: base, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).map((o) => o.Key).filter((k): k is string => !!k);
      for (let i = 0; i < keys.length; i += 10) {
        await Promise.all(
          keys
            .slice(i, i + 10)
            .map((k) => this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: k }))),
        );
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async listFolder(folder: string): Promise<string[]> {
    const base = `${assertSafeKey(folder.replace(/\/+$/, ""))}/`;
    const keys: string[] = [];
    let token: string | undefined;
    do {
      // Delimiter "/": the folder's own objects in Contents, its sub-folders rolled up in CommonPrefixes
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.opts.bucket,
          Prefix: base,
          Delimiter: "/",
          ContinuationToken: token,
        }),
      );
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }
}
