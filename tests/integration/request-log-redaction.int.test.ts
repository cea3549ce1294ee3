/**
 * The request log (lib/logger.ts registerRequestLog) dropped the query string but kept the path, so
 * secrets carried in a path were written to the log: invitation tokens (`/api/invites/{token}`,
 * `/invite/{token}`, `.../accept`), unsubscribe links, video landing pages, signed voicemail audio,
 * click tracking, TwiML documents, checkout sessions. Those path parts are now `[redacted]`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadEnv } from "../../src/env";
import { createDb } from "../../src/server/db/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { InlineJobClient } from "../../src/server/jobs/inline";
import { jobRegistry } from "../../src/server/jobs/registry";
import { createLogger } from "../../src/server/lib/logger";
import { createServer } from "../../src/server/main";
import { createProviders } from "../../src/server/providers";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-log-data-"));
const lines: { url?: string; msg?: string }[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});

let app: FastifyInstance;
let closeDb: () => Promise<void>;

beforeAll(async () => {
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
    serveClient: false,
  }));
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await closeDb?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const SECRET = "s3cr3ttokenzzq";
const SIG = "sigsigsigsigzzq";

/** The request log line of one request. */
async function logged(method: "GET" | "POST", url: string) {
  lines.length = 0;
  await app.inject({ method, url, ...(method === "POST" ? { payload: {} } : {}) });
  const line = lines.find((l) => typeof l.url === "string");
  expect(line, url).toBeDefined();
  return line as { url: string; msg: string };
}

describe("request log", () => {
  it("redacts the secrets of token-carrying paths, in the url field and the message", async () => {
    const cases: ["GET" | "POST", string, string][] = [
      ["GET", `/api/invites/${SECRET}`, "/api/invites/[redacted]"],
      ["POST", `/api/invites/${SECRET}/accept`, "/api/invites/[redacted]/accept"],
      ["GET", `/invite/${SECRET}`, "/invite/[redacted]"],
      ["GET", `/u/${SECRET}`, "/u/[redacted]"],
      ["POST", `/u/${SECRET}`, "/u/[redacted]"],
      ["GET", `/v/${SECRET}`, "/v/[redacted]"],
      ["GET", `/v/${SECRET}/video`, "/v/[redacted]/video"],
      ["POST", `/v/${SECRET}/events`, "/v/[redacted]/events"],
      ["GET", `/v/t/${SECRET}.jpg`, "/v/t/[redacted]"],
      ["GET", `/va/12/${SIG}.mp3`, "/va/12/[redacted]"],
      ["GET", `/va/12/34/${SIG}.mp3`, "/va/12/34/[redacted]"],
      ["GET", `/c/${SECRET}/0/${SIG}`, "/c/[redacted]/0/[redacted]"],
      ["GET", `/c/${SECRET}/1`, "/c/[redacted]/1"],
      ["GET", `/api/webhooks/voice/twiml/${SECRET}`, "/api/webhooks/voice/twiml/[redacted]"],
      ["POST", `/api/webhooks/dropcowboy/rvm/${SECRET}`, "/api/webhooks/dropcowboy/rvm/[redacted]"],
      ["GET", `/local-checkout/${SECRET}`, "/local-checkout/[redacted]"],
      // a method the route does not have (404), and a query string as before
      ["GET", `/api/invites/${SECRET}/accept?x=${SIG}`, "/api/invites/[redacted]/accept"],
    ];
    for (const [method, url, want] of cases) {
      const line = await logged(method, url);
      expect(line.url, url).toBe(want);
      expect(line.msg, url).toContain(` ${want} `);
      expect(JSON.stringify(line), url).not.toContain(SECRET);
      expect(JSON.stringify(line), url).not.toContain(SIG);
    }
  });

  it("keeps other paths as they were", async () => {
    expect((await logged("GET", "/api/contacts/123?search=ada")).url).toBe("/api/contacts/123");
    expect((await logged("GET", "/v/assets/plyr.css")).url).toBe("/v/assets/plyr.css");
    expect((await logged("GET", "/healthz")).url).toBe("/healthz");
  });
});
