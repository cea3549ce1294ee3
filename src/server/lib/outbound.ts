import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { AppError } from "./errors";

/**
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

/** Whether an IP address (v4 or v6 text) is public unicast. */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range() === "unicast";
}

/**
 * Checks a URL may be fetched: http or https, and every address its host resolves to is public
 * (or the host[:port] is allowed). Returns the parsed URL.
 * @throws AppError BAD_REQUEST with a sentence naming the problem.
 */
export async function assertPublicUrl(
  raw: string,
  opts: Pick<OutboundOptions, "allowedHosts"> = {},
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("BAD_REQUEST", `Not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new AppError("BAD_REQUEST", `Only http and https URLs can be fetched (got ${url.protocol})`);
  if (url.username || url.password)
    throw new AppError("BAD_REQUEST", "URLs with credentials cannot be fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const allowed = opts.allowedHosts ?? [];
  if (
    allowed.includes(host) ||
    allowed.includes(`${host}:${url.port || (url.protocol === "https:" ? "443" : "80")}`)
  )
    return url;
  const addresses = isIP(host)
    ? [host]
    : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new AppError("BAD_REQUEST", `The host ${host} could not be resolved`);
  const bad = addresses.find((a) => !isPublicAddress(a));
  if (bad)
    throw new AppError(
      "BAD_REQUEST",
      `The host ${host} resolves to a non-public address (${bad}); it cannot be fetched`,
    );
  return url;
}

/**
 * Fetches a URL under the rules above. Returns status, final URL, headers and up to `maxBytes` of the
 * body as text. Note: the address is checked, then fetch resolves again; a DNS answer that changes in
 * between (rebinding) is a residual risk accepted here (short timeouts, no credentials sent).
 * @throws AppError BAD_REQUEST (refused URL or redirect), BAD_GATEWAY (network error or timeout).
 */
export async function safeFetch(raw: string, opts: OutboundOptions = {}) {
  const deadline = AbortSignal.timeout(opts.timeoutMs ?? 5000);
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  let url = await assertPublicUrl(raw, opts);
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: opts.method ?? "GET",
        headers: opts.headers,
        body: opts.body,
        redirect: "manual",
        signal: deadline,
      });
    } catch (e) {
      throw new AppError("BAD_GATEWAY", `Could not fetch ${url.host}: ${(e as Error).message}`);
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      if (hop >= (opts.maxRedirects ?? 3))
        throw new AppError("BAD_REQUEST", `Too many redirects from ${raw}`);
      url = await assertPublicUrl(new URL(location, url).toString(), opts);
      continue;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    let truncated = false;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (size + value.byteLength > maxBytes) {
          chunks.push(value.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          await reader.cancel();
          break;
        }
        chunks.push(value);
        size += value.byteLength;
      }
    }
    return {
      status: res.status,
      url: url.toString(),
      headers: res.headers,
      text: Buffer.concat(chunks).toString("utf8"),
      truncated,
    };
  }
}
