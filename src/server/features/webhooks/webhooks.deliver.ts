import { createHmac } from "node:crypto";
import { DateTime } from "luxon";
import { type JobDeps, RetryAfterError } from "../../jobs/define";
import { AppError } from "../../lib/errors";
import { storableText } from "../../lib/nul";
import { guardedPost, parseAllowedHosts } from "../../lib/outbound";
import { hasPlanFeature } from "../billing/billing.plans";
import { getUserProfiles } from "../user/user.service";
import { getWorkspace } from "../workspaces/workspaces.service";
import { DELIVERY_RETRY_LIMIT } from "./webhooks.jobs";
import * as q from "./webhooks.queries";
import { creatorMayDeliver, endpointActor, signingSecrets } from "./webhooks.service";

/** An endpoint whose deliveries keep failing this long is disabled and its owner emailed (issue 15). */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * Seconds: the longest `Retry-After` a delivery honours (1 hour). A receiver asking for more gets its
 * retry after 1 hour: a misbehaving receiver cannot stretch the ~29 h retry schedule (webhooks.jobs)
 * past the 5 days that disable its endpoint (DISABLE_AFTER_MS); 1 hour is also well past what rate
 * limiters ask for in practice.
 */
export const RETRY_AFTER_MAX_S = 60 * 60;

/**
 * The time a `Retry-After` header value names (RFC 9110 section 10.2.3): delta-seconds (`120`)
 * after `now`, or an HTTP-date (section 5.6.7) as luxon's DateTime.fromHTTP reads it: the
 * IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` and the obsolete RFC 850
 * (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`, GMT) forms that
 * recipients must accept; a date that names no real time (Feb 31, 25:00) or whose weekday is wrong is
 * refused. Surrounding whitespace is ignored. Returns null for a missing or malformed value (a negative
 * or fractional number, another date format).
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): Date | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return new Date(now.getTime() + Math.min(Number(v), 1e9) * 1000);
  const at = DateTime.fromHTTP(v, { zone: "utc" });
  return at.isValid ? at.toJSDate() : null;
}

/**
 * When the next attempt after a failed one may start, by the receiver's `Retry-After`: for a 429
 * (RFC 6585 section 4) or 503 (RFC 9110 section 15.6.4) answer, the time its Retry-After names
 * (parseRetryAfter), at most RETRY_AFTER_MAX_S after `now`. Null (the normal backoff alone) for any
 * other status, a missing or malformed value, or a time not after `now`. The retry then starts at
 * the later of this and the backoff's own time (jobs/worker.ts failWithNotBefore), never sooner.
 */
export function retryNotBefore(status: number, retryAfter: string | null, now: Date): Date | null {
  if (status !== 429 && status !== 503) return null;
  const at = parseRetryAfter(retryAfter, now);
  if (!at || at.getTime() <= now.getTime()) return null;
  return new Date(Math.min(at.getTime(), now.getTime() + RETRY_AFTER_MAX_S * 1000));
}

/**
 * Standard Webhooks signature (https://www.standardwebhooks.com, "Signature scheme"):
 * `v1,` + base64 HMAC-SHA256 over `{id}.{timestamp}.{body}` with the secret's base64 part as key.
 * `timestamp` in seconds since the epoch.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/**
 * The `webhook-signature` header over `{id}.{timestamp}.{body}`: one signWebhook signature per secret,
 * space-separated (`v1,<sig1> v1,<sig2>`, Standard Webhooks; a receiver accepts the message when any
 * of them verifies). `secrets`: the endpoint's current secret first, then its previous one while it
 * is valid (webhooks.service signingSecrets).
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string) {
  return secrets.map((s) => signWebhook(s, id, timestamp, body)).join(" ");
}

/** The payload of an event as POSTed: `{type, timestamp, data}` (Standard Webhooks payload shape). */
export function webhookBody(ev: { type: string; createdAt: Date; data: unknown }): string {
  return JSON.stringify({ type: ev.type, timestamp: ev.createdAt.toISOString(), data: ev.data });
}

/**
 * One delivery attempt (job `webhooks.deliver`). POSTs the event with `webhook-id` (the event id:
 * the same on every retry and resend), `webhook-timestamp` and `webhook-signature` (signed at the
 * attempt with the endpoint's secrets then: the current one, and a rolled-over previous one until it
 * expires, signatureHeader). A 2xx marks it
 * succeeded and ends the endpoint's failure streak; anything else is recorded and thrown so pg-boss
 * retries with exponential backoff, until the last attempt marks it failed. A 429 or 503 with a
 * `Retry-After` has its retry wait at least that long, capped at RETRY_AFTER_MAX_S (retryNotBefore,
 * thrown as a RetryAfterError), never less than the backoff. An endpoint failing for
 * DISABLE_AFTER_MS is disabled and the workspace owner emailed; the attempt that disables it fails
 * its delivery (no retry follows). A disabled or deleted endpoint, one
 * whose creator (or whoever re-enabled it: endpointActor) is no longer an owner or admin of its
 * workspace (creatorMayDeliver: a delivery stored
 * or resent before they were removed or demoted is not sent), a workspace whose plan in force no
 * longer includes API access (billing hasPlanFeature: downgraded, unpaid, paused or ended), or a
 * refused (private) target, fails the delivery without retry. The receiver's response text kept in
 * `last_error` (and a disabled reason) has NUL characters and lone surrogates replaced
 * (storableText), so no response keeps an attempt from being recorded.
 */
