import http from "node:http";
import net, { type AddressInfo } from "node:net";

/** A page of a fake website: status, headers and body (a function may stream a large body). */
export interface FakePage {
  status?: number;
  headers?: Record<string, string>;
  body?: string | ((res: http.ServerResponse) => void);
}

/**
 * A local fake business website for the enrichment tests: serves `pages` by path (404 otherwise),
 * records every requested path and user agent, and whether each connection began with a TLS handshake.
 */
export async function startFakeWebsite(pages: Record<string, FakePage>) {
  const requested: string[] = [];
  const userAgents: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    requested.push(path);
    userAgents.push(String(req.headers["user-agent"] ?? ""));
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<h1>Not found</h1>");
      return;
    }
    res.writeHead(page.status ?? 200, { "content-type": "text/html; charset=utf-8", ...page.headers });
    if (typeof page.body === "function") page.body(res);
    else res.end(page.body ?? "");
  });
  // a TCP front that records TLS handshakes (a first byte of 0x16) before plain HTTP reaches the server,
  // so a test can see an https:// attempt come first
  const connections: ("tls" | "http")[] = [];
  const front = net.createServer((socket) => {
    socket.once("data", (first) => {
      if (first[0] === 0x16) {
        connections.push("tls");
        socket.destroy();
        return;
      }
      connections.push("http");
      socket.pause();
      socket.unshift(first);
      server.emit("connection", socket);
      socket.resume();
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
  const port = (front.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    requested,
    userAgents,
    /** each connection's first protocol, in order */
    connections,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        front.close(() => r());
      }),
  };
}
