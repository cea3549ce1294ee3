import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mediaEdits } from "../../src/server/db/schema";
import { renderEditJob } from "../../src/server/features/studio/studio.jobs";
import { applyAdvanced, applyTrim, type StudioDeps } from "../../src/server/features/studio/studio.service";
import type { JobClient } from "../../src/server/jobs/client";
import { handlerOf } from "../../src/server/jobs/registry";
import { resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";
import { type AuthedClient, createTestApp, signUp, type TestApp } from "../helpers";
import { multipart } from "./studio-helpers";

// Renders a tenant can ask for: how many at once, and how long (CPU, time and disk they cost).

const bins = resolveFfmpegBinaries({});
let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-render-limits-"));
});
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A small H.264/AAC MP4 made here: `seconds` of a 64x64 test picture and a tone. */
async function makeClip(name: string, seconds: number): Promise<string> {
  const out = path.join(dir, name);
  await runFfmpeg(bins, {
    globalOptions: ["-f", "lavfi", "-i", `testsrc=s=64x64:r=10:d=${seconds}`, "-f", "lavfi"],
    inputs: [{ path: `sine=f=440:d=${seconds}` }],
    outputs: [{ path: out, options: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"] }],
  });
  return out;
}

async function uploadVideo(client: AuthedClient, file: string): Promise<number> {
  const res = await client.inject({
    method: "POST",
    url: "/api/videos/upload",
    ...multipart(
      { name: path.basename(file) },
      { field: "video", filename: path.basename(file), content: fs.readFileSync(file) },
    ),
  });
  expect(res.statusCode, res.body).toBe(200);
  const media = res.json().media;
  const ready = (await client.get(`/api/media/${media.id}`)).json().media;
  expect(ready.processing_status, ready.processing_error).toBe("ready");
  return media.id;
}

/** The app's services as a web process runs them: jobs are queued for a worker, not run here. */
function enqueueOnly(): StudioDeps & { queued: unknown[] } {
  const queued: unknown[] = [];
  const jobs: JobClient = {
    send: async (_job, data) => {
      queued.push(data);
      return `job-${queued.length}`;
    },
    sendMany: async (_job, items) => {
      for (const i of items) queued.push(i.data);
    },
  };
  return { db: t.db, env: t.env, providers: t.providers, log: t.ctx.log, jobs, queued };
}

describe("one edit of a media item at a time", () => {
  let client: AuthedClient;
  let workspaceId: string;
  let mediaId: number;
  beforeAll(async () => {
    let user: { id: string };
    ({ client, user } = await signUp(t.app));
    workspaceId = user.id;
    mediaId = await uploadVideo(client, await makeClip("two-seconds.mp4", 2));
  });

  const edits = async () => t.db.select().from(mediaEdits).where(eq(mediaEdits.mediaId, mediaId));

  it("an edit still queued for the worker refuses the next one (409); once rendered, editing goes on", async () => {
    const deps = enqueueOnly();
    const first = await applyTrim(deps, workspaceId, { mediaId, startTime: 0, endTime: 1.5 });
    expect(first.status).toBe("queued");
    const again = applyTrim(deps, workspaceId, { mediaId, startTime: 0, endTime: 1, speed: 0.5 });
    await expect(again).rejects.toMatchObject({
      code: "CONFLICT",
      message: "An edit of this media is still rendering. Please wait for it to finish.",
    });
    const advanced = applyAdvanced(deps, workspaceId, { mediaId, startTime: 0, endTime: 1, cuts: [0.5] });
    await expect(advanced).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await edits()).toHaveLength(1);
    expect(deps.queued).toHaveLength(1);

    // the REST route answers the same while it waits
    const rest = await client.post("/api/media/edit/trim", { mediaId, startTime: 0, endTime: 1 });
    expect(rest.statusCode).toBe(409);

    // the worker renders it; the next edit is accepted
    const jobDeps = { ...deps, sql: t.sql, jobs: t.jobs };
    await handlerOf(renderEditJob).handler({ editId: first.id }, jobDeps, { id: "r1", retryCount: 0 });
    const next = await client.post("/api/media/edit/trim", { mediaId, startTime: 0, endTime: 1 });
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().edit.status).toBe("done");
  });

  it("of 6 edit requests at once, one is queued and the others are refused", async () => {
    const deps = enqueueOnly();
    const before = (await edits()).length;
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        applyTrim(deps, workspaceId, { mediaId, startTime: 0, endTime: 0.5 + i * 0.05 }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "CONFLICT" });
    expect((await edits()).length).toBe(before + 1);
    expect(deps.queued).toHaveLength(1);
  });
});
