import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeReply {
  status: number;
  json: unknown;
}

/** A tiny programmable HTTP server for vendor fakes: records requests, can fail the next N calls. */
export async function startFake(route: (req: RecordedRequest) => FakeReply | Promise<FakeReply>) {
  const requests: RecordedRequest[] = [];
  const failures: FakeReply[] = [];
  const hooks: { match: (req: RecordedRequest) => boolean; run: (req: RecordedRequest) => Promise<void> }[] =
    [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://fake");
    const rec: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(rec);
    const hook = hooks.findIndex((h) => h.match(rec));
    if (hook >= 0) await hooks.splice(hook, 1)[0]!.run(rec);
    const reply = failures.shift() ?? (await route(rec));
    res.writeHead(reply.status, { "content-type": "application/json" });
    res.end(JSON.stringify(reply.json));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    /** the next calls get these replies instead of the normal route */
    failNext(...replies: FakeReply[]) {
      failures.push(...replies);
    },
    /**
     * The next request `match` accepts waits for `run` before it is answered (once): something the
     * test does while the app waits on the vendor (a race the app must survive).
     */
    beforeReply(match: (req: RecordedRequest) => boolean, run: (req: RecordedRequest) => Promise<void>) {
      hooks.push({ match, run });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
