import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DidAvatarProvider } from "../../src/server/providers/avatar/did";
import { HeygenAvatarProvider } from "../../src/server/providers/avatar/heygen";
import { ProviderError } from "../../src/server/providers/errors";
import { type FakeDid, startFakeDid } from "../fakes/did";
import { type FakeHeygen, startFakeHeygen } from "../fakes/heygen";

/** The vendor clients over fetch against local fakes of the D-ID and HeyGen APIs (no database). */

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error("expected a ProviderError");
}

describe("D-ID client", () => {
  let fake: FakeDid;
  let did: DidAvatarProvider;
  beforeAll(async () => {
    fake = await startFakeDid({ apiKey: "did-key-123" });
    did = new DidAvatarProvider({
      apiKey: "did-key-123",
      baseUrl: fake.url,
      sourceUrl: "https://example.com/presenter.jpg",
      voiceId: "en-US-JennyNeural",
    });
  });
  afterAll(() => fake.close());

  it("creates a talk with Basic auth and a text script, then walks created -> started -> done", async () => {
    fake.setScenario({ pollsBeforeOutcome: 2, outcome: "done" });
    const created = await did.create({ script: "Hello from Pitchwise", title: "Hello" });
    expect(created.vendorVideoId).toMatch(/^tlk_/);
    expect(created.vendorStatus).toBe("created");
    const post = fake.requests.find((r) => r.method === "POST" && r.path === "/talks");
    expect(post?.headers.authorization).toBe("Basic did-key-123");
    expect(post?.body).toMatchObject({
      source_url: "https://example.com/presenter.jpg",
      script: {
        type: "text",
        input: "Hello from Pitchwise",
        provider: { type: "microsoft", voice_id: "en-US-JennyNeural" },
      },
    });
    const s1 = await did.getStatus(created.vendorVideoId);
    expect(s1).toMatchObject({ phase: "queued", vendorStatus: "created" });
    const s2 = await did.getStatus(created.vendorVideoId);
    expect(s2).toMatchObject({ phase: "rendering", vendorStatus: "started" });
    const s3 = await did.getStatus(created.vendorVideoId);
    expect(s3.phase).toBe("done");
    expect(s3.videoUrl).toBe(`${fake.url}/results/${created.vendorVideoId}.mp4`);
    expect(s3.durationSeconds).toBe(2);
  });

  it("maps error and rejected talks to failed with a reason", async () => {
    fake.setScenario({ pollsBeforeOutcome: 0, outcome: "error" });
    const a = await did.create({ script: "x", title: "x" });
    expect(await did.getStatus(a.vendorVideoId)).toEqual({
      phase: "failed",
      vendorStatus: "error",
      error: "D-ID could not render the video: Failed to detect a face in the source image",
    });
    fake.setScenario({ pollsBeforeOutcome: 0, outcome: "rejected" });
    const b = await did.create({ script: "x", title: "x" });
    expect(await did.getStatus(b.vendorVideoId)).toMatchObject({
      phase: "failed",
      error: "D-ID rejected the video (content moderation)",
    });
  });

  it("maps D-ID error bodies to clear, classified errors", async () => {
    const wrongKey = new DidAvatarProvider({
      apiKey: "nope",
      baseUrl: fake.url,
      sourceUrl: "https://e.com/a.jpg",
      voiceId: "v",
    });
    const auth = await providerError(wrongKey.create({ script: "hi", title: "t" }));
    expect(auth.message).toBe("D-ID: the API key was rejected (check the key in the environment)");
    expect(auth.transient).toBe(false);
    expect(auth.httpStatus).toBe(401);

    const credits = await providerError(did.create({ script: "INSUFFICIENT_CREDITS please", title: "t" }));
    expect(credits.message).toBe("D-ID: the account has no credits left");
    expect(credits.httpStatus).toBe(402);
    expect(credits.vendorCode).toBe("InsufficientCreditsError");

    const noSource = new DidAvatarProvider({
      apiKey: "did-key-123",
      baseUrl: fake.url,
      sourceUrl: "",
      voiceId: "v",
    });
    const validation = await providerError(noSource.create({ script: "hi", title: "t" }));
    expect(validation.message).toBe("D-ID: validation failed (body.source_url: 'source_url' is required)");
    expect(validation.transient).toBe(false);

    fake.failNext(1, 503);
    const down = await providerError(did.create({ script: "hi", title: "t" }));
    expect(down.transient).toBe(true);
    expect(down.message).toBe("D-ID: Internal server error");

    fake.failNext(1, 429);
    const limited = await providerError(did.getStatus("tlk_x"));
    expect(limited.transient).toBe(true);
    expect(limited.httpStatus).toBe(429);

    const missing = await providerError(did.getStatus("tlk_missing"));
    expect(missing).toMatchObject({ transient: false, httpStatus: 404, message: "D-ID: Talk not found" });
  });

  it("reports an unreachable API as a transient error", async () => {
    const offline = new DidAvatarProvider({
      apiKey: "k",
      baseUrl: "http://127.0.0.1:9",
      sourceUrl: "https://e.com/a.jpg",
      voiceId: "v",
    });
    const err = await providerError(offline.create({ script: "hi", title: "t" }));
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/^Could not reach D-ID/);
  });
});

