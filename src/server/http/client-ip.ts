import { isIP } from "node:net";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { Env } from "../../env";

declare module "fastify" {
  interface FastifyRequest {
    /** The client's address for rate limits and records (see `clientIpPlugin`). */
    clientIp: string;
  }
}

/**
 * Fastify's `trustProxy` from TRUST_PROXY: `false` (default: X-Forwarded-For ignored, the TCP peer is the
 * client); a list of proxy IPs/CIDRs (proxy-addr); or a hop count N, as proxy-addr's trust function
 * "the first N addresses from the socket inwards are proxies" (Fastify 5.12 refuses a bare number, so
 * the function is explicit; use a count only when the app is reachable solely through those proxies).
 * Never `true`, which believes any X-Forwarded-For (issue 11, finding 3).
 */
export function trustProxyOption(
  env: Pick<Env, "TRUST_PROXY">,
): false | string[] | ((address: string, hop: number) => boolean) {
  const tp = env.TRUST_PROXY;
  if (typeof tp === "number") return tp > 0 ? (_address: string, hop: number) => hop < tp : false;
  return tp;
}

/**
 * Sets `req.clientIp`: on Fly.io (FLY_APP_NAME set, which Fly does on every machine) the `Fly-Client-IP`
 * header that Fly's edge proxy writes (https://fly.io/docs/networking/request-headers/); elsewhere
 * `req.ip` as `trustProxy` resolved it.
 */
export const clientIpPlugin = fp(async (app: FastifyInstance, opts: { env: Pick<Env, "FLY_APP_NAME"> }) => {
  app.decorateRequest("clientIp", "");
  const onFly = Boolean(opts.env.FLY_APP_NAME);
  app.addHook("onRequest", async (req) => {
    const fly = onFly ? req.headers["fly-client-ip"] : undefined;
    req.clientIp = typeof fly === "string" && isIP(fly.trim()) ? fly.trim() : req.ip;
  });
});
