import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { usageMeters, workspaces } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp } from "../helpers";

/**
 * The setup shared by the v1 video campaign tests (api-v1-video.int.test.ts: library videos,
 * api-v1-video-avatar.int.test.ts: avatar scripts): one test app for the file, Business workspaces
 * with an API key, the local email outbox, the video messages meter.
 */

/** Recipient statuses of a message that went out (the local providers simulate the later ones). */
export const SENT = ["sent", "delivered", "opened", "clicked"];
/** How many recipients of a campaign's `counts` got their message (any status of SENT). */
export const sentCount = (counts: Record<string, number>) => SENT.reduce((a, st) => a + (counts[st] ?? 0), 0);
/** A recipient's landing page link in a video email; group 1 is the page's token. */
export const LANDING_LINK = /http:\/\/localhost:80\/v\/([a-z0-9]+)/;

/** The scopes a library-video campaign needs (and the contacts it reaches). */
export const V1_VIDEO_SCOPES = [
  "contacts:read",
  "contacts:write",
  "campaigns:read",
  "campaigns:write",
  "media:read",
];

/**
 * Registers the file's beforeAll/afterAll (a test app over the test Postgres, closed after the file)
 * and returns its helpers. `owner` is who signs up for each workspace `keyed` makes (their name is in
 * the messages the campaigns send). `t` is the test app, set once beforeAll has run.
 */
export function setupV1VideoApp(owner: { name: string; business_name: string }) {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => app?.close());

  const s = {
    get t(): TestApp {
      if (!app) throw new Error("the v1 video test app is made in beforeAll");
      return app;
    },

    /** A Business workspace (API access and video campaigns) with a key of `scopes`; `call` uses it on /api/v1. */
    async keyed(scopes: string[] = V1_VIDEO_SCOPES) {
      const t = s.t;
      const u = await signUp(t.app, owner);
      await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
      const res = await u.client.post("/api/api-keys", { name: "CI", scopes });
      expect(res.statusCode, res.body).toBe(200);
      const key = res.json().key as string;
      const call = (method: string, url: string, payload?: unknown) =>
        t.app.inject({
          method: method as "GET",
          url: `/api/v1${url}`,
          headers: { authorization: `Bearer ${key}` },
          ...(payload !== undefined ? { payload: payload as object } : {}),
        });
      return { ...u, key, call };
    },

    /** The local email outbox of `to`, newest first. */
    async outbox(to: string) {
      const res = await s.t.app.inject({
        method: "GET",
        url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(to)}`,
      });
      return res.json().messages as { subject: string; body: string; html: string | null }[];
    },

    /** Video messages used in the workspace's meter (all periods). */
    async videoMeter(workspaceId: string) {
      const rows = await s.t.db
        .select()
        .from(usageMeters)
        .where(and(eq(usageMeters.workspaceId, workspaceId), eq(usageMeters.meter, "videoMessages")));
      return rows.reduce((a, r) => a + r.used, 0);
    },
  };
  return s;
}
