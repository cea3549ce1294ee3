import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { avatarVideos } from "../../src/server/db/schema/avatar";
import { mediaItems } from "../../src/server/db/schema/studio";
import { createAvatarVideo } from "../../src/server/features/avatar/avatar.service";
import { PgBossJobClient } from "../../src/server/jobs/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { jobRegistry } from "../../src/server/jobs/registry";
import { startBoss, startWorkers } from "../../src/server/jobs/worker";
import { type FakeDid, startFakeDid } from "../fakes/did";
import { createTestApp, signUp, type TestApp } from "../helpers";

/**
 * The avatar polling job on real pg-boss workers (what `npm start` and production run): delayed polls
 * (`startAfter`), dedupe ids, then the studio's processing job, all through the queue.
 */

let t: TestApp;
let did: FakeDid;
let boss: Awaited<ReturnType<typeof startBoss>>;
let deps: JobDeps;

beforeAll(async () => {
  did = await startFakeDid({ apiKey: "boss-key" });
  t = await createTestApp({
    DID_API_KEY: "boss-key",
    DID_API_URL: did.url,
    AVATAR_POLL_INTERVAL_SECONDS: "0.5",
  });
  const registry = jobRegistry.filter((j) => /^(avatar|studio)\./.test(j.name));
  boss = await startBoss(t.env.DATABASE_URL!, registry, { max: 4 });
  deps = {
    db: t.db,
    sql: t.sql,
    env: t.env,
    providers: t.providers,
    jobs: new PgBossJobClient(boss),
    log: t.ctx.log,
  };
  await startWorkers(boss, registry, deps, 2);
});
afterAll(async () => {
  await boss?.stop({ graceful: false, timeout: 2000 });
  await t?.close();
  await did?.close();
});

async function waitForStatus(id: string, ms = 60_000) {
  const until = Date.now() + ms;
  for (;;) {
    const [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.id, id));
    if (row.status === "completed" || row.status === "error") return row;
    if (Date.now() > until) throw new Error(`still ${row.status} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("avatar videos on pg-boss", () => {
  it("polls D-ID on the queue until done, then the library item is processed", async () => {
    const { user } = await signUp(t.app);
    did.setScenario({ pollsBeforeOutcome: 3, outcome: "done" });
    const video = await createAvatarVideo(deps, user.id, "did", { script: "Queued for real" });
    expect(video.status).toBe("created");
    const row = await waitForStatus(video.videoId);
    expect(row.status).toBe("completed");
    expect(row.attempts).toBe(4); // created, started, started, done
    const polls = did.requests.filter((r) => r.path === `/talks/${row.vendorVideoId}`);
    expect(polls).toHaveLength(4);
    // the studio's processing job ran on the queue too
    const until = Date.now() + 30_000;
    let media = (await t.db.select().from(mediaItems).where(eq(mediaItems.id, row.mediaId!)))[0];
    while (media.processingStatus === "processing" && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      media = (await t.db.select().from(mediaItems).where(eq(mediaItems.id, row.mediaId!)))[0];
    }
    expect(media).toMatchObject({ processingStatus: "ready", source: "avatar", workspaceId: user.id });
  });

  it("renders a local avatar video in the worker", async () => {
    const { user } = await signUp(t.app);
    const video = await createAvatarVideo(deps, user.id, "local", {
      script: "Rendered by the pg-boss worker.",
    });
    expect(video.status).toBe("created");
    const row = await waitForStatus(video.videoId, 120_000);
    expect(row.status).toBe("completed");
    expect(row.durationSeconds).toBeGreaterThan(1);
  }, 150_000);
});
