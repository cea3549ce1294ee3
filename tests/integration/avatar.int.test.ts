import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { avatarVideos } from "../../src/server/db/schema/avatar";
import { mediaItems } from "../../src/server/db/schema/studio";
import { type FakeDid, startFakeDid } from "../fakes/did";
import { type FakeHeygen, startFakeHeygen } from "../fakes/heygen";
import { type AuthedClient, createTestApp, signUp, type TestApp } from "../helpers";

/**
 * The whole avatar path through the REST API: create -> poll (pg-boss job, run here by the inline
 * client) -> download from the vendor (fakes of D-ID and HeyGen) -> Pitchwise storage -> studio media
 * processing -> library. The client only ever asks Pitchwise.
 */

let t: TestApp;
let did: FakeDid;
let heygen: FakeHeygen;

beforeAll(async () => {
  did = await startFakeDid({ apiKey: "did-test-key" });
  heygen = await startFakeHeygen({ apiKey: "heygen-test-key" });
  t = await createTestApp({
    DID_API_KEY: "did-test-key",
    DID_API_URL: did.url,
    HEYGEN_API_KEY: "heygen-test-key",
    HEYGEN_API_URL: heygen.url,
  });
});
afterAll(async () => {
  await t?.close();
  await did?.close();
  await heygen?.close();
});

