import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { avatarVideos } from "../../src/server/db/schema/avatar";
import {
  type AvatarDeps,
  createAvatarVideo,
  MAX_IN_PROGRESS_PER_USER,
} from "../../src/server/features/avatar/avatar.service";
import type { JobClient } from "../../src/server/jobs/client";
import { createTestApp, signUp, type TestApp } from "../helpers";

// The cap on a workspace's avatar videos in progress (each costs vendor credits or a local render)
// holds for requests that arrive together, not only one after another.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** The app's services as a web process runs them: the local render is queued for a worker, not run here. */
function enqueueOnly(): AvatarDeps {
  const jobs: JobClient = { send: async () => "job", sendMany: async () => {} };
  return { db: t.db, env: t.env, providers: t.providers, log: t.ctx.log, jobs };
}

describe("avatar videos in progress per workspace", () => {
  it(`of 12 requests at once, ${MAX_IN_PROGRESS_PER_USER} start and the others get the 429 sentence`, async () => {
    const { user } = await signUp(t.app);
    const deps = enqueueOnly();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        createAvatarVideo(deps, user.id, "local", { script: `Hello number ${i}` }, user.id),
      ),
    );
    const started = results.filter((r) => r.status === "fulfilled");
    expect(started).toHaveLength(MAX_IN_PROGRESS_PER_USER);
    for (const r of results)
      if (r.status === "rejected")
        expect(r.reason).toMatchObject({
          code: "TOO_MANY_REQUESTS",
          message: `You already have ${MAX_IN_PROGRESS_PER_USER} avatar videos in progress. Please wait for one to finish.`,
        });
    const rows = await t.db.select().from(avatarVideos).where(eq(avatarVideos.workspaceId, user.id));
    expect(rows).toHaveLength(MAX_IN_PROGRESS_PER_USER);
  });
});
