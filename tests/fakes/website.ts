import http from "node:http";
import type { AddressInfo } from "node:net";

/** A page of a fake website: status, headers and body (a function may stream a large body). */
export interface FakePage {
  status?: number;
  headers?: Record<string, string>;
  body?: string | ((res: http.ServerResponse) => void);
}

/**
 * A local fake business website for the enrichment tests: serves `pages` by path (404 otherwise),
 * records every requested path, and how many bytes of streamed bodies were written before the
 * client went away.
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
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    requested,
    userAgents,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