describe("HeyGen client", () => {
  let fake: FakeHeygen;
  let heygen: HeygenAvatarProvider;
  beforeAll(async () => {
    fake = await startFakeHeygen({ apiKey: "hg-key" });
    heygen = new HeygenAvatarProvider({
      apiKey: "hg-key",
      baseUrl: fake.url,
      avatarId: "Daisy-inskirt-20220818",
      voiceId: "voice-1",
    });
  });
  afterAll(() => fake.close());

  it("generates with X-Api-Key and one avatar scene, then walks waiting -> pending -> processing -> completed", async () => {
    fake.setScenario({ pollsBeforeOutcome: 3, outcome: "completed" });
    const created = await heygen.create({ script: "Hi from HeyGen", title: "Greeting" });
    expect(created.vendorVideoId).toMatch(/^[0-9a-f]{32}$/);
    const post = fake.requests.find((r) => r.path === "/v2/video/generate");
    expect(post?.headers["x-api-key"]).toBe("hg-key");
    expect(post?.body).toMatchObject({
      title: "Greeting",
      video_inputs: [
        {
          character: { type: "avatar", avatar_id: "Daisy-inskirt-20220818" },
          voice: { type: "text", input_text: "Hi from HeyGen", voice_id: "voice-1" },
        },
      ],
      dimension: { width: 1280, height: 720 },
    });
    const phases = [];
    for (let i = 0; i < 3; i++) phases.push(await heygen.getStatus(created.vendorVideoId));
    expect(phases.map((p) => [p.phase, p.vendorStatus])).toEqual([
      ["queued", "waiting"],
      ["queued", "pending"],
      ["rendering", "processing"],
    ]);
    const done = await heygen.getStatus(created.vendorVideoId);
    expect(done.phase).toBe("done");
    expect(done.videoUrl).toMatch(
      new RegExp(`^${fake.url}/files/${created.vendorVideoId}\\.mp4\\?Expires=\\d+`),
    );
    const get = fake.requests.find((r) => r.path.startsWith("/v1/video_status.get"));
    expect(get?.path).toBe(`/v1/video_status.get?video_id=${created.vendorVideoId}`);
  });

  it("maps a failed video to its error message and detail", async () => {
    fake.setScenario({ pollsBeforeOutcome: 0, outcome: "failed" });
    const created = await heygen.create({ script: "x", title: "x" });
    expect(await heygen.getStatus(created.vendorVideoId)).toEqual({
      phase: "failed",
      vendorStatus: "failed",
      error: "HeyGen could not render the video: Avatar rendering failed (The avatar could not be rendered)",
    });
  });

  it("maps HeyGen error bodies", async () => {
    const wrong = new HeygenAvatarProvider({ apiKey: "bad", baseUrl: fake.url, avatarId: "a", voiceId: "v" });
    const auth = await providerError(wrong.create({ script: "hi", title: "t" }));
    expect(auth).toMatchObject({
      transient: false,
      httpStatus: 401,
      message: "HeyGen: the API key was rejected (check the key in the environment)",
    });

    const credit = await providerError(heygen.create({ script: "NO_CREDITS", title: "t" }));
    expect(credit).toMatchObject({
      transient: false,
      httpStatus: 400,
      vendorCode: "insufficient_credit",
      message: "HeyGen: Insufficient credit",
    });

    const tooLong = await providerError(heygen.create({ script: "a".repeat(5000), title: "t" }));
    expect(tooLong.message).toBe("HeyGen: input_text must be less than 5000 characters");

    fake.failNext(1, 502);
    const down = await providerError(heygen.getStatus("abc"));
    expect(down).toMatchObject({
      transient: true,
      httpStatus: 502,
      message: "HeyGen: Service temporarily unavailable",
    });

    const missing = await providerError(heygen.getStatus("0000"));
    expect(missing).toMatchObject({ transient: false, httpStatus: 404, message: "HeyGen: Video not found" });
  });
});
