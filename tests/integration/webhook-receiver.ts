import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request a webhookReceiver recorded. */
export type ReceivedWebhook = { headers: http.IncomingHttpHeaders; body: string };

/**
 * A local HTTP receiver for outbound webhook tests (allowed through OUTBOUND_ALLOWED_HOSTS=127.0.0.1):
 * records every request in `got` and answers the next of `statuses` (200 once they run out).
 * `url` is its `/hooks` address; `close` stops it.
 */
export async function webhookReceiver(statuses: number[] = []) {
  const got: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}
