/**
 * Production serving (issue 11, "Scale and production"): the built client goes out precompressed
 * (brotli or gzip, chosen by Accept-Encoding) with immutable caching for hashed assets and no-cache
 * for index.html; production logs one JSON line per request (method, url, status, ms), development
 * uses pino-pretty as a transport.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import zlib from "node:zlib";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { precompressDir } from "../../scripts/precompress";
import { loadEnv } from "../../src/env";
import { createDb } from "../../src/server/db/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { InlineJobClient } from "../../src/server/jobs/inline";
import { jobRegistry } from "../../src/server/jobs/registry";
import { createLogger, loggerOptions } from "../../src/server/lib/logger";
import { createServer, IMMUTABLE_CACHE } from "../../src/server/main";
import { createProviders } from "../../src/server/providers";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-client-"));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-prod-data-"));
// compressible like real bundles; big enough that compression pays
const script = `export const rows = [${Array.from({ length: 3000 }, (_, i) => `{id:${i},label:"row ${i}"}`).join(",")}];\n`;
const indexHtml = `<!doctype html><html><head><script type="module" crossorigin src="/assets/index-AbC123.js"></script></head><body>${"<div></div>".repeat(200)}</body></html>`;

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});

let app: FastifyInstance;
let closeDb: () => Promise<void>;

beforeAll(async () => {
  fs.mkdirSync(path.join(dir, "assets"));
  fs.writeFileSync(path.join(dir, "index.html"), indexHtml);
  fs.writeFileSync(path.join(dir, "assets", "index-AbC123.js"), script);
  fs.writeFileSync(path.join(dir, "assets", "tiny-Zz9.js"), "export{};\n");
  const compressed = await precompressDir(dir);
  expect(compressed.map((c) => c.file).sort()).toEqual(["assets/index-AbC123.js", "index.html"]);

  const env = loadEnv({
    NODE_ENV: "production",
    APP_SECRET: "a".repeat(64),
    DATABASE_URL: inject("databaseUrl"),
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    APP_URL: "http://localhost:80",
  });
  const { db, sql } = createDb(env.DATABASE_URL!, { max: 2 });
  closeDb = () => sql.end({ timeout: 5 });
  const providers = createProviders(env, { db });
  let deps: JobDeps | null = null;
  const jobs = new InlineJobClient(() => deps!, jobRegistry);
  deps = { db, sql, env, providers, jobs, log: createLogger(env) };
  ({ app } = await createServer({
    db,
    sql,
    env,
    providers,
    jobs,
    logger: createLogger(env, sink),
    serveClient: true,
    clientDir: dir,
  }));
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await closeDb?.();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("built client", () => {
  it("writes .br and .gz copies that decompress to the original", () => {
    const file = path.join(dir, "assets", "index-AbC123.js");
    expect(zlib.brotliDecompressSync(fs.readFileSync(`${file}.br`)).toString()).toBe(script);
    expect(zlib.gunzipSync(fs.readFileSync(`${file}.gz`)).toString()).toBe(script);
    expect(fs.statSync(`${file}.br`).size).toBeLessThan(script.length / 4);
    expect(fs.existsSync(path.join(dir, "assets", "tiny-Zz9.js.br"))).toBe(false);
  });

  it("sends a hashed asset brotli-compressed to a browser that accepts br, cached for a year", async () => {
    const res = await app.inject({
      url: "/assets/index-AbC123.js",
      headers: { "accept-encoding": "gzip, deflate, br, zstd" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toMatch(/javascript/);
    expect(res.headers["cache-control"]).toBe(IMMUTABLE_CACHE);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(String(res.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(script);
  });

  it("sends gzip to a gzip-only client and the plain file to one that accepts neither", async () => {
    const gz = await app.inject({ url: "/assets/index-AbC123.js", headers: { "accept-encoding": "gzip" } });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(script);
    const plain = await app.inject({
      url: "/assets/index-AbC123.js",
      headers: { "accept-encoding": "identity" },
    });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body).toBe(script);
    expect(plain.headers["cache-control"]).toBe(IMMUTABLE_CACHE);
    const tiny = await app.inject({ url: "/assets/tiny-Zz9.js", headers: { "accept-encoding": "br" } });
    expect(tiny.headers["content-encoding"]).toBeUndefined();
    expect(tiny.headers["cache-control"]).toBe(IMMUTABLE_CACHE);
  });

  it("serves index.html (directly and as the SPA fallback) compressed with Cache-Control: no-cache", async () => {
    for (const url of ["/index.html", "/contacts", "/contacts/map?view=1"]) {
      const res = await app.inject({ url, headers: { "accept-encoding": "br" } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"], url).toMatch(/text\/html/);
      expect(res.headers["cache-control"], url).toBe("no-cache");
      expect(res.headers["content-encoding"], url).toBe("br");
      expect(zlib.brotliDecompressSync(res.rawPayload).toString(), url).toBe(indexHtml);
    }
    const head = await app.inject({ method: "HEAD", url: "/dashboard" });
    expect(head.statusCode).toBe(200);
    expect(head.headers["cache-control"]).toBe("no-cache");
  });

  it("answers a missing asset and an unknown API path with 404, not the SPA", async () => {
    expect((await app.inject({ url: "/assets/nope-123.js" })).statusCode).toBe(404);
    const api = await app.inject({ url: "/api/nothing-here" });
    expect(api.statusCode).toBe(404);
    expect(api.json().error).toContain("Not found");
  });
});

describe("request log", () => {
  it("is one JSON line per request in production: method, url without query, status, ms", async () => {
    lines.length = 0;
    await app.inject({ url: "/healthz" });
    await app.inject({ url: "/api/auth/me?token=secret-value" });
    await app.inject({ url: "/assets/index-AbC123.js", headers: { "accept-encoding": "br" } });
    await new Promise((r) => setTimeout(r, 50));
    const requestLines = lines.filter((l) => "method" in l || "req" in l || "res" in l);
    expect(requestLines).toHaveLength(3);
    expect(lines.some((l) => l.msg === "incoming request" || l.msg === "request completed")).toBe(false);
    const [health, me, asset] = requestLines;
    expect(health).toMatchObject({
      level: 30,
      method: "GET",
      url: "/healthz",
      status: 200,
      msg: expect.stringMatching(/^GET \/healthz 200 [\d.]+ ms$/),
    });
    expect(typeof health.ms).toBe("number");
    expect(typeof health.reqId).toBe("string");
    expect(typeof health.time).toBe("number");
    expect(me).toMatchObject({ method: "GET", url: "/api/auth/me", status: 401 });
    expect(JSON.stringify(lines)).not.toContain("secret-value");
    expect(asset).toMatchObject({ url: "/assets/index-AbC123.js", status: 200 });
  });

  it("uses pino-pretty as a transport in development only", () => {
    const dev = loggerOptions({ NODE_ENV: "development", LOG_LEVEL: "info" }) as {
      transport?: { target: string };
    };
    expect(dev.transport?.target).toBe("pino-pretty");
    for (const NODE_ENV of ["production", "test"] as const) {
      expect("transport" in loggerOptions({ NODE_ENV, LOG_LEVEL: "info" }), NODE_ENV).toBe(false);
    }
  });
});
