import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { AppError } from "../../lib/errors";

/**
 * SSRF guard for outbound webhook requests (issue 15): a target must resolve to public addresses
 * only; `OUTBOUND_ALLOWED_HOSTS` (comma-separated `host[:port]`) is the one exception, and the only
 * place plain http is accepted. The check runs inside the socket's DNS lookup, so the address that
 * is checked is the address connected to (no DNS-rebinding window).
 *
 * NOTE for the lead: a shared guard (src/server/lib/outbound.ts) is being written by the leads
 * helper; this module is the webhooks' own until it lands.
 */

const BLOCKED = new net.BlockList();
for (const [addr, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  BLOCKED.addSubnet(addr, prefix, "ipv4");
for (const [addr, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["::ffff:0:0", 96],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  BLOCKED.addSubnet(addr, prefix, "ipv6");

/** True for a globally routable unicast address (RFC 6890 special-purpose ranges are not). */
export function isPublicAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return false;
  if (family === 6 && ip.toLowerCase().startsWith("::ffff:")) {
    const v4 = ip.slice(7);
    if (net.isIPv4(v4)) return !BLOCKED.check(v4, "ipv4");
  }
  return !BLOCKED.check(ip, family === 4 ? "ipv4" : "ipv6");
}

/** Parses `OUTBOUND_ALLOWED_HOSTS` into lower-cased `host` and `host:port` entries. */
function allowList(raw: string): Set<string> {
  return new Set(
    raw
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

function isAllowed(u: URL, allowed: Set<string>): boolean {
  const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return (
    allowed.has(host) || allowed.has(`${host}:${port}`) || allowed.has(`${u.hostname.toLowerCase()}:${port}`)
  );
}

/**
 * Checks a target URL's form: https (http only for allow-listed hosts), no credentials, a host name
 * or a public literal address.
 * @throws AppError BAD_REQUEST with a sentence (param `url`).
 */
export function assertTargetUrl(raw: string, allowedHosts: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new AppError("BAD_REQUEST", "url must be an absolute URL such as https://example.com/hooks", {
      param: "url",
    });
  }
  const allowed = isAllowed(u, allowList(allowedHosts));
  if (u.protocol !== "https:" && !(u.protocol === "http:" && allowed))
    throw new AppError("BAD_REQUEST", "url must use https", { param: "url" });
  if (u.username || u.password)
    throw new AppError("BAD_REQUEST", "url must not contain a user name or password", { param: "url" });
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (
    !allowed &&
    (net.isIP(host) ? !isPublicAddress(host) : host === "localhost" || host.endsWith(".localhost"))
  )
    throw new AppError("BAD_REQUEST", "url must point to a public address", { param: "url" });
  return u;
}

/** A lookup that refuses private addresses unless the host is allow-listed. */
function guardedLookup(allowed: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (!allowed && (bad || list.length === 0)) {
        const e = new Error(
          `${hostname} resolves to a private address (${bad?.address ?? "none"}); webhooks go to public addresses only`,
        ) as NodeJS.ErrnoException;
        e.code = "EPRIVATEADDRESS";
        return callback(e, "", 0);
      }
      if ((options as dns.LookupOptions).all) return (callback as any)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export interface PostResult {
  status: number;
  /** milliseconds */
  durationMs: number;
  /** the first 1,000 characters of the response body */
  body: string;
}

/**
 * POSTs `body` to `url` with `headers`, through the SSRF guard, without following redirects.
 * @throws AppError BAD_REQUEST for a refused target; Error (network, timeout after `timeoutMs`).
 */
export function guardedPost(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { allowedHosts: string; timeoutMs: number },
): Promise<PostResult> {
  const u = assertTargetUrl(url, opts.allowedHosts);
  const allowed = isAllowed(u, allowList(opts.allowedHosts));
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && !allowed && !isPublicAddress(host))
    return Promise.reject(new AppError("BAD_REQUEST", "url must point to a public address"));
  const started = performance.now();
  const mod = u.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      u,
      {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
        lookup: guardedLookup(allowed),
        timeout: opts.timeoutMs,
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          if (text.length < 1000) text += c;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            durationMs: Math.round(performance.now() - started),
            body: text.slice(0, 1000),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}
