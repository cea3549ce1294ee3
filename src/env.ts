import { createHmac } from "node:crypto";
import { isIP } from "node:net";
import path from "node:path";
import { createEnv } from "@t3-oss/env-core";
import { z } from "zod";

const bool = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((v) => v === "true" || v === "1");

/** The development-only APP_SECRET (public; production refuses to boot without its own). */
export const DEV_APP_SECRET = "pitchwise-development-secret-not-for-production";

/**
 * Builds the one validated configuration from an environment record.
 * Every variable has a safe default so a fresh machine runs `npm start` with none set.
 * Throws (at boot) with a list of invalid variables; cross-variable rules (a vendor provider
 * needs its credentials) are checked in `superRefine`-like guards below.
 */
export function loadEnv(source: Record<string, string | undefined> = process.env) {
  const env = createEnv({
    runtimeEnv: source,
    onValidationError(issues) {
      const lines = issues.map((i) => {
        const key = (i.path ?? []).map((p) => (typeof p === "object" ? String(p.key) : String(p))).join(".");
        return `${key}: ${i.message}`;
      });
      throw new Error(`Invalid environment variables:\n- ${lines.join("\n- ")}`);
    },
    emptyStringAsUndefined: true,
    server: {
      NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
      PORT: z.coerce.number().int().min(0).max(65535).default(3000),
      HOST: z.string().default("0.0.0.0"),
      APP_URL: z.string().url().optional(),
      DATABASE_URL: z.string().url().optional(),
      DATA_DIR: z.string().default("./.data"),
      EMBEDDED_PG_PORT: z.coerce.number().int().default(54329),
      PROCESS_ROLE: z.enum(["web", "worker", "all"]).default("all"),
      LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
      /**
       * On SIGTERM/SIGINT: how long running jobs may take to finish before pg-boss fails them back to
       * their queue (retried by the next worker); keep it under Fly's kill_timeout (fly.toml, 30 s).
       */
      SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
      COOKIE_SECURE: bool,
      /**
       * Which proxies may set X-Forwarded-For: unset or `false` trusts none (the client's address is the
       * TCP peer); a number trusts that many hops; else a comma list of IPs/CIDRs (proxy-addr names
       * `loopback`, `linklocal`, `uniquelocal` allowed). Never `true`: anyone could pick their address.
       */
      TRUST_PROXY: z
        .string()
        .optional()
        .transform((v, c) => {
          const raw = (v ?? "").trim();
          if (!raw || raw === "false" || raw === "0") return false as const;
          if (/^\d+$/.test(raw)) return Number(raw);
          const parts = raw
            .split(",")
            .map((p) => p.trim())
            .filter(Boolean);
          const named = new Set(["loopback", "linklocal", "uniquelocal"]);
          for (const p of parts) {
            const [ip, bits] = p.split("/");
            if (named.has(p)) continue;
            const family = isIP(ip);
            const max = family === 4 ? 32 : 128;
            if (!family || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max))) {
              c.addIssue({
                code: "custom",
                message: `TRUST_PROXY: "${p}" is not a hop count, an IP or a CIDR (true is refused: it trusts any X-Forwarded-For)`,
              });
              return z.NEVER;
            }
          }
          return parts;
        }),
      /** set by Fly.io on its machines: the client address is then read from Fly-Client-IP */
      FLY_APP_NAME: z.string().optional(),
      /**
       * Server secret for signatures (click-tracking links). Production must set its own (32+ characters);
       * the development default is public.
       */
      APP_SECRET: z.string().min(32, "APP_SECRET must be at least 32 characters").optional(),
      AUTH_RATE_LIMIT_PER_IP: z.coerce.number().int().positive().default(30),
      /** failed logins per email (all clients together) before each further attempt is slowed down */
      AUTH_RATE_LIMIT_PER_EMAIL: z.coerce.number().int().positive().default(10),
      /** login attempts per (client IP, email) and current-password checks per account, per 15 minutes */
      AUTH_RATE_LIMIT_PER_IP_EMAIL: z.coerce.number().int().positive().default(10),
      /** longest slow-down of one login for an email under attack, milliseconds */
      AUTH_SLOWDOWN_MAX_MS: z.coerce.number().int().min(0).default(5000),
      DEMO_RATE_LIMIT_PER_IP: z.coerce.number().int().positive().default(5),
      DEMO_RATE_LIMIT_PER_TARGET: z.coerce.number().int().positive().default(2),
      /** requests per API key per minute on /api/v1 (issue 15) */
      API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
      /**
       * where rate-limit windows live: `postgres` (table rate_limits, shared by every app machine; the
       * default in production) or `memory` (per process; the default in development and tests)
       */
      RATE_LIMIT_STORE: z.enum(["memory", "postgres"]).optional(),
      /**
       * comma-separated host[:port] list that outbound requests (webhooks) may reach although they
       * resolve to private addresses; the only targets where plain http is accepted
       */
      OUTBOUND_ALLOWED_HOSTS: z.string().default(""),
      /** milliseconds an outbound webhook delivery may take */
      WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
      // providers
      EMAIL_PROVIDER: z.enum(["local", "postmark"]).default("local"),
      EMAIL_FROM: z.string().default("Pitchwise <hello@pitchwise.local>"),
      POSTMARK_SERVER_TOKEN: z.string().optional(),
      POSTMARK_API_HOST: z.string().optional(),
      POSTMARK_BROADCAST_STREAM: z.string().default("broadcast"),
      POSTMARK_WEBHOOK_USER: z.string().optional(),
      POSTMARK_WEBHOOK_PASSWORD: z.string().optional(),
      SMS_PROVIDER: z.enum(["local", "twilio"]).default("local"),
      VOICE_PROVIDER: z.enum(["local", "twilio"]).default("local"),
      TWILIO_ACCOUNT_SID: z.string().optional(),
      TWILIO_AUTH_TOKEN: z.string().optional(),
      TWILIO_FROM_NUMBER: z.string().optional(),
      TWILIO_MESSAGING_SERVICE_SID: z.string().optional(),
      TWILIO_API_HOST: z.string().optional(),
      VOICEMAIL_PROVIDER: z.enum(["local", "dropcowboy"]).default("local"),
      DROPCOWBOY_TEAM_ID: z.string().optional(),
      DROPCOWBOY_SECRET: z.string().optional(),
      DROPCOWBOY_API_URL: z.string().url().default("https://api.dropcowboy.com/v1"),
      DROPCOWBOY_CALLER_ID: z.string().optional(),
      DROPCOWBOY_BRAND_ID: z.string().optional(),
      /** seconds a claimed campaign recipient stays with its worker before another may re-check it */
      CAMPAIGN_SEND_LEASE_SECONDS: z.coerce.number().positive().default(60),
      /** seconds between a sending campaign's progress checks (completion, stuck-recipient recovery) */
      CAMPAIGN_WATCHDOG_SECONDS: z.coerce.number().positive().default(3),
      /** local providers simulate delivery, opens, clicks and replies (default: outside production) */
      CAMPAIGN_SIMULATE_ENGAGEMENT: z.enum(["true", "false", "1", "0"]).optional(),
      AVATAR_PROVIDER: z.enum(["local", "did", "heygen"]).default("local"),
      DID_API_KEY: z.string().optional(),
      DID_API_URL: z.string().url().default("https://api.d-id.com"),
      HEYGEN_API_KEY: z.string().optional(),
      HEYGEN_API_URL: z.string().url().default("https://api.heygen.com"),
      /** presenter image D-ID animates (a public .jpg/.png URL) */
      DID_SOURCE_URL: z
        .string()
        .url()
        .default("https://d-id-public-bucket.s3.us-west-2.amazonaws.com/alice.jpg"),
      /** Microsoft TTS voice D-ID speaks with */
      DID_VOICE_ID: z.string().default("en-US-JennyNeural"),
      HEYGEN_AVATAR_ID: z.string().default("Daisy-inskirt-20220818"),
      HEYGEN_VOICE_ID: z.string().default("2d5b0e6cf36f460aa7fc47e3eee4ba54"),
      /** seconds between status polls of a processing avatar video (spec section 9: 5000 ms) */
      AVATAR_POLL_INTERVAL_SECONDS: z.coerce.number().positive().default(5),
      /** an avatar video still processing after this many seconds fails with a timeout */
      AVATAR_POLL_TIMEOUT_SECONDS: z.coerce.number().positive().default(1800),
      STORAGE_PROVIDER: z.enum(["local", "s3"]).default("local"),
      S3_BUCKET: z.string().optional(),
      S3_ENDPOINT: z.string().optional(),
      S3_REGION: z.string().default("auto"),
      AWS_ACCESS_KEY_ID: z.string().optional(),
      AWS_SECRET_ACCESS_KEY: z.string().optional(),
      FFMPEG_PATH: z.string().optional(),
      FFPROBE_PATH: z.string().optional(),
      SEND_RATE_EMAIL_PER_SEC: z.coerce.number().positive().default(2000),
      SEND_RATE_SMS_PER_SEC: z.coerce.number().positive().default(2000),
      SEND_RATE_VOICE_PER_SEC: z.coerce.number().positive().default(50),
      /** fetch loops per queue in a worker process, for queues whose contract sets none */
      WORKER_CONCURRENCY: z.coerce.number().int().positive().max(64).default(2),
      /** seconds between an idle queue's fetches (pg-boss minimum 0.5), for queues whose contract sets none */
      WORKER_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
      /** card payments for plans: local (offline test checkout) or stripe */
      PAYMENTS_PROVIDER: z.enum(["local", "stripe"]).default("local"),
      STRIPE_SECRET_KEY: z.string().optional(),
      /** whsec_... of the webhook endpoint APP_URL/api/webhooks/stripe */
      STRIPE_WEBHOOK_SECRET: z.string().optional(),
      /** base URL replacing https://api.stripe.com (a local fake) */
      STRIPE_API_HOST: z.string().url().optional(),
      /**
       * the billing portal configuration (bpc_...) of plan-change confirmations (subscription updates
       * enabled with the plans' prices); unset: the account's default configuration
       */
      STRIPE_PORTAL_PLAN_CHANGE_CONFIGURATION: z
        .string()
        .regex(/^bpc_\w+$/, "must be a bpc_... id")
        .optional(),
      /**
       * the billing portal configuration (bpc_...) of "Manage billing" and the portal's other home-page
       * sessions; unset: the one Pitchwise creates in the account, which cannot change plans
       */
      STRIPE_PORTAL_CONFIGURATION: z
        .string()
        .regex(/^bpc_\w+$/, "must be a bpc_... id")
        .optional(),
      /** Stripe price ids of the paid plans (spec section 9 names them price_professional, ...) */
      STRIPE_PRICE_PROFESSIONAL: z.string().default("price_professional"),
      STRIPE_PRICE_BUSINESS: z.string().default("price_business"),
      STRIPE_PRICE_ENTERPRISE: z.string().default("price_enterprise"),
      /** serve the local test checkout in production too (it is always on outside production) */
      LOCAL_CHECKOUT_ENABLED: bool,
      /** HMAC secret of the local payments provider's signed events; unset, derived from APP_SECRET */
      LOCAL_PAYMENTS_WEBHOOK_SECRET: z.string().optional(),
      /** business lead search provider (issue 13): local demo data, OpenStreetMap (Overpass) or Google */
      PLACES_PROVIDER: z.enum(["local", "osm", "google"]).default("local"),
      GOOGLE_PLACES_API_KEY: z.string().optional(),
      GOOGLE_PLACES_API_URL: z.string().url().default("https://places.googleapis.com"),
      OVERPASS_URL: z.string().url().default("https://overpass-api.de/api/interpreter"),
      /** provider calls one business search may make (cost bound; reported when reached) */
      PLACES_MAX_CALLS_PER_SEARCH: z.coerce.number().int().min(1).max(100_000).default(250),
      /**
       * days Google Places content other than place ids is kept in stored results (Google's terms allow
       * temporary caching, at most 30 days); then only place ids remain
       */
      GOOGLE_PLACES_RETENTION_DAYS: z.coerce.number().int().min(1).max(30).default(30),
      /**
       * The contact map's street basemap (a MapLibre style JSON URL, no key; issue 14). `offline` draws
       * only the bundled US-states outline, which is also the fallback when the style or tiles fail.
       */
      MAP_STYLE_URL: z
        .union([z.literal("offline"), z.string().url().startsWith("http")])
        .default("https://tiles.openfreemap.org/styles/liberty"),
    },
  });
  const problems: string[] = [];
  if (env.EMAIL_PROVIDER === "postmark" && !env.POSTMARK_SERVER_TOKEN)
    problems.push("EMAIL_PROVIDER=postmark needs POSTMARK_SERVER_TOKEN");
  if (
    (env.SMS_PROVIDER === "twilio" || env.VOICE_PROVIDER === "twilio") &&
    !(env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN)
  )
    problems.push("SMS_PROVIDER/VOICE_PROVIDER=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN");
  if (env.AVATAR_PROVIDER === "did" && !env.DID_API_KEY)
    problems.push("AVATAR_PROVIDER=did needs DID_API_KEY");
  if (env.AVATAR_PROVIDER === "heygen" && !env.HEYGEN_API_KEY)
    problems.push("AVATAR_PROVIDER=heygen needs HEYGEN_API_KEY");
  if (env.STORAGE_PROVIDER === "s3" && !env.S3_BUCKET) problems.push("STORAGE_PROVIDER=s3 needs S3_BUCKET");
  if (env.VOICEMAIL_PROVIDER === "dropcowboy" && !(env.DROPCOWBOY_TEAM_ID && env.DROPCOWBOY_SECRET))
    problems.push("VOICEMAIL_PROVIDER=dropcowboy needs DROPCOWBOY_TEAM_ID and DROPCOWBOY_SECRET");
  if (env.NODE_ENV === "production" && !env.APP_SECRET)
    problems.push(
      "NODE_ENV=production needs APP_SECRET (32+ random characters, e.g. `openssl rand -hex 32`)",
    );
  if (env.PAYMENTS_PROVIDER === "stripe" && !(env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET))
    problems.push("PAYMENTS_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET");
  if (env.PLACES_PROVIDER === "google" && !env.GOOGLE_PLACES_API_KEY)
    problems.push("PLACES_PROVIDER=google needs GOOGLE_PLACES_API_KEY");
  // boot warnings (index.ts logs them): a production refusal is a warning outside production
  const warnings: string[] = [];
  const callerId = voicemailCallerIdMismatch(env);
  if (callerId) (env.NODE_ENV === "production" ? problems : warnings).push(callerId);
  if (problems.length) throw new Error(`Invalid environment:\n- ${problems.join("\n- ")}`);
  return {
    ...env,
    configWarnings: warnings,
    DATA_DIR: path.resolve(env.DATA_DIR),
    // without a trailing slash: links and webhook URLs are APP_URL + "/path", and the Twilio signature
    // check rebuilds the URL Twilio called the same way (a trailing slash made every one fail)
    APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ""),
    APP_SECRET: env.APP_SECRET ?? DEV_APP_SECRET,
    LOCAL_PAYMENTS_WEBHOOK_SECRET:
      env.LOCAL_PAYMENTS_WEBHOOK_SECRET ?? localPaymentsWebhookSecret(env.APP_SECRET ?? DEV_APP_SECRET),
    RATE_LIMIT_STORE: env.RATE_LIMIT_STORE ?? (env.NODE_ENV === "production" ? "postgres" : "memory"),
    isProduction: env.NODE_ENV === "production",
  };
}

