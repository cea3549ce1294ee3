/**
 * A local fake of HeyGen's video API (docs.heygen.com): `POST /v2/video/generate` ->
 * `{error: null, data: {video_id}}`, `GET /v1/video_status.get?video_id=` -> `{code: 100, data: {status,
 * video_url, ...}, message}` with the statuses waiting/pending/processing/completed/failed, the
 * `X-Api-Key` header, HeyGen's error bodies, and result links that carry an `Expires` parameter
 * (7 days, as HeyGen documents; `expireResults()` expires them now). The video is a real MP4.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { type RecordedRequest, readJson, sampleVendorVideo, sendJson, sendVideo } from "./did";

export interface FakeHeygenScenario {
  /** status polls answered with waiting/pending/processing before the outcome */
  pollsBeforeOutcome: number;
  outcome: "completed" | "failed" | "stuck";
}

interface Video {
  id: string;
  scenario: FakeHeygenScenario;
  polls: number;
  inputText: string;
  createdAt: number;
}

const SEVEN_DAYS = 7 * 24 * 3600;

/**
 * Starts the fake on 127.0.0.1 (random port).
 * - `setScenario` sets how new videos behave (default: 3 polls, then completed)
 * - `failNext(n, status)` answers the next n API requests with that status
 * - `expireResults()` makes every issued video_url answer 403 (its Expires has passed)
 * - `failDownloads(n)` makes the next n video downloads answer 403
 */
export async function startFakeHeygen(opts: { apiKey: string }) {
  const file = await sampleVendorVideo();
  const videos = new Map<string, Video>();
  const requests: RecordedRequest[] = [];
  let scenario: FakeHeygenScenario = { pollsBeforeOutcome: 3, outcome: "completed" };
  let failures = { remaining: 0, status: 503 };
  /** issue time (ms) of every signed link, by signature */
  const issued = new Map<string, number>();
  let expiredBefore = 0;
  let failingDownloads = 0;
  let baseUrl = "";

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readJson(req);
    requests.push({ method: req.method ?? "", path: url.pathname + url.search, headers: req.headers, body });

    if (url.pathname.startsWith("/files/")) {
      const expires = Number(url.searchParams.get("Expires"));
      const issuedAt = issued.get(url.searchParams.get("Signature") ?? "") ?? 0;
      if (
        failingDownloads > 0 ||
        !Number.isFinite(expires) ||
        expires * 1000 < Date.now() ||
        issuedAt <= expiredBefore
      ) {
        if (failingDownloads > 0) failingDownloads--;
        res.writeHead(403, { "content-type": "application/xml" });
        res.end("<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>");
        return;
      }
      return sendVideo(res, file);
    }
    if (failures.remaining > 0) {
      failures.remaining--;
      return sendJson(res, failures.status, {
        error: { code: "internal_error", message: "Service temporarily unavailable" },
        data: null,
      });
    }
    if (req.headers["x-api-key"] !== opts.apiKey)
      return sendJson(res, 401, {
        error: { code: "invalid_api_key", message: "Unauthorized: invalid API key" },
        data: null,
      });

    if (req.method === "POST" && url.pathname === "/v2/video/generate") {
      const b = body as
        | {
            video_inputs?: {
              character?: { type?: string; avatar_id?: string };
              voice?: { type?: string; input_text?: string; voice_id?: string };
            }[];
          }
        | undefined;
      const scene = b?.video_inputs?.[0];
      if (!scene?.character?.avatar_id)
        return sendJson(res, 400, {
          error: { code: "invalid_parameter", message: "avatar_id is required" },
          data: null,
        });
      const text = scene.voice?.input_text;
      if (scene.voice?.type !== "text" || typeof text !== "string" || !text.trim() || !scene.voice.voice_id)
        return sendJson(res, 400, {
          error: { code: "invalid_parameter", message: "voice input_text and voice_id are required" },
          data: null,
        });
      if (text.length >= 5000)
        return sendJson(res, 400, {
          error: { code: "invalid_parameter", message: "input_text must be less than 5000 characters" },
          data: null,
        });
      if (text.includes("NO_CREDITS"))
        return sendJson(res, 400, {
          error: { code: "insufficient_credit", message: "Insufficient credit" },
          data: null,
        });
      const id = randomBytes(16).toString("hex");
      videos.set(id, {
        id,
        scenario: { ...scenario },
        polls: 0,
        inputText: text,
        createdAt: Math.floor(Date.now() / 1000),
      });
      return sendJson(res, 200, { error: null, data: { video_id: id } });
    }

    if (req.method === "GET" && url.pathname === "/v1/video_status.get") {
      const id = url.searchParams.get("video_id") ?? "";
      const v = videos.get(id);
      if (!v) return sendJson(res, 404, { code: 404, data: null, message: "Video not found" });
      v.polls++;
      const base = {
        id: v.id,
        callback_id: null,
        created_at: v.createdAt,
        caption_url: null,
        gif_url: null,
        thumbnail_url: null,
        video_url: null,
        video_url_caption: null,
        duration: null,
        error: null,
      };
      if (v.polls <= v.scenario.pollsBeforeOutcome || v.scenario.outcome === "stuck") {
        const status =
          v.scenario.outcome === "stuck"
            ? "processing"
            : (["waiting", "pending", "processing"][Math.min(2, v.polls - 1)] ?? "processing");
        return sendJson(res, 200, { code: 100, data: { ...base, status }, message: "Success" });
      }
      if (v.scenario.outcome === "failed")
        return sendJson(res, 200, {
          code: 100,
          data: {
            ...base,
            status: "failed",
            error: {
              code: "40119",
              message: "Avatar rendering failed",
              detail: "The avatar could not be rendered",
            },
          },
          message: "Success",
        });
      // like HeyGen, every status call issues a fresh signed link that expires in 7 days
      const expires = Math.floor(Date.now() / 1000) + SEVEN_DAYS;
      const signature = randomBytes(8).toString("hex");
      issued.set(signature, Date.now());
      return sendJson(res, 200, {
        code: 100,
        data: {
          ...base,
          status: "completed",
          duration: 2,
          video_url: `${baseUrl}/files/${v.id}.mp4?Expires=${expires}&Signature=${signature}`,
          thumbnail_url: `${baseUrl}/files/${v.id}.jpg?Expires=${expires}`,
        },
        message: "Success",
      });
    }
    sendJson(res, 404, { code: 404, data: null, message: `no route ${req.method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    videos,
    requests,
    setScenario(s: Partial<FakeHeygenScenario>) {
      scenario = { ...scenario, ...s };
    },
    failNext(n: number, status = 503) {
      failures = { remaining: n, status };
    },
    /** the next n video downloads answer 403 (as an expired link does) */
    failDownloads(n: number) {
      failingDownloads = n;
    },
    /** links issued until now stop working */
    expireResults() {
      expiredBefore = Date.now();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type FakeHeygen = Awaited<ReturnType<typeof startFakeHeygen>>;
