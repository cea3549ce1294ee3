import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthedClient,
  createTestApp,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  signUp,
  type TestApp,
} from "../helpers";
import { multipart } from "./studio-helpers";

/** Issue 14 section 4: the video editor saves a new version; the original is kept and restorable. */
const MEDIA = SHARED_DATA ? path.join(SHARED_DATA, "media") : "";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const q = (input: unknown) => `input=${encodeURIComponent(JSON.stringify({ json: input }))}`;

async function uploadFlower(client: AuthedClient) {
  const body = multipart(
    { name: "flower" },
    { field: "video", filename: "flower.mp4", content: fs.readFileSync(path.join(MEDIA, "mdn-flower.mp4")) },
  );
  return (await client.inject({ method: "POST", url: "/api/videos/upload", ...body })).json().media;
}

describe.skipIf(!SHARED_DATA)(`media versions (${SHARED_DATA_MISSING})`, () => {
  it("an edit adds a version, the original stays playable, revert makes it current again, tenants are isolated", {
    timeout: 600_000,
  }, async () => {
    const { client } = await signUp(t.app);
    const m = await uploadFlower(client);
    const versions = async (c = client) => {
      const res = await c.get(`/trpc/studio.versions?${q({ id: m.id })}`);
      return { status: res.statusCode, list: res.json().result?.data.json };
    };
    const before = await versions();
    expect(before.list).toHaveLength(1);
    expect(before.list[0]).toMatchObject({ id: "original", label: "Original", current: true, number: 1 });
    const originalDuration = before.list[0].duration as number;
    expect(originalDuration).toBeGreaterThan(4);

    const edit = await client.post("/trpc/studio.trim", {
      json: { mediaId: m.id, startTime: 0, endTime: 2 },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const editId = edit.json().result.data.json.id as number;

    const after = await versions();
    expect(after.list.map((v: { id: unknown; current: boolean }) => [v.id, v.current])).toEqual([
      ["original", false],
      [editId, true],
    ]);
    expect(after.list[1]).toMatchObject({ label: "Edit 1", mode: "trim", number: 2 });
    expect(after.list[1].duration).toBeLessThan(2.2);
    const item = (await client.get(`/api/media/${m.id}`)).json().media;
    expect(item.duration).toBeLessThan(2.2);

    // both versions' files are served, with ranges
    const origFile = await client.get(after.list[0].url);
    expect(origFile.statusCode).toBe(200);
    const editFile = await client.get(after.list[1].url);
    expect(editFile.statusCode).toBe(200);
    expect(editFile.rawPayload.length).toBeLessThan(origFile.rawPayload.length);
    const current = await client.get(`/api/media/${m.id}/file`);
    expect(current.rawPayload.equals(editFile.rawPayload)).toBe(true);

    // another workspace sees nothing
    const other = await signUp(t.app);
    expect((await versions(other.client)).status).toBe(404);
    expect((await other.client.get(after.list[0].url)).statusCode).toBe(404);
    const otherRestore = await other.client.post("/trpc/studio.restoreVersion", {
      json: { id: m.id, version: "original" },
    });
    expect(otherRestore.statusCode).toBe(404);
    expect((await client.get(`/api/media/${m.id}/versions/999999/file`)).statusCode).toBe(404);
    expect((await client.get(`/api/media/${m.id}/versions/nope/file`)).statusCode).toBe(400);

    // revert to the original: current again, the edit is kept and can be restored
    const restore = await client.post("/trpc/studio.restoreVersion", {
      json: { id: m.id, version: "original" },
    });
    expect(restore.statusCode, restore.body).toBe(200);
    const restored = restore.json().result.data.json;
    expect(restored.version).toBeGreaterThan(item.version);
    expect(restored.duration).toBeCloseTo(originalDuration, 1);
    const reverted = await versions();
    expect(reverted.list.map((v: { current: boolean }) => v.current)).toEqual([true, false]);
    const playing = await client.get(`/api/media/${m.id}/file`);
    expect(playing.rawPayload.equals(origFile.rawPayload)).toBe(true);

    // an edit after a revert starts from the restored version and adds a third version
    const again = await client.post("/trpc/studio.trim", {
      json: { mediaId: m.id, startTime: 1, endTime: 4 },
    });
    expect(again.statusCode, again.body).toBe(200);
    const three = await versions();
    expect(three.list).toHaveLength(3);
    expect(three.list[2]).toMatchObject({ label: "Edit 2", current: true });
    expect(three.list[2].duration).toBeGreaterThan(2.8);

    const back = await client.post("/trpc/studio.restoreVersion", { json: { id: m.id, version: editId } });
    expect(back.statusCode).toBe(200);
    expect((await versions()).list.map((v: { current: boolean }) => v.current)).toEqual([false, true, false]);
  });
});