/**
 * The local payments provider's webhook secret when LOCAL_PAYMENTS_WEBHOOK_SECRET is unset:
 * "whsec_" + HMAC-SHA256(APP_SECRET, "local-payments-webhook") in hex (70 characters). It was the
 * literal "whsec_local_pitchwise", public in the source, so on a deploy keeping the local provider
 * anyone could sign a subscription event for their workspace (issue 11). Derived, every instance of a
 * deploy agrees on it, and it is as secret as APP_SECRET (which production must set).
 */
function localPaymentsWebhookSecret(appSecret: string): string {
  return `whsec_${createHmac("sha256", appSecret).update("local-payments-webhook").digest("hex")}`;
}

/** `+1 (500) 555-0006` and `+15005550006` are one number: digits (and the plus) only. */
const sameNumber = (a: string, b: string) => a.replace(/[^\d+]/g, "") === b.replace(/[^\d+]/g, "");

/**
 * The sentence refusing (production) or warning about (elsewhere) a ringless voicemail caller ID that
 * is not the callback number, or null. With VOICEMAIL_PROVIDER=dropcowboy and VOICE_PROVIDER=twilio,
 * every voicemail says "call <TWILIO_FROM_NUMBER> and press 9" (47 CFR 64.1200(b): a number to call
 * to opt out), and only that number's inbound calls reach the opt-out menu
 * (/api/webhooks/voice/inbound). A different DROPCOWBOY_CALLER_ID is the number people see and most
 * often call back: their call would not reach the menu, so their opt-out could be lost. Unset, Drop
 * Cowboy is given TWILIO_FROM_NUMBER as caller ID (providers/index.ts).
 */
function voicemailCallerIdMismatch(env: {
  VOICEMAIL_PROVIDER: string;
  VOICE_PROVIDER: string;
  DROPCOWBOY_CALLER_ID?: string;
  TWILIO_FROM_NUMBER?: string;
}): string | null {
  const shown = env.DROPCOWBOY_CALLER_ID;
  const spoken = env.VOICE_PROVIDER === "twilio" ? env.TWILIO_FROM_NUMBER : undefined;
  if (env.VOICEMAIL_PROVIDER !== "dropcowboy" || !shown || !spoken || sameNumber(shown, spoken)) return null;
  return (
    `DROPCOWBOY_CALLER_ID (${shown}) is not TWILIO_FROM_NUMBER (${spoken}): voicemails would show ${shown} as ` +
    `caller ID but tell people to call ${spoken} to opt out, and a call back to ${shown} does not reach the ` +
    `opt-out menu (only TWILIO_FROM_NUMBER's voice webhook, /api/webhooks/voice/inbound, serves it). ` +
    `Unset DROPCOWBOY_CALLER_ID (voicemails then show TWILIO_FROM_NUMBER) or set it to ${spoken}.`
  );
}

export type Env = ReturnType<typeof loadEnv>;
