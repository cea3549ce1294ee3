/**
 * A local fake of D-ID's talks API (docs.d-id.com): `POST /talks`, `GET /talks/{id}` with the statuses
 * created -> started -> done (`result_url`) or error / rejected, `Authorization: Basic <key>`, and D-ID's
 * error bodies `{kind, description, details?}`. It also serves the result video: a real MP4 made by
 * ffmpeg at start-up.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";

/** How a talk created from now on behaves. */
export interface FakeTalkScenario {
  /** status polls answered with created/started before the outcome */
  pollsBeforeOutcome: number;
  outcome: "done" | "error" | "rejected" | "stuck";
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

let sampleVideo: Promise<string> | null = null;

/** A 2-second 320x240 H.264/AAC MP4 (ffmpeg test pattern + tone), made once per process. */
export function sampleVendorVideo(): Promise<string> {
  if (!sampleVideo) {
    sampleVideo = (async () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "fake-vendor-video-")), "result.mp4");
      await runFfmpeg(resolveFfmpegBinaries(process.env), {
        globalOptions: ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=2", "-f", "lavfi"],
        inputs: [{ path: "sine=frequency=440:duration=2" }],
        outputs: [
          {
            path: file,
            options: [
              "-c:v",
              "libx264",
              "-preset",
              "ultrafast",
              "-pix_fmt",
              "yuv420p",
              "-c:a",
              "aac",
              "-shortest",
              "-movflags",
              "+faststart",
            ],
          },
        ],
      });
      return file;
    })();
  }
  return sampleVideo;
}

/** Sends JSON with a status. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Reads a request body as JSON (undefined when empty, the raw text when not JSON). */
export async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Serves a file as video/mp4. */
export function sendVideo(res: http.ServerResponse, file: string) {
  const size = fs.statSync(file).size;
  res.writeHead(200, { "content-type": "video/mp4", "content-length": size });
  fs.createReadStream(file).pipe(res);
}

interface Talk {
  id: string;
  scenario: FakeTalkScenario;
  polls: number;
  input: string;
  createdAt: string;
}

/**
 * Starts the fake on 127.0.0.1 (random port).
 * - `scenario` sets how new talks behave (default: 2 polls, then done)
 * - `failNext(n, status)` answers the next n requests with that status (e.g. 503, 429)
 * - `expireResults()` makes the result URLs of existing talks answer 403 (D-ID's S3 links are signed and expire)
 */
export async function startFakeDid(opts: { apiKey: string }) {
  const video = await sampleVendorVideo();
  const talks = new Map<string, Talk>();
  const requests: RecordedRequest[] = [];
  let scenario: FakeTalkScenario = { pollsBeforeOutcome: 2, outcome: "done" };
  let failures: { remaining: number; status: number } = { remaining: 0, status: 503 };
  /** talks whose result links have expired */
  const expired = new Set<string>();
  let baseUrl = "";

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readJson(req);
    requests.push({ method: req.method ?? "", path: url.pathname + url.search, headers: req.headers, body });

    if (url.pathname.startsWith("/results/")) {
      const id = url.pathname.slice("/results/".length).replace(/\.mp4$/, "");
      if (expired.has(id)) {
        res.writeHead(403, { "content-type": "application/xml" });
        res.end("<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>");
        return;
      }
      if (!talks.has(id)) return sendJson(res, 404, { kind: "NotFoundError", description: "not found" });
      return sendVideo(res, video);
    }
    if (failures.remaining > 0) {
      failures.remaining--;
      return sendJson(res, failures.status, {
        kind: failures.status === 429 ? "TooManyRequestsError" : "InternalServerError",
        description: failures.status === 429 ? "Too many requests" : "Internal server error",
      });
    }
    if (req.headers.authorization !== `Basic ${opts.apiKey}`)
      return sendJson(res, 401, { kind: "AuthorizationError", description: "Invalid API key" });

    if (req.method === "POST" && url.pathname === "/talks") {
      const b = body as { source_url?: unknown; script?: { type?: unknown; input?: unknown } } | undefined;
      if (!b || typeof b !== "object" || !b.script)
        return sendJson(res, 400, {
          kind: "ValidationError",
          description: "validation failed",
          details: { "body.script": { message: "'script' is required" } },
        });
      if (typeof b.source_url !== "string" || !b.source_url)
        return sendJson(res, 400, {
          kind: "ValidationError",
          description: "validation failed",
          details: { "body.source_url": { message: "'source_url' is required" } },
        });
      if (b.script.type !== "text" || typeof b.script.input !== "string" || !b.script.input.trim())
        return sendJson(res, 400, { kind: "BadRequestError", description: "Failed to validate script" });
      if (b.script.input.includes("INSUFFICIENT_CREDITS"))
        return sendJson(res, 402, { kind: "InsufficientCreditsError", description: "not enough credits" });
      const id = `tlk_${randomBytes(9).toString("base64url")}`;
      const createdAt = new Date().toISOString();
      talks.set(id, { id, scenario: { ...scenario }, polls: 0, input: b.script.input, createdAt });
      return sendJson(res, 201, {
        id,
        created_at: createdAt,
        created_by: "fake-user",
        status: "created",
        object: "talk",
      });
    }

    const m = url.pathname.match(/^\/talks\/([^/]+)$/);
    if (req.method === "GET" && m) {
      const talk = talks.get(decodeURIComponent(m[1]));
      if (!talk) return sendJson(res, 404, { kind: "NotFoundError", description: "Talk not found" });
      talk.polls++;
      const base = {
        id: talk.id,
        object: "talk",
        created_at: talk.createdAt,
        source_url: "https://example.com/alice.jpg",
      };
      if (talk.polls <= talk.scenario.pollsBeforeOutcome || talk.scenario.outcome === "stuck")
        return sendJson(res, 200, { ...base, status: talk.polls === 1 ? "created" : "started" });
      if (talk.scenario.outcome === "error")
        return sendJson(res, 200, {
          ...base,
          status: "error",
          error: { kind: "FaceError", description: "Failed to detect a face in the source image" },
        });
      if (talk.scenario.outcome === "rejected") return sendJson(res, 200, { ...base, status: "rejected" });
      return sendJson(res, 200, {
        ...base,
        status: "done",
        duration: 2,
        result_url: `${baseUrl}/results/${talk.id}.mp4`,
      });
    }
    sendJson(res, 404, { kind: "NotFoundError", description: `no route ${req.method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    talks,
    requests,
    setScenario(s: Partial<FakeTalkScenario>) {
      scenario = { ...scenario, ...s };
    },
    failNext(n: number, status = 503) {
      failures = { remaining: n, status };
    },
    /** result links of every talk created so far answer 403 */
    expireResults() {
      for (const id of talks.keys()) expired.add(id);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type FakeDid = Awaited<ReturnType<typeof startFakeDid>>;
