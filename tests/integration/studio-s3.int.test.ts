import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3StorageProvider } from "../../src/server/providers/storage/s3";
import { createTestApp, SHARED_DATA, SHARED_DATA_MISSING, signUp, type TestApp } from "../helpers";
import { multipart } from "./studio-helpers";
import { startFakeS3 } from "./studio-s3-fake";

const MEDIA = SHARED_DATA ? path.join(SHARED_DATA, "media") : "";

let s3: Awaited<ReturnType<typeof startFakeS3>>;
let t: TestApp;
beforeAll(async () => {
  s3 = await startFakeS3("pitchwise-media");
  t = await createTestApp({
    STORAGE_PROVIDER: "s3",
    S3_BUCKET: "pitchwise-media",
    S3_ENDPOINT: s3.url,
    S3_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "test-key",
    AWS_SECRET_ACCESS_KEY: "test-secret",
  });
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

describe.skipIf(!SHARED_DATA)(
  `S3-compatible storage through the AWS SDK against a local fake (${SHARED_DATA_MISSING})`,
  () => {
    it("stores, processes, serves ranges, edits and deletes media in the bucket", async () => {
      expect(t.providers.storage).toBeInstanceOf(S3StorageProvider);
      const { client, user } = await signUp(t.app);
      const original = fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4"));
      const up = await client.inject({
        method: "POST",
        url: "/api/videos/upload",
        ...multipart({ name: "s3 flower" }, { field: "video", filename: "f.mp4", content: original }),
      });
      expect(up.statusCode, up.body).toBe(200);
      const id = up.json().media.id as number;
      const prefix = `u/${user.id}/m/${id}/`;
      const keys = () => [...s3.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
      expect(keys()).toEqual([
        `${prefix}original.mp4`,
        `${prefix}playback.mp4`,
        `${prefix}poster-v1.jpg`,
        `${prefix}preview-v1.gif`,
      ]);
      expect(s3.objects.get(`${prefix}original.mp4`)?.body.equals(original)).toBe(true);
      expect(s3.objects.get(`${prefix}poster-v1.jpg`)?.contentType).toBe("image/jpeg");

      const m = (await client.get(`/api/media/${id}`)).json().media;
      expect(m).toMatchObject({ processing_status: "ready", width: 960, height: 540 });
      const part = await client.inject({
        method: "GET",
        url: `/api/media/${id}/original`,
        headers: { range: "bytes=100-199" },
      });
      expect(part.statusCode).toBe(206);
      expect(part.rawPayload.equals(original.subarray(100, 200))).toBe(true);
      expect(s3.requests.some((r) => r.method === "GET" && r.range === "bytes=100-199")).toBe(true);

      const edit = await client.post("/api/media/edit/trim", {
        mediaId: id,
        startTime: 0,
        endTime: 2,
        quality: "source",
      });
      expect(edit.json().edit.status).toBe("done");
      expect(keys()).toContain(`${prefix}edit-${edit.json().edit.id}.mp4`);
      const after = (await client.get(`/api/media/${id}`)).json().media;
      expect(after.duration).toBeGreaterThan(1.9);
      expect(after.duration).toBeLessThan(2.2);

      expect((await client.del(`/api/media/${id}`)).statusCode).toBe(200);
      expect(keys()).toEqual([]);
      expect(fs.readdirSync(path.join(t.env.DATA_DIR, "tmp"))).toEqual([]);
    });

    it("a refused upload leaves nothing in the bucket", async () => {
      const { client, user } = await signUp(t.app);
      const res = await client.inject({
        method: "POST",
        url: "/api/videos/upload",
        ...multipart(
          {},
          { field: "video", filename: "x.mp4", content: Buffer.from("not a video".repeat(100)) },
        ),
      });
      expect(res.statusCode).toBe(415);
      expect([...s3.objects.keys()].some((k) => k.startsWith(`u/${user.id}/`))).toBe(false);
    });
  },
);

describe("S3 storage folder listing (ListObjectsV2 with a delimiter, against the fake)", () => {
  it("lists the objects directly in a folder, not those of its sub-folders", async () => {
    const storage = t.providers.storage;
    const put = (key: string) =>
      storage.put(key, Readable.from([Buffer.from(key)]), { contentType: "audio/mpeg" });
    await put("listing-test/1-2-aaa.mp3");
    await put("listing-test/3-4-bbb.mp3");
    await put("listing-test/ws-1/5-6-ccc.mp3");
    await put("listing-test-other/7.mp3");
    expect((await storage.listFolder("listing-test")).sort()).toEqual([
      "listing-test/1-2-aaa.mp3",
      "listing-test/3-4-bbb.mp3",
    ]);
    expect(await storage.listFolder("listing-test/ws-1")).toEqual(["listing-test/ws-1/5-6-ccc.mp3"]);
    expect(await storage.listFolder("no-such-folder")).toEqual([]);
  });
});