/** Runs the queued polls (as pg-boss would every 5 s) until the video leaves created/processing. */
async function pollUntilSettled(client: AuthedClient, provider: string, videoId: string, maxRounds = 12) {
  const seen: string[] = [];
  for (let i = 0; i < maxRounds; i++) {
    const res = await client.get(`/api/videos/status/${provider}/${videoId}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    seen.push(body.status);
    if (body.status === "completed" || body.status === "error") return { body, seen };
    const ran = await t.jobs.runDeferred();
    expect(ran).toBeGreaterThan(0);
  }
  throw new Error(`still not settled after ${maxRounds} rounds: ${seen.join(",")}`);
}

const vendorPolls = (fake: FakeDid | FakeHeygen, pathPrefix: string) =>
  fake.requests.filter((r) => r.method === "GET" && r.path.startsWith(pathPrefix)).length;

describe("D-ID through Pitchwise", () => {
  it("creates, polls every interval, downloads into storage and lists the video in the library", async () => {
    const { client, user } = await signUp(t.app);
    did.setScenario({ pollsBeforeOutcome: 2, outcome: "done" });
    const res = await client.post("/api/videos/create/did", { script: "Hello from the D-ID test" });
    expect(res.statusCode).toBe(200);
    const created = res.json();
    expect(created).toMatchObject({
      success: true,
      provider: "did",
      status: "created",
      error: null,
      videoUrl: null,
    });
    expect(created.videoId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.vendorVideoId).toMatch(/^tlk_/);

    // the first poll is queued 5 s out (AVATAR_POLL_INTERVAL_SECONDS)
    const deferred = t.jobs.deferred.at(-1)!;
    expect(deferred.job.name).toBe("avatar.poll-video");
    const delay = deferred.options.startAfter!.getTime() - Date.now();
    expect(delay).toBeGreaterThan(3500);
    expect(delay).toBeLessThanOrEqual(5000);

    const { body, seen } = await pollUntilSettled(client, "did", created.videoId);
    expect(seen).toEqual(["created", "created", "processing", "completed"]);
    expect(body).toMatchObject({ success: true, status: "completed", error: null });
    expect(body.videoUrl).toBe(`/api/media/${body.mediaId}/file`);

    // the library has it, processed by the studio pipeline
    const list = (await client.get("/api/media/list")).json();
    const item = list.media.find((m: { id: number }) => m.id === body.mediaId);
    expect(item).toMatchObject({
      type: "video",
      source: "avatar",
      name: "AI avatar: Hello from the D-ID test",
    });
    const [row] = await t.db.select().from(mediaItems).where(eq(mediaItems.id, body.mediaId));
    expect(row.workspaceId).toBe(user.id);
    expect(row.processingStatus).toBe("ready");
    expect(row.durationSeconds).toBeCloseTo(2, 0);

    // and it is offered in the video campaign picker
    const picker = (await client.get("/api/videos/my-videos")).json();
    expect(picker.videos.map((v: { id: number }) => v.id)).toContain(body.mediaId);

    // it plays from Pitchwise even after the vendor link expired
    did.expireResults();
    const file = await client.get(body.videoUrl);
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toMatch(/^video\/mp4/);
    expect(file.rawPayload.length).toBeGreaterThan(1000);

    // status reads come from Pitchwise, never the vendor
    const before = vendorPolls(did, "/talks/");
    for (let i = 0; i < 3; i++) await client.get(`/api/videos/status/did/${created.videoId}`);
    expect(vendorPolls(did, "/talks/")).toBe(before);
    // the vendor's id works in the status path too
    const byVendorId = await client.get(`/api/videos/status/did/${created.vendorVideoId}`);
    expect(byVendorId.json()).toMatchObject({ videoId: created.videoId, status: "completed" });
  });

  it("records the vendor's failure with its reason and stores nothing", async () => {
    const { client, user } = await signUp(t.app);
    did.setScenario({ pollsBeforeOutcome: 1, outcome: "error" });
    const created = (await client.post("/api/videos/create/did", { script: "This one fails" })).json();
    const { body } = await pollUntilSettled(client, "did", created.videoId);
    expect(body).toMatchObject({
      status: "error",
      videoUrl: null,
      error: "D-ID could not render the video: Failed to detect a face in the source image",
    });
    const media = await t.db.select().from(mediaItems).where(eq(mediaItems.workspaceId, user.id));
    expect(media).toHaveLength(0);
  });

  it("answers 502 with the vendor's reason when D-ID refuses the request", async () => {
    const { client } = await signUp(t.app);
    const res = await client.post("/api/videos/create/did", { script: "INSUFFICIENT_CREDITS here" });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({
      success: false,
      provider: "did",
      status: "error",
      error: "D-ID: the account has no credits left",
    });
    // the failed attempt is kept with its reason
    const status = await client.get(`/api/videos/status/did/${res.json().videoId}`);
    expect(status.json()).toMatchObject({ status: "error", error: "D-ID: the account has no credits left" });
  });

  it("backs off on transient vendor errors and recovers", async () => {
    const { client } = await signUp(t.app);
    did.setScenario({ pollsBeforeOutcome: 0, outcome: "done" });
    const created = (await client.post("/api/videos/create/did", { script: "Flaky network" })).json();
    did.failNext(2, 503);
    await t.jobs.runDeferred();
    let [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.id, created.videoId));
    expect(row.transientFailures).toBe(1);
    let wait = (row.nextPollAt!.getTime() - Date.now()) / 1000;
    expect(wait).toBeGreaterThan(8); // 5 s x 2
    expect(wait).toBeLessThanOrEqual(10);
    await t.jobs.runDeferred();
    [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.id, created.videoId));
    expect(row.transientFailures).toBe(2);
    wait = (row.nextPollAt!.getTime() - Date.now()) / 1000;
    expect(wait).toBeGreaterThan(18); // 5 s x 4
    expect(wait).toBeLessThanOrEqual(20);
    expect((await client.get(`/api/videos/status/did/${created.videoId}`)).json().status).toBe("created");
    const { body } = await pollUntilSettled(client, "did", created.videoId);
    expect(body.status).toBe("completed");
  });
});

describe("HeyGen through Pitchwise", () => {
  it("walks waiting/pending/processing to completed and stores the video", async () => {
    const { client } = await signUp(t.app);
    heygen.setScenario({ pollsBeforeOutcome: 3, outcome: "completed" });
    const res = await client.post("/api/videos/create/heygen", {
      script: "Premium hello",
      title: "My HeyGen intro",
    });
    expect(res.statusCode).toBe(200);
    const created = res.json();
    expect(created).toMatchObject({ success: true, provider: "heygen", status: "created" });
    const { body, seen } = await pollUntilSettled(client, "heygen", created.videoId);
    expect(seen).toEqual(["created", "created", "created", "processing", "completed"]);
    const list = (await client.get("/api/media/list")).json();
    expect(list.media.map((m: { name: string }) => m.name)).toContain("My HeyGen intro");
    heygen.expireResults();
    const file = await client.get(body.videoUrl);
    expect(file.statusCode).toBe(200);
  });

  it("retries a failed download on the next poll with a fresh link", async () => {
    const { client } = await signUp(t.app);
    heygen.setScenario({ pollsBeforeOutcome: 0, outcome: "completed" });
    const created = (await client.post("/api/videos/create/heygen", { script: "Expired link" })).json();
    heygen.failDownloads(1);
    await t.jobs.runDeferred();
    const [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.id, created.videoId));
    expect(row.status).toBe("processing");
    expect(row.transientFailures).toBe(1);
    const { body } = await pollUntilSettled(client, "heygen", created.videoId);
    expect(body.status).toBe("completed");
    const downloads = heygen.requests.filter((r) => r.path.startsWith(`/files/${row.vendorVideoId}.mp4`));
    expect(downloads).toHaveLength(2);
    expect(downloads[0].path).not.toBe(downloads[1].path); // a fresh signed link the second time
  });

  it("fails a video with the vendor's error", async () => {
    const { client } = await signUp(t.app);
    heygen.setScenario({ pollsBeforeOutcome: 1, outcome: "failed" });
    const created = (await client.post("/api/videos/create/heygen", { script: "Bad avatar" })).json();
    const { body } = await pollUntilSettled(client, "heygen", created.videoId);
    expect(body.error).toBe(
      "HeyGen could not render the video: Avatar rendering failed (The avatar could not be rendered)",
    );
  });
});

describe("time limit", () => {
  it("fails a video that is still processing at its deadline", async () => {
    const short = await createTestApp({
      HEYGEN_API_KEY: "heygen-test-key",
      HEYGEN_API_URL: heygen.url,
      AVATAR_POLL_TIMEOUT_SECONDS: "2",
    });
    try {
      const { client } = await signUp(short.app);
      heygen.setScenario({ outcome: "stuck" });
      const created = (await client.post("/api/videos/create/heygen", { script: "Never finishes" })).json();
      await short.jobs.runDeferred();
      expect((await client.get(`/api/videos/status/heygen/${created.videoId}`)).json().status).toBe(
        "processing",
      );
      // the next poll would land after the deadline: one last poll is queued at the deadline
      const last = short.jobs.deferred.at(-1)!;
      const [row] = await short.db.select().from(avatarVideos).where(eq(avatarVideos.id, created.videoId));
      expect(last.options.startAfter!.getTime()).toBe(row.deadlineAt.getTime() + 1000);
      await new Promise((r) => setTimeout(r, 2100));
      await short.jobs.runDeferred();
      const after = (await client.get(`/api/videos/status/heygen/${created.videoId}`)).json();
      expect(after).toMatchObject({
        status: "error",
        error: "Video generation timed out after 2 seconds",
        videoUrl: null,
      });
      expect(short.jobs.deferred).toHaveLength(0); // polling stopped
    } finally {
      await short.close();
      heygen.setScenario({ outcome: "completed", pollsBeforeOutcome: 3 });
    }
  });
});

describe("local avatar through Pitchwise", () => {
  it("renders offline, stores the video in the library with the speech's duration", async () => {
    const { client } = await signUp(t.app);
    const res = await client.post("/api/videos/create/local", {
      script: "Hello! This is the local preview avatar. It works without any vendor.",
    });
    expect(res.statusCode).toBe(200);
    const created = res.json();
    expect(created.provider).toBe("local");
    // the inline job client rendered it during the request; with pg-boss it starts as "created"
    const status = (await client.get(`/api/videos/status/local/${created.videoId}`)).json();
    expect(status.status).toBe("completed");
    const [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.id, created.videoId));
    const [media] = await t.db.select().from(mediaItems).where(eq(mediaItems.id, row.mediaId!));
    expect(media.source).toBe("avatar");
    expect(media.processingStatus).toBe("ready");
    expect(media.width).toBe(1280);
    expect(Math.abs(media.durationSeconds! - row.durationSeconds!)).toBeLessThan(0.1);
    expect(row.durationSeconds).toBeGreaterThan(3);
    const file = await client.get(status.videoUrl);
    expect(file.statusCode).toBe(200);
  }, 120_000);
});

describe("input and access rules", () => {
  it("validates the script and the provider with clear messages", async () => {
    const { client } = await signUp(t.app);
    for (const body of [{ script: "   " }, {}, { script: 42 }]) {
      const res = await client.post("/api/videos/create/did", body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: "Please enter a script" });
    }
    const long = await client.post("/api/videos/create/heygen", { script: "a".repeat(5001) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toBe("The script must be at most 5000 characters");
    const unknown = await client.post("/api/videos/create/synthesia", { script: "hi" });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toBe("Unknown avatar provider (use did, heygen or local)");
    const badId = await client.get("/api/videos/status/did/..%2F..%2Fetc");
    expect(badId.statusCode).toBe(400);
    const notJson = await client.inject({
      method: "POST",
      url: "/api/videos/create/did",
      payload: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.statusCode).toBe(400);
  });

  it("accepts the spec's 'd-id' spelling", async () => {
    const { client } = await signUp(t.app);
    const res = await client.post("/api/videos/create/d-id", { script: "Spelled with a dash" });
    expect(res.json()).toMatchObject({ success: true, provider: "did" });
    expect((await client.get(`/api/videos/status/d-id/${res.json().videoId}`)).statusCode).toBe(200);
  });

  it("requires a session, and never shows another account's video", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const created = (await a.client.post("/api/videos/create/did", { script: "Private" })).json();
    expect((await b.client.get(`/api/videos/status/did/${created.videoId}`)).statusCode).toBe(404);
    expect((await b.client.get(`/api/videos/status/did/${created.vendorVideoId}`)).statusCode).toBe(404);
    expect((await a.client.get(`/api/videos/status/heygen/${created.videoId}`)).statusCode).toBe(404);
    const anon = await t.app.inject({
      method: "POST",
      url: "/api/videos/create/did",
      payload: { script: "x" },
    });
    expect(anon.statusCode).toBe(401);
    const anonStatus = await t.app.inject({
      method: "GET",
      url: `/api/videos/status/did/${created.videoId}`,
    });
    expect(anonStatus.statusCode).toBe(401);
  });

  it("limits videos in progress per user", async () => {
    const { client } = await signUp(t.app);
    did.setScenario({ outcome: "stuck" });
    try {
      for (let i = 0; i < 5; i++)
        expect((await client.post("/api/videos/create/did", { script: `Video ${i}` })).statusCode).toBe(200);
      const sixth = await client.post("/api/videos/create/did", { script: "One too many" });
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json().error).toBe(
        "You already have 5 avatar videos in progress. Please wait for one to finish.",
      );
    } finally {
      did.setScenario({ outcome: "done", pollsBeforeOutcome: 2 });
    }
  });

  it("says when a vendor is not configured", async () => {
    const bare = await createTestApp();
    try {
      const { client } = await signUp(bare.app);
      const res = await client.post("/api/videos/create/heygen", { script: "hello" });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toBe(
        "HeyGen is not configured on this server (set HEYGEN_API_KEY); choose another provider",
      );
    } finally {
      await bare.close();
    }
  });
});

describe("tRPC avatar router", () => {
  it("lists providers, creates and reads a video", async () => {
    const { client } = await signUp(t.app);
    const providers = await client.get("/trpc/avatar.providers");
    expect(providers.statusCode).toBe(200);
    expect(providers.json().result.data.json).toEqual([
      { name: "local", label: "Local preview avatar (offline)", configured: true, isDefault: true },
      { name: "did", label: "D-ID (standard quality)", configured: true, isDefault: false },
      { name: "heygen", label: "HeyGen (premium quality)", configured: true, isDefault: false },
    ]);
    did.setScenario({ pollsBeforeOutcome: 2, outcome: "done" });
    const created = await client.post("/trpc/avatar.create", {
      json: { provider: "did", script: "Via tRPC" },
    });
    expect(created.statusCode).toBe(200);
    const video = created.json().result.data.json;
    expect(video).toMatchObject({ provider: "did", status: "created", script: "Via tRPC" });
    const input = encodeURIComponent(JSON.stringify({ json: { provider: "did", videoId: video.videoId } }));
    const status = await client.get(`/trpc/avatar.status?input=${input}`);
    expect(status.json().result.data.json.status).toBe("created");
    const list = await client.get("/trpc/avatar.list");
    expect(list.json().result.data.json.map((v: { videoId: string }) => v.videoId)).toContain(video.videoId);
    const blank = await client.post("/trpc/avatar.create", { json: { provider: "did", script: "" } });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error.json.message).toBe("Please enter a script");
  });
});
