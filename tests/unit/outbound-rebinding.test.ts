import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

/**
 * DNS rebinding against lib/outbound.ts safeFetch: the host's first answer (the check) is public, the
 * answer when connecting is private. The check's lookup (node:dns/promises) answers a public address
 * for the rebinding name; the connection resolves it for real, to this machine's own non-public
 * address, where a server counts the requests that reach it.
 */
const REBINDING_HOST = os.hostname().toLowerCase();
vi.mock("node:dns/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:dns/promises")>();
  const lookup = (async (host: string, options?: unknown) =>
    host.toLowerCase() === REBINDING_HOST
      ? [{ address: "93.184.215.14", family: 4 }]
      : real.lookup(host, options as never)) as typeof real.lookup;
  return { ...real, default: { ...real, lookup }, lookup };
});

const { isPublicAddress, safeFetch } = await import("../../src/server/lib/outbound");
const realLookup = (await vi.importActual<typeof import("node:dns/promises")>("node:dns/promises")).lookup;

let server: http.Server;
let port = 0;
let hits = 0;
let realAddress: string | null = null;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    hits += 1;
    res.end("internal admin page: root@internal.example");
  });
  await new Promise<void>((r) => server.listen(0, "0.0.0.0", r));
  port = (server.address() as AddressInfo).port;
  realAddress = await realLookup(REBINDING_HOST, { family: 4 }).then(
    (a) => a.address,
    () => null,
  );
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("safeFetch and DNS rebinding", () => {
  it("refuses a host whose address turns private between the check and the connection", async (ctx) => {
    if (!realAddress || isPublicAddress(realAddress))
      ctx.skip(`${REBINDING_HOST} does not resolve to a non-public IPv4 address here`);
    const attempt = safeFetch(`http://${REBINDING_HOST}:${port}/`);
    await expect(attempt).rejects.toThrow(/non-public address/);
    expect(hits).toBe(0);
  });

  it("still fetches an allow-listed host through the same path", async () => {
    const r = await safeFetch(`http://127.0.0.1:${port}/page`, { allowedHosts: [`127.0.0.1:${port}`] });
    expect(r).toMatchObject({ status: 200, truncated: false });
    expect(r.text).toContain("internal admin page");
    expect(r.headers.get("content-length")).toBe(String(r.text.length));
  });
});
