import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertOutboundUrl,
  assertPublicUrl,
  guardedLookup,
  guardedPost,
  isPublicAddress,
  parseAllowedHosts,
  safeFetch,
} from "../../src/server/lib/outbound";

let server: http.Server;
let port = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/redirect-private") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
      return res.end();
    }
    if (req.url === "/big") return res.end("x".repeat(50_000));
    res.end("hello");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("outbound SSRF guard", () => {
  it("classifies addresses", () => {
    for (const ip of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fc00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "224.0.0.1",
      // IPv4-compatible IPv6 (deprecated ::/96): never public, whatever IPv4 it embeds
      "::7f00:1",
      "::a00:1",
      "::808:808",
    ])
      expect(isPublicAddress(ip), ip).toBe(false);
    for (const ip of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
      expect(isPublicAddress(ip), ip).toBe(true);
  });

  it("refuses private, loopback, metadata and non-http URLs", async () => {
    await expect(assertPublicUrl(`http://127.0.0.1:${port}/`)).rejects.toThrow(
      /non-public address \(127\.0\.0\.1\)/,
    );
    await expect(assertPublicUrl("http://localhost/")).rejects.toThrow(/non-public/);
    // the fully qualified spelling of the same name, at registration (no DNS) and before fetching
    expect(() => assertOutboundUrl("https://localhost./hooks")).toThrow(/non-public/);
    expect(() => assertOutboundUrl("https://api.localhost../hooks")).toThrow(/non-public/);
    expect(() => assertOutboundUrl("https://[::7f00:1]/hooks")).toThrow(/non-public/);
    await expect(assertPublicUrl("http://169.254.169.254/latest/meta-data/")).rejects.toThrow(/non-public/);
    await expect(assertPublicUrl("http://[::1]/")).rejects.toThrow(/non-public/);
    await expect(assertPublicUrl("file:///etc/passwd")).rejects.toThrow(/Only http and https/);
    await expect(assertPublicUrl("http://user:pw@example.com/")).rejects.toThrow(/credentials/);
    await expect(safeFetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(/non-public/);
  });

  it("tells a webhook's owner how to test a receiver on their own computer, and why https", () => {
    for (const url of ["https://127.0.0.1:5499/hook", "https://localhost:5499/hook"])
      expect(() => assertOutboundUrl(url, { httpsOnly: true }), url).toThrow(
        /non-public address.*it cannot be fetched\. Use a public URL: to test a receiver on your own computer, expose it with a tunnel such as ngrok or Cloudflare Tunnel$/,
      );
    expect(() => assertOutboundUrl("http://hooks.example.com/x", { httpsOnly: true })).toThrow(
      /^The URL must start with https:\/\/, so that what is sent to it is encrypted/,
    );
    // other fetches (a lead's website) get no webhook advice
    expect(() => assertOutboundUrl("https://127.0.0.1/")).toThrow(/it cannot be fetched$/);
  });

  it("allows listed hosts, re-checks redirects and caps the body", async () => {
    const allowedHosts = parseAllowedHosts(` 127.0.0.1:${port} , other.test`);
    const ok = await safeFetch(`http://127.0.0.1:${port}/`, { allowedHosts });
    expect(ok).toMatchObject({ status: 200, text: "hello", truncated: false });
    await expect(safeFetch(`http://127.0.0.1:${port}/redirect-private`, { allowedHosts })).rejects.toThrow(
      /169\.254\.169\.254/,
    );
    const big = await safeFetch(`http://127.0.0.1:${port}/big`, { allowedHosts, maxBytes: 1000 });
    expect(big.text).toHaveLength(1000);
    expect(big.truncated).toBe(true);
    // another port on the same host is not allowed
    await expect(safeFetch("http://127.0.0.1:1/", { allowedHosts })).rejects.toThrow(/non-public/);
  });

  it("webhook targets (https only, form checked without DNS) and guarded POSTs share the guard", async () => {
    const allowedHosts = parseAllowedHosts(`127.0.0.1:${port}`);
    const webhook = { httpsOnly: true, param: "url" };
    expect(assertOutboundUrl("https://example.com/hooks", webhook).host).toBe("example.com");
    for (const url of [
      "http://example.com/x",
      "https://10.0.0.1/x",
      "https://localhost/x",
      "https://[::1]/x",
    ]) {
      let err: unknown;
      try {
        assertOutboundUrl(url, webhook);
      } catch (e) {
        err = e;
      }
      expect(err, url).toMatchObject({ code: "BAD_REQUEST", details: { param: "url" } });
    }
    // plain http and a private address only for an allow-listed host:port
    expect(assertOutboundUrl(`http://127.0.0.1:${port}/`, { ...webhook, allowedHosts }).port).toBe(
      String(port),
    );
    const r = await guardedPost(`http://127.0.0.1:${port}/`, "{}", {}, { allowedHosts, timeoutMs: 5000 });
    expect(r).toMatchObject({ status: 200, body: "hello" });
    await expect(
      guardedPost(`https://127.0.0.1:${port}/`, "{}", {}, { allowedHosts: [], timeoutMs: 5000 }),
    ).rejects.toThrow(/non-public/);
    // a name resolving to a private address is refused inside the socket's own lookup
    const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup(false)("localhost", {}, (err) => resolve(err)),
    );
    expect(refused?.code).toBe("EPRIVATEADDRESS");
    const passed = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup(true)("localhost", {}, (err) => resolve(err)),
    );
    expect(passed).toBeNull();
  });
});
