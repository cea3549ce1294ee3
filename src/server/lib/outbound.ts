import dns from "node:dns";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { AppError } from "./errors";

/**
 * The one SSRF guard (leads enrichment's safeFetch, outbound webhooks' guardedPost).
 * Outbound HTTP to user-supplied URLs (website enrichment, outbound webhooks) without SSRF: only
 * http(s), only public unicast addresses after DNS resolution (no loopback, private, link-local incl.
 * cloud metadata 169.254.169.254, carrier-grade NAT, multicast, reserved, IPv4-mapped private IPv6),
 * redirects followed by hand and re-checked hop by hop, a time limit and a body size limit.
 * `allowedHosts` (env OUTBOUND_ALLOWED_HOSTS, comma-separated host[:port]) is the only exception,
 * meant for tests' local fake sites. Source: OWASP SSRF Prevention Cheat Sheet.
 */
export interface OutboundOptions {
  /** host or host:port entries exempt from the public-address rule */
  allowedHosts?: string[];
  /** milliseconds for the whole request, redirects included (default 5,000) */
  timeoutMs?: number;
  /** bytes of body read at most; more is cut off and `truncated` set (default 1 MiB) */
  maxBytes?: number;
  /** redirects followed at most (default 3) */
  maxRedirects?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Parses OUTBOUND_ALLOWED_HOSTS ("a.test:8080, localhost") into entries. */
export function parseAllowedHosts(v: string | undefined): string[] {
  return (v ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Whether an IP address (v4 or v6 text) is public unicast. IPv4-mapped IPv6 (::ffff:a.b.c.d) is
 * judged by its IPv4 address; the deprecated IPv4-compatible block ::/96 (RFC 4291 2.5.5.1, e.g.
 * ::7f00:1 for 127.0.0.1), which ipaddr.js calls unicast, is never public.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6") {
    const v6 = addr as ipaddr.IPv6;
    if (v6.parts.slice(0, 6).every((p) => p === 0)) return false;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
  }
  return addr.range() === "unicast";
}

/**
 * Whether `url`'s host, or host:port (default port of its scheme), is in `allowedHosts` (parsed
 * OUTBOUND_ALLOWED_HOSTS): the one exception to the public-address rule.
 */
export function isAllowedHost(url: URL, allowedHosts: readonly string[] = []): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return (
    allowedHosts.includes(host) ||
    allowedHosts.includes(`${host}:${port}`) ||
    allowedHosts.includes(`${url.hostname.toLowerCase()}:${port}`)
  );
}

/** Options of the URL checks: the allow-list, https only (webhooks), the request field to name. */
export interface OutboundUrlOptions {
  /** parsed OUTBOUND_ALLOWED_HOSTS (parseAllowedHosts) */
  allowedHosts?: string[];
  /** refuse plain http except for allow-listed hosts (outbound webhooks, issue 15) */
  httpsOnly?: boolean;
  /** the request field the URL came from, set as the AppError's `param` (e.g. "url") */
  param?: string;
}

/**
 * What a person registering a receiver on their own computer can do instead (webhook endpoints:
 * `httpsOnly`), appended to the refusal of a local or private address; nothing for other fetches.
 */
function localHint(opts: OutboundUrlOptions): string {
  return opts.httpsOnly
    ? ". Use a public URL: to test a receiver on your own computer, expose it with a tunnel such as ngrok or Cloudflare Tunnel"
    : "";
}

/**
 * Checks a URL's form without resolving it (e.g. when a webhook endpoint is registered): an
 * absolute http(s) URL (https only with `httpsOnly`, plain http then only for allow-listed hosts),
 * no credentials, and unless allow-listed, not a non-public literal address nor `localhost`.
 * Returns the parsed URL. @throws AppError BAD_REQUEST with a sentence naming the problem.
 */
