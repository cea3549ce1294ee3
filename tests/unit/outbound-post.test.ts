import dns from "node:dns";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { guardedPost, POST_RESPONSE_MAX_BYTES, postAgent } from "../../src/server/lib/outbound";

/**
 * guardedPost (outbound webhooks' client): keep-alive reuse, the SSRF guard on every new connection,
 * a time limit on the whole request, one resend over a kept-alive connection the server had dropped,
 * and the cap on the response body read.
 */

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, nth: number, conn: number) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** A local server: `handler` gets the request, its rank on its connection (1-based) and the connection's rank. */
async function serve(handler: Handler) {
  const stats = { connections: 0, requests: 0 };
  const server = http.createServer();
  server.on("connection", (socket: Socket & { rank?: number; served?: number }) => {
    socket.rank = ++stats.connections;
    socket.served = 0;
  });
  server.on("request", (req, res) => {
    const socket = req.socket as Socket & { rank: number; served: number };
    stats.requests++;
    socket.served++;
    req.resume();
    req.on("end", () => handler(req, res, socket.served, socket.rank));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}/hooks`, allowedHosts: [`127.0.0.1:${port}`], stats };
}

const post = (url: string, allowedHosts: string[], timeoutMs = 5000) =>
  guardedPost(url, '{"a":1}', { "webhook-id": "msg_1" }, { allowedHosts, timeoutMs });

/** Resolves `hooks.test` to 127.0.0.1 for the guard's lookups (node:dns), other names as usual. */
function fakeDns() {
  const real = dns.lookup.bind(dns) as (...a: unknown[]) => void;
  vi.spyOn(dns, "lookup").mockImplementation(((
    host: string,
    options: unknown,
    cb: (...a: unknown[]) => void,
  ) => {
    if (host !== "hooks.test") return real(host, options, cb);
    const all = [{ address: "127.0.0.1", family: 4 }];
    (options as dns.LookupOptions).all ? cb(null, all) : cb(null, "127.0.0.1", 4);
  }) as unknown as typeof dns.lookup);
}

describe("guardedPost", () => {
  it("keeps connections alive: five POSTs to one receiver use one connection", async () => {
    const s = await serve((_req, res) => res.end("ok"));
    for (let i = 0; i < 5; i++)
      expect(await post(s.url, s.allowedHosts)).toMatchObject({ status: 200, body: "ok" });
    expect(s.stats).toEqual({ connections: 1, requests: 5 });
  });

  it("checks the address of every new connection: a kept-alive allow-listed connection is never lent to a guarded request", async () => {
    fakeDns();
    const s = await serve((_req, res) => res.end("ok"));
    const target = `hooks.test:${s.port}`;
    // allow-listed: connects (and keeps the connection)
    expect(await post(`http://${target}/`, [target])).toMatchObject({ status: 200 });
    expect(s.stats.connections).toBe(1);
    // not allow-listed: https only, and the name resolves to a private address, refused at connect
    await expect(post(`https://${target}/`, [])).rejects.toMatchObject({ code: "EPRIVATEADDRESS" });
    // the guarded pool over plain http, same host and port as the kept-alive connection: refused too
    const err = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const req = http.request(
        `http://${target}/`,
        { method: "POST", agent: postAgent("http:", false) },
        () => resolve(new Error("connected") as NodeJS.ErrnoException),
      );
      req.on("error", resolve);
      req.end("{}");
    });
    expect(err.code).toBe("EPRIVATEADDRESS");
    expect(s.stats).toEqual({ connections: 1, requests: 1 });
  });

  it("times out the whole request, also a response that keeps trickling in", async () => {
    const silent = await serve(() => {}); // never answers
    let t0 = performance.now();
    await expect(post(silent.url, silent.allowedHosts, 300)).rejects.toThrow("timed out after 300 ms");
    expect(performance.now() - t0).toBeLessThan(2000);
    const trickle = await serve((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write("."), 50); // a byte every 50 ms, never ending
      res.on("close", () => clearInterval(timer));
    });
    t0 = performance.now();
    await expect(post(trickle.url, trickle.allowedHosts, 500)).rejects.toThrow("timed out after 500 ms");
    expect(performance.now() - t0).toBeLessThan(2500);
  });

  it("sends once more when a kept-alive connection was dropped before any response, and only once", async () => {
    let resetAll = false;
    // answers the first request of each connection; drops the connection on any later one
    const s = await serve((req, res, nth) => {
      if (resetAll || nth > 1) return req.socket.destroy();
      res.end("ok");
    });
    expect(await post(s.url, s.allowedHosts)).toMatchObject({ status: 200 });
    // the kept-alive connection is dropped: sent again on a new connection
    expect(await post(s.url, s.allowedHosts)).toMatchObject({ status: 200, body: "ok" });
    expect(s.stats).toEqual({ connections: 2, requests: 3 });
    // dropped on the kept-alive connection and again on the new one: the error, after one resend
    resetAll = true;
    await expect(post(s.url, s.allowedHosts)).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(s.stats).toEqual({ connections: 3, requests: 5 });
    // a fresh connection dropped is not sent again
    await expect(post(s.url, s.allowedHosts)).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(s.stats).toEqual({ connections: 4, requests: 6 });
  });

  it(`reads at most ${POST_RESPONSE_MAX_BYTES} bytes of a response, then closes the connection`, async () => {
    let closed = false;
    const s = await serve((_req, res, _nth, conn) => {
      if (conn > 1) return res.end("ok");
      res.writeHead(503);
      const chunk = "é".repeat(8192); // 16 KiB
      const pump = () => {
        while (!closed && res.write(chunk)) {}
      };
      res.on("drain", pump);
      res.on("close", () => {
        closed = true;
      });
      pump(); // endless
    });
    const t0 = performance.now();
    const r = await post(s.url, s.allowedHosts, 10_000);
    expect(r.status).toBe(503);
    expect(r.body).toBe("é".repeat(1000));
    expect(performance.now() - t0).toBeLessThan(5000);
    await vi.waitFor(() => expect(closed).toBe(true));
    // the next POST opens a new connection
    expect(await post(s.url, s.allowedHosts)).toMatchObject({ status: 200, body: "ok" });
    expect(s.stats.connections).toBe(2);
  });
});
