import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { avatarVideos } from "../../src/server/db/schema/avatar";
import { demoRequests } from "../../src/server/db/schema/outbox";
import { startDemoAvatarVideo } from "../../src/server/features/avatar/avatar.service";
import { type FakeDid, startFakeDid } from "../fakes/did";
import { createTestApp, type TestApp, uniqueEmail } from "../helpers";

/**
 * The landing-page demo delivers an AI avatar video with its email (spec section 2: 'Email with Video
 * Delivered', 'AI Avatar Video Included'): a public page `/a/{token}` plays it, no account needed.
 */

async function requestDemo(t: TestApp, name: string) {
  const email = uniqueEmail("avatar-demo");
  const res = await t.app.inject({ method: "POST", url: "/api/demo/send", payload: { name, email } });
  expect(res.statusCode).toBe(200);
  const outbox = (
    await t.app.inject({ method: "GET", url: `/api/dev/outbox?to=${encodeURIComponent(email)}` })
  ).json();
  expect(outbox.messages).toHaveLength(1);
  const html: string = outbox.messages[0].html;
  const link = html.match(/href="(http:\/\/localhost:80\/a\/([a-z2-7]+))"/);
  expect(link, "the demo email links the avatar video page").not.toBeNull();
  return { email, html, url: link![1], token: link![2], text: outbox.messages[0].body as string };
}

describe("demo avatar video with the local provider", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it("renders the video, links it from the demo email and plays it on a public page with range requests", async () => {
    const { html, token, text } = await requestDemo(t, "Dana <b>Demo</b>");
    expect(html).toContain("Watch your AI avatar video");
    expect(text).toContain(`/a/${token}`);
    // the email went out first; the page waits for the render (queued 2 s later)
    const waiting = await t.app.inject({ method: "GET", url: `/a/${token}` });
    expect(waiting.body).toContain('<meta http-equiv="refresh" content="5">');
    expect(await t.jobs.runDeferred()).toBe(1);

    const [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.publicToken, token));
    expect(row).toMatchObject({ workspaceId: null, provider: "local", status: "completed", mediaId: null });
    expect(row.script).toMatch(/^Hi Dana! I'm the Pitchwise AI avatar/);
    expect(row.durationSeconds).toBeGreaterThan(8);

    const page = await t.app.inject({ method: "GET", url: `/a/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toContain(
      `<video controls playsinline preload="metadata" src="/a/${token}/video.mp4">`,
    );
    expect(page.body).not.toContain('http-equiv="refresh"');

    const file = await t.app.inject({ method: "GET", url: `/a/${token}/video.mp4` });
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("video/mp4");
    const size = Number(file.headers["content-length"]);
    expect(file.rawPayload.length).toBe(size);
    expect(file.rawPayload.subarray(4, 8).toString("ascii")).toBe("ftyp");

    const part = await t.app.inject({
      method: "GET",
      url: `/a/${token}/video.mp4`,
      headers: { range: "bytes=0-99" },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers["content-range"]).toBe(`bytes 0-99/${size}`);
    expect(part.rawPayload.length).toBe(100);
    const bad = await t.app.inject({
      method: "GET",
      url: `/a/${token}/video.mp4`,
      headers: { range: `bytes=${size + 10}-` },
    });
    expect(bad.statusCode).toBe(416);
  }, 120_000);

  it("gives a retried demo job the same video, and unknown tokens a 404", async () => {
    const { token } = await requestDemo(t, "Rita");
    const [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.publicToken, token));
    const again = await startDemoAvatarVideo(
      { db: t.db, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log },
      { demoRequestId: row.demoRequestId!, firstName: "Rita" },
    );
    expect(again).toBe(`http://localhost:80/a/${token}`);
    const rows = await t.db
      .select()
      .from(avatarVideos)
      .where(eq(avatarVideos.demoRequestId, row.demoRequestId!));
    expect(rows).toHaveLength(1);

    expect(
      (await t.app.inject({ method: "GET", url: "/a/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz" })).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: "GET", url: "/a/..%2Fetc" })).statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: "GET", url: "/a/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz/video.mp4" }))
        .statusCode,
    ).toBe(404);
  }, 120_000);

  it("keeps demo videos out of every account", async () => {
    const { token } = await requestDemo(t, "Omar");
    const [row] = await t.db.select().from(avatarVideos).where(eq(avatarVideos.publicToken, token));
    const { signUp } = await import("../helpers");
    const { client } = await signUp(t.app);
    expect((await client.get(`/api/videos/status/local/${row.id}`)).statusCode).toBe(404);
    const list = (await client.get("/trpc/avatar.list")).json().result.data.json;
    expect(list).toEqual([]);
    const [demo] = await t.db.select().from(demoRequests).where(eq(demoRequests.id, row.demoRequestId!));
    expect(demo.status).toBe("sent");
  }, 120_000);
});

describe("demo avatar video with a vendor as the default provider", () => {
  let t: TestApp;
  let did: FakeDid;
  beforeAll(async () => {
    did = await startFakeDid({ apiKey: "demo-did-key" });
    t = await createTestApp({ AVATAR_PROVIDER: "did", DID_API_KEY: "demo-did-key", DID_API_URL: did.url });
  });
  afterAll(async () => {
    await t?.close();
    await did?.close();
  });

  it("shows a self-refreshing page while D-ID renders, then the stored video", async () => {
    did.setScenario({ pollsBeforeOutcome: 1, outcome: "done" });
    const { token } = await requestDemo(t, "Vera");
    const waiting = await t.app.inject({ method: "GET", url: `/a/${token}` });
    expect(waiting.body).toContain('<meta http-equiv="refresh" content="5">');
    expect(waiting.body).toContain("Your AI avatar video is being made");
    const talk = did.requests.find((r) => r.method === "POST" && r.path === "/talks");
    expect(talk).toBeDefined();
    expect((talk!.body as { script: { input: string } }).script.input).toMatch(/^Hi Vera!/);
    for (let i = 0; i < 3 && (await t.jobs.runDeferred()) > 0; i++);
    const ready = await t.app.inject({ method: "GET", url: `/a/${token}` });
    expect(ready.body).toContain(`src="/a/${token}/video.mp4"`);
    did.expireResults();
    const file = await t.app.inject({ method: "GET", url: `/a/${token}/video.mp4` });
    expect(file.statusCode).toBe(200);
  });
});