export function assertOutboundUrl(raw: string, opts: OutboundUrlOptions = {}): URL {
  const fail = (message: string) =>
    new AppError("BAD_REQUEST", message, opts.param ? { param: opts.param } : undefined);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(`Not a valid URL: ${raw.slice(0, 200)} (an absolute URL such as https://example.com/hooks)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw fail(`Only http and https URLs can be fetched (got ${url.protocol})`);
  const allowed = isAllowedHost(url, opts.allowedHosts);
  if (opts.httpsOnly && url.protocol !== "https:" && !allowed)
    throw fail(
      "The URL must start with https://, so that what is sent to it is encrypted (a server operator can allow a plain-http test host with OUTBOUND_ALLOWED_HOSTS)",
    );
  if (url.username || url.password) throw fail("URLs with credentials cannot be fetched");
  if (allowed) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isIP(host) && !isPublicAddress(host))
    throw fail(
      `The host ${host} resolves to a non-public address (${host}); it cannot be fetched${localHint(opts)}`,
    );
  const name = host.replace(/\.+$/, ""); // "localhost." is the same name as "localhost"
  if (name === "localhost" || name.endsWith(".localhost"))
    throw fail(`The host ${host} resolves to a non-public address; it cannot be fetched${localHint(opts)}`);
  return url;
}

/**
 * Checks a URL may be fetched now: assertOutboundUrl, then every address its host resolves to is
 * public (unless the host[:port] is allowed). Returns the parsed URL.
 * @throws AppError BAD_REQUEST with a sentence naming the problem.
 */
export async function assertPublicUrl(raw: string, opts: OutboundUrlOptions = {}): Promise<URL> {
  const url = assertOutboundUrl(raw, opts);
  if (isAllowedHost(url, opts.allowedHosts)) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  const extra = opts.param ? { param: opts.param } : undefined;
  if (addresses.length === 0)
    throw new AppError("BAD_REQUEST", `The host ${host} could not be resolved`, extra);
  const bad = addresses.find((a) => !isPublicAddress(a));
  // a name's private address is not told: the sentence reaches the tenant (webhook and enrichment
  // logs), and would map this network's internal names to their addresses
  if (bad)
    throw new AppError(
      "BAD_REQUEST",
      isIP(host)
        ? `The host ${host} resolves to a non-public address (${host}); it cannot be fetched`
        : `The host ${host} resolves to a non-public address; it cannot be fetched`,
      extra,
    );
  return url;
}

/**
 * A socket lookup (node:net LookupFunction) that refuses non-public addresses unless `allowed`:
 * the check runs inside the connection's own DNS lookup, so the address checked is the address
 * connected to (no DNS-rebinding window). The refusal is an Error with code EPRIVATEADDRESS whose
 * message names the host but not the address it resolved to: it is shown to the tenant (a webhook
 * delivery's last_error, an enrichment's skip reason), and the address would tell them this
 * network's internal DNS (e.g. that metadata.google.internal is 169.254.169.254).
 */
export function guardedLookup(allowed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (!allowed && (bad || list.length === 0)) {
        const e = new Error(
          `${hostname} resolves to ${bad ? "a non-public address" : "no address"}; only public addresses are reached`,
        ) as NodeJS.ErrnoException;
        e.code = "EPRIVATEADDRESS";
        return callback(e, "", 0);
      }
      if ((options as dns.LookupOptions).all) return (callback as any)(null, list);
      const first = list[0] as dns.LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** What guardedPost returns. */
export interface PostResult {
  status: number;
  /** milliseconds */
  durationMs: number;
  /** the first 1,000 characters of the response body */
  body: string;
  /** the response's `Retry-After` header as sent (RFC 9110 section 10.2.3), null without one */
  retryAfter: string | null;
}

/** Bytes of a response body guardedPost reads at most; past it the connection is closed. */
export const POST_RESPONSE_MAX_BYTES = 64 * 1024;
/**
 * Milliseconds an idle kept-alive connection stays open: below the 5 s keep-alive of common servers
 * (Node's default), so it is rarely reused just as the server closes it. A server's own
 * `Keep-Alive: timeout=N` shortens it further (Node's agent).
 */
export const POST_IDLE_SOCKET_MS = 4000;

/**
 * guardedPost's keep-alive connection pools, one per scheme and per guard: `guarded` pools connect
 * only through guardedLookup(false), so every new connection's resolved address is checked (a pooled
 * connection was checked when it was opened and stays on that address); allow-listed targets
 * (OUTBOUND_ALLOWED_HOSTS) have pools of their own, so a connection opened under the exception is
 * never handed to a request that did not qualify for it. The agent's `lookup` takes precedence over a
 * request's (node:http Agent merges its own options last).
 */
const postAgents = {
  "http:": {
    guarded: new http.Agent({ keepAlive: true, timeout: POST_IDLE_SOCKET_MS, lookup: guardedLookup(false) }),
    allowed: new http.Agent({ keepAlive: true, timeout: POST_IDLE_SOCKET_MS, lookup: guardedLookup(true) }),
  },
  "https:": {
    guarded: new https.Agent({ keepAlive: true, timeout: POST_IDLE_SOCKET_MS, lookup: guardedLookup(false) }),
    allowed: new https.Agent({ keepAlive: true, timeout: POST_IDLE_SOCKET_MS, lookup: guardedLookup(true) }),
  },
} as const;

/**
 * The keep-alive agent guardedPost uses for `protocol` ("http:" or "https:") and a target that is
 * (`allowed`) or is not in OUTBOUND_ALLOWED_HOSTS. Exported for tests of the guard.
 */
export function postAgent(protocol: "http:" | "https:", allowed: boolean): http.Agent {
  return postAgents[protocol][allowed ? "allowed" : "guarded"];
}

/**
 * POSTs a JSON `body` to `url` with `headers` under the outbound rules (https only, plain http for
 * allow-listed hosts; public addresses only, checked by guardedLookup whenever a connection is
 * opened), without following redirects. Used by outbound webhooks.
 * - Connections are kept alive and reused per host (postAgent); when a reused connection turns out
 *   to have been closed by the server before any response (ECONNRESET), the POST is sent once more,
 *   on another connection, within the same time limit.
 * - `timeoutMs` (milliseconds) bounds the whole call: connecting, sending, the resend if any, and
 *   reading the response.
 * - At most POST_RESPONSE_MAX_BYTES of the response body are read, then the connection is closed;
 *   the result keeps its first 1,000 characters.
 * @throws AppError BAD_REQUEST for a refused URL; Error (network, EPRIVATEADDRESS, timeout).
 */
export async function guardedPost(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowedHosts: string[]; timeoutMs: number },
): Promise<PostResult> {
  const u = assertOutboundUrl(url, { allowedHosts: opts.allowedHosts, httpsOnly: true });
  const agent = postAgent(u.protocol as "http:" | "https:", isAllowedHost(u, opts.allowedHosts));
  const started = performance.now();
  const deadline = started + opts.timeoutMs;
  const request = {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    agent,
  };
  try {
    return await postOnce(u, body, request, deadline, opts.timeoutMs, started);
  } catch (err) {
    if (!(err as { droppedReusedSocket?: boolean }).droppedReusedSocket) throw err;
    return postOnce(u, body, request, deadline, opts.timeoutMs, started);
  }
}

/**
 * One POST of guardedPost, settled by `deadline` (performance.now() milliseconds). A rejection of a
 * reused connection closed before any response is marked `droppedReusedSocket`.
 */
function postOnce(
  u: URL,
  body: string,
  request: http.RequestOptions,
  deadline: number,
  timeoutMs: number,
  started: number,
): Promise<PostResult> {
  const mod = u.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    let responded = false;
    const settle = (err: Error | null, result?: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(result!);
    };
    const req = mod.request(u, request, (res) => {
      responded = true;
      const head: Buffer[] = []; // enough bytes for 1,000 characters of UTF-8
      let bytes = 0;
      const done = () =>
        settle(null, {
          status: res.statusCode ?? 0,
          durationMs: Math.round(performance.now() - started),
          body: Buffer.concat(head).toString("utf8").slice(0, 1000),
          retryAfter: res.headers["retry-after"] ?? null,
        });
      res.on("data", (c: Buffer) => {
        if (bytes < 4000) head.push(c.subarray(0, 4000 - bytes));
        bytes += c.length;
        if (bytes >= POST_RESPONSE_MAX_BYTES) {
          done();
          res.destroy(); // the rest is not read: the connection closes instead of going back to the pool
        }
      });
      res.on("end", done);
      res.on("error", (e) => settle(e));
    });
    const timer = setTimeout(
      () => {
        settle(new Error(`timed out after ${timeoutMs} ms`));
        req.destroy();
      },
      Math.max(0, deadline - performance.now()),
    );
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (!responded && req.reusedSocket && e.code === "ECONNRESET")
        Object.assign(e, { droppedReusedSocket: true });
      settle(e);
    });
    req.end(body);
  });
}

/**
 * safeFetch's connection agents, per scheme and per guard, without keep-alive (each page is its own
 * connection): `guarded` connects only through guardedLookup(false), so the address checked is the
 * address connected to; `allowed` serves OUTBOUND_ALLOWED_HOSTS targets.
 */
const getAgents = {
  "http:": {
    guarded: new http.Agent({ lookup: guardedLookup(false) }),
    allowed: new http.Agent({ lookup: guardedLookup(true) }),
  },
  "https:": {
    guarded: new https.Agent({ lookup: guardedLookup(false) }),
    allowed: new https.Agent({ lookup: guardedLookup(true) }),
  },
} as const;

/** One response of safeFetch's requests: status, headers and up to `maxBytes` of the body. */
interface FetchedResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  truncated: boolean;
}

/**
 * One request of safeFetch (no redirect followed) through getAgents: the socket's own DNS lookup is
 * guardedLookup, so a host that resolves to a public address when checked and to a private one when
 * connecting (DNS rebinding) is refused (EPRIVATEADDRESS). Reads at most `maxBytes` of the body.
 */
function requestOnce(
  url: URL,
  opts: OutboundOptions,
  maxBytes: number,
  signal: AbortSignal,
): Promise<FetchedResponse> {
  const mod = url.protocol === "https:" ? https : http;
  const agent =
    getAgents[url.protocol as "http:" | "https:"][
      isAllowedHost(url, opts.allowedHosts) ? "allowed" : "guarded"
    ];
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      { method: opts.method ?? "GET", headers: opts.headers, agent, signal },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
        }
        const finish = (truncated: boolean) => {
          if (settled) return;
          settled = true;
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks), truncated });
        };
        res.on("data", (c: Buffer) => {
          if (settled) return;
          if (size + c.length > maxBytes) {
            chunks.push(c.subarray(0, maxBytes - size));
            size = maxBytes;
            finish(true);
            res.destroy();
            return;
          }
          chunks.push(c);
          size += c.length;
        });
        res.on("end", () => finish(false));
        res.on("error", (e) => {
          if (!settled) reject(e);
        });
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/**
 * Fetches a URL under the rules above. Returns status, final URL, headers and up to `maxBytes` of the
 * body as text. The host is checked (assertPublicUrl, for a clear sentence) and then checked again by
 * the connection's own DNS lookup (guardedLookup): a DNS answer that changes between the two (DNS
 * rebinding) is refused, never connected to.
 * @throws AppError BAD_REQUEST (refused URL or redirect), BAD_GATEWAY (network error, an address
 *   refused at connect time, or timeout).
 */
export async function safeFetch(raw: string, opts: OutboundOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  let url = await assertPublicUrl(raw, opts);
  for (let hop = 0; ; hop++) {
    let res: FetchedResponse;
    try {
      res = await requestOnce(url, opts, maxBytes, deadline);
    } catch (e) {
      const reason = deadline.aborted ? `timed out after ${timeoutMs} ms` : (e as Error).message;
      throw new AppError("BAD_GATEWAY", `Could not fetch ${url.host}: ${reason}`);
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= (opts.maxRedirects ?? 3))
        throw new AppError("BAD_REQUEST", `Too many redirects from ${raw}`);
      url = await assertPublicUrl(new URL(location, url).toString(), opts);
      continue;
    }
    return {
      status: res.status,
      url: url.toString(),
      headers: res.headers,
      text: res.body.toString("utf8"),
      truncated: res.truncated,
    };
  }
}