export async function deliverWebhook(
  deps: Pick<JobDeps, "db" | "env" | "providers" | "log">,
  deliveryId: string,
  meta: { retryCount: number },
): Promise<void> {
  const row = await q.findDelivery(deps.db, deliveryId);
  if (!row || row.d.status === "succeeded") return;
  const { d, e, ev } = row;
  const lapsed = !creatorMayDeliver(endpointActor(e), row.creatorRole);
  // outbound webhooks are part of API access: a workspace whose plan in force lost it (a downgrade,
  // an unpaid, paused or ended subscription) sends nothing, as its API keys get 402 at once
  const unpaid = !hasPlanFeature(row.plan, "apiAccess");
  if (!e.enabled || lapsed || unpaid) {
    await q.recordAttempt(deps.db, d.id, {
      status: "failed",
      responseCode: null,
      durationMs: null,
      lastError: !e.enabled
        ? "endpoint is disabled"
        : lapsed
          ? e.reenabledBy
            ? "endpoint is disabled: the admin who re-enabled it is no longer an admin of this workspace"
            : "endpoint is disabled: its creator is no longer an admin of this workspace"
          : "not sent: the workspace's plan no longer includes API access (webhooks)",
    });
    return;
  }
  const body = webhookBody(ev);
  const timestamp = Math.floor(Date.now() / 1000);
  const last = meta.retryCount >= DELIVERY_RETRY_LIMIT;
  let status = 0;
  let durationMs: number | null = null;
  let error: string | null = null;
  let permanent = false;
  let notBefore: Date | null = null;
  try {
    const r = await guardedPost(
      e.url,
      body,
      {
        "webhook-id": ev.id,
        "webhook-timestamp": String(timestamp),
        // the current secret's signature, and the previous one's while it is valid (a roll's grace)
        "webhook-signature": signatureHeader(signingSecrets(e, new Date()), ev.id, timestamp, body),
        "user-agent": "Pitchwise-Webhooks/1",
      },
      {
        allowedHosts: parseAllowedHosts(deps.env.OUTBOUND_ALLOWED_HOSTS),
        timeoutMs: deps.env.WEBHOOK_TIMEOUT_MS,
      },
    );
    status = r.status;
    durationMs = r.durationMs;
    // the receiver's own text: a NUL in it would fail the attempt's record (Postgres text)
    if (status < 200 || status > 299) {
      error = storableText(`HTTP ${status}: ${r.body.slice(0, 200)}`);
      notBefore = retryNotBefore(status, r.retryAfter, new Date());
    }
  } catch (err) {
    permanent = err instanceof AppError || (err as NodeJS.ErrnoException).code === "EPRIVATEADDRESS";
    error = storableText((err as Error).message.slice(0, 500));
  }
  if (!error) {
    await q.recordAttempt(deps.db, d.id, {
      status: "succeeded",
      responseCode: status,
      durationMs,
      lastError: null,
    });
    if (e.failingSince) await q.clearFailing(deps.db, e.id); // most endpoints have no streak to end
    return;
  }
  const disabled = await q.markFailing(
    deps.db,
    e.id,
    DISABLE_AFTER_MS,
    `Disabled automatically after 5 days of failed deliveries (last: ${error.slice(0, 200)})`,
  );
  // the attempt that disables its endpoint is the delivery's last (no retry follows): failed, not
  // left pending with no attempt to come
  const final = last || permanent || disabled;
  await q.recordAttempt(deps.db, d.id, {
    status: final ? "failed" : "pending",
    responseCode: status || null,
    durationMs,
    lastError: error,
  });
  if (disabled) {
    await notifyOwner(deps, e.workspaceId, e.url, error).catch((err) =>
      deps.log.warn({ err, endpointId: e.id }, "webhook disable email failed"),
    );
    return;
  }
  if (!final) {
    const message = `webhook delivery ${d.id} failed: ${error}`;
    throw notBefore ? new RetryAfterError(message, notBefore) : new Error(message);
  }
}

async function notifyOwner(
  deps: Pick<JobDeps, "db" | "env" | "providers">,
  workspaceId: string,
  url: string,
  error: string,
) {
  const w = await getWorkspace(deps, workspaceId);
  const owner = (await getUserProfiles(deps, [w.ownerId])).get(w.ownerId);
  if (!owner) return;
  const link = `${deps.env.APP_URL}/settings?tab=webhooks`;
  await deps.providers.email.send({
    to: owner.email,
    subject: `Webhook endpoint disabled in ${w.name}`,
    text: `Deliveries to your webhook endpoint ${url} have failed for 5 days, so Pitchwise disabled it.\n\nLast error: ${error}\n\nFix the receiver, then enable the endpoint again in Settings > Webhooks: ${link}`,
    tag: "webhook-disabled",
    workspaceId,
  });
}
