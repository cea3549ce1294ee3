import { randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { pgErrorCode } from "../../db/errors";
import { inTransaction } from "../../db/reserved";
import type { WebhookDelivery, WebhookEndpoint } from "../../db/schema";
import type { JobSchedule } from "../../jobs/client";
import { cursorPage, pgTimestampText } from "../../lib/cursor";
import { AppError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { assertOutboundUrl, parseAllowedHosts } from "../../lib/outbound";
import { parseInput } from "../../lib/validate";
import { assertPlanFeature } from "../billing/billing.plans";
import { displayNames } from "../user/user.service";
import { assertCan, type Tenant } from "../workspaces/workspaces.service";
import { testEventData } from "./webhooks.examples";
import { DELIVERY_RETRY_LIMIT, deliverWebhookJob, STRANDED_DELIVERY_MINUTES } from "./webhooks.jobs";
import * as q from "./webhooks.queries";
import {
  type CreateEndpointInput,
  createEndpointSchema,
  endpointIdSchema,
  ROLL_SECRET_DEFAULT_HOURS,
  type RotateSecretInput,
  rotateSecretSchema,
  type TestEventInput,
  testEventSchema,
  type UpdateEndpointInput,
  updateEndpointSchema,
  type WebhookEventType,
} from "./webhooks.schemas";

export {
  ROLL_SECRET_DEFAULT_HOURS,
  ROLL_SECRET_MAX_HOURS,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "./webhooks.schemas";

type Ctx = Pick<AppContext, "db" | "jobs" | "env">;

/**
 * A webhook target's form (issue 15), checked when an endpoint is saved: the shared SSRF guard's
 * assertOutboundUrl with https only (plain http and private addresses only for hosts in
 * OUTBOUND_ALLOWED_HOSTS); each delivery checks the resolved address again (guardedPost).
 * @throws AppError BAD_REQUEST (param `url`).
 */
function assertWebhookTarget(ctx: Pick<AppContext, "env">, url: string): URL {
  return assertOutboundUrl(url, {
    allowedHosts: parseAllowedHosts(ctx.env.OUTBOUND_ALLOWED_HOSTS),
    httpsOnly: true,
    param: "url",
  });
}

/**
 * What an endpoint whose creator is no longer an owner or admin of its workspace shows as its
 * disabled reason (creatorMayDeliver).
 */
export const CREATOR_LAPSED_REASON =
  "Its creator is no longer an admin of this workspace; an admin can re-enable it.";

/** The same for an endpoint someone re-enabled (it acts for them: endpointActor). */
export const REENABLER_LAPSED_REASON =
  "The admin who re-enabled it is no longer an admin of this workspace; an admin can re-enable it.";

/**
 * The person whose authority an endpoint delivers with: whoever last enabled it again
 * (`reenabledBy`, updateEndpoint), else whoever added it (`createdBy`, which re-enabling keeps, so
 * Settings still says who added it). Null: nobody recorded (creatorMayDeliver).
 */
export function endpointActor(e: Pick<WebhookEndpoint, "createdBy" | "reenabledBy">): string | null {
  return e.reenabledBy ?? e.createdBy;
}

/**
 * Whether an endpoint may still send the workspace's data, by the person it acts for (`actor`:
 * endpointActor, its creator or whoever re-enabled it): an endpoint acts with that person's
 * authority, as an API key does with its creator's (api.service authenticateApiKey), so it stops once
 * they are no longer an owner or admin of the workspace (removed, left, demoted). `actor` null: made
 * before endpoints recorded who made them, taken as the owner's. `role`: that person's role in the
 * endpoint's workspace today (null: not a member). Checked live, like keys: a creator made admin
 * again makes it deliver again; an admin who enables it again takes it over (updateEndpoint).
 */
export function creatorMayDeliver(actor: string | null, role: string | null): boolean {
  return actor === null || role === "owner" || role === "admin";
}

/**
 * An endpoint as the API shows it (the secret only at creation). `creatorRole`: the role in the
 * workspace today of the person it acts for (endpointActor); an endpoint that person may no longer
 * deliver for (creatorMayDeliver) shows `enabled: false` with CREATOR_LAPSED_REASON (or
 * REENABLER_LAPSED_REASON for one someone re-enabled), as it sends nothing.
 */
export function toEndpointJson(e: WebhookEndpoint, creatorRole: string | null) {
  const lapsed = e.enabled && !creatorMayDeliver(endpointActor(e), creatorRole);
  return {
    id: e.id,
    url: e.url,
    events: e.events as WebhookEventType[],
    enabled: e.enabled && !lapsed,
    disabled_reason: lapsed
      ? e.reenabledBy
        ? REENABLER_LAPSED_REASON
        : CREATOR_LAPSED_REASON
      : e.disabledReason,
    failing_since: e.failingSince?.toISOString() ?? null,
    previous_secret_expires_at: previousSecretValid(e, new Date())
      ? e.previousSecretExpiresAt!.toISOString()
      : null,
    created_at: e.createdAt.toISOString(),
  };
}

/**
 * Whether the endpoint's previous secret (kept by rotateEndpointSecret) still signs deliveries at
 * `now`: it exists and its expiry is after `now`.
 */
export function previousSecretValid(
  e: Pick<WebhookEndpoint, "previousSecret" | "previousSecretExpiresAt">,
  now: Date,
): boolean {
  return !!e.previousSecret && !!e.previousSecretExpiresAt && e.previousSecretExpiresAt > now;
}

/**
 * The secrets a delivery at `now` is signed with (webhooks.deliver signatureHeader): the current
 * one first, then the previous one while it is valid (previousSecretValid).
 */
export function signingSecrets(
  e: Pick<WebhookEndpoint, "secret" | "previousSecret" | "previousSecretExpiresAt">,
  now: Date,
): string[] {
  return previousSecretValid(e, now) ? [e.secret, e.previousSecret!] : [e.secret];
}

/**
 * A delivery log row. `attempts`: the attempts recorded for it in all (a resend's included);
 * `response_code`, `duration_ms`, `last_error`: the latest attempt's. Where it stands in the retry
 * schedule of its current job (`job`: the pg-boss row of webhooks.deliver, JobClient.schedules;
 * undefined when the queue no longer holds it or the client keeps no schedule):
 * - `attempt`: attempts its job has started, the one running included (0 before the first; pg-boss
 *   retry_count + 1 once started); without a job, `attempts` at most `max_attempts`;
 * - `max_attempts`: the first attempt plus the job's retry limit (DELIVERY_RETRY_LIMIT + 1 = 12);
 * - `next_attempt_at`: ISO 8601, when the waiting job may start its next attempt, as pg-boss
 *   scheduled it (start_after: the backoff's time, or a receiver's later Retry-After,
 *   jobs/worker failWithNotBefore); null unless the delivery is pending and its job waiting
 *   (created or retry). A `failed` delivery has given up: no attempt follows unless it is resent.
 */
export function toDeliveryJson(d: WebhookDelivery, type: string, job?: JobSchedule) {
  const maxAttempts = (job?.retryLimit ?? DELIVERY_RETRY_LIMIT) + 1;
  const waiting = d.status === "pending" && (job?.state === "created" || job?.state === "retry");
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: type,
    status: d.status,
    attempts: d.attempts,
    response_code: d.responseCode,
    duration_ms: d.durationMs,
    last_error: d.lastError,
    last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    attempt: job ? (job.state === "created" ? 0 : job.retryCount + 1) : Math.min(d.attempts, maxAttempts),
    max_attempts: maxAttempts,
    next_attempt_at: waiting ? job.startAfter.toISOString() : null,
  };
}

/** The pg-boss job a delivery follows now: a resend's own (`job_id`), else the delivery's id. */
const deliveryJobId = (d: WebhookDelivery) => d.jobId ?? d.id;

/**
 * Log rows with their jobs' retry schedules, read from the job client in one call for the page
 * (JobClient.schedules; none when the client keeps no schedule).
 */
async function deliveryLog(ctx: Pick<AppContext, "jobs">, rows: { d: WebhookDelivery; type: string }[]) {
  const jobs =
    (await ctx.jobs.schedules?.(
      deliverWebhookJob,
      rows.map((r) => deliveryJobId(r.d)),
    )) ?? null;
  return rows.map((r) => toDeliveryJson(r.d, r.type, jobs?.get(deliveryJobId(r.d))));
}

function assertManage(tenant: Tenant) {
  assertCan(tenant, "manageWebhooks");
  assertPlanFeature(tenant.workspace, "apiAccess");
}

/** The tenant's endpoint `{e, creatorRole}`. @throws NOT_FOUND (also another workspace's or a malformed id). */
async function ownEndpoint(ctx: Pick<AppContext, "db">, tenant: Tenant, id: string) {
  const e = endpointIdSchema.safeParse(id).success
    ? await q.findEndpoint(ctx.db, tenant.workspaceId, id)
    : undefined;
  if (!e) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return e;
}

/** The disabled reason of an endpoint an account recovery switched off (disableEndpointsCreatedBySince). */
export const RECOVERY_DISABLED_REASON =
  "Disabled when the account that created it was recovered: it was added after the account's email address was changed without its owner's consent. Check its URL before enabling it again.";

/**
 * An account recovery (auth recoverEmail): disables every enabled endpoint `userId` created at or
 * after `since` (the undone email change), in every workspace, since whoever made the change may
 * have added them to receive the workspace's contacts; each gets RECOVERY_DISABLED_REASON and stays
 * listed, so an owner can check it and enable it again. `ctx.db` may be the recovery's transaction.
 * Returns how many were disabled.
 */
export async function disableEndpointsCreatedBySince(
  ctx: { db: DbOrTx },
  userId: string,
  since: Date,
): Promise<number> {
  return (await q.disableEndpointsCreatedBySince(ctx.db, userId, since, RECOVERY_DISABLED_REASON)).length;
}

/**
 * Endpoints a workspace may have (enabled or not). Every emitted event stores one delivery per
 * subscribed endpoint in the emitting change's transaction and POSTs each, so an unbounded count let
 * one tenant multiply every contact write (a 1,000-row bulk upsert times N endpoints) into the
 * shared delivery queue. Stripe allows 16 per account.
 */
export const WEBHOOK_ENDPOINT_LIMIT = 20;

/**
 * Creates an endpoint `{url, events}`; returns it with its signing `secret` (`whsec_` + base64 of 24
 * random bytes, Standard Webhooks), shown this once. The url must be https and not a private
 * address (OUTBOUND_ALLOWED_HOSTS excepted); it is checked again on every delivery after DNS. A
 * workspace has at most WEBHOOK_ENDPOINT_LIMIT endpoints (counted under the workspace's
 * endpoint-creation lock, so concurrent creations cannot pass it together).
 * @throws FORBIDDEN (member), PAYMENT_REQUIRED (plan without API access), BAD_REQUEST, CONFLICT
 *   (409) when the workspace already has WEBHOOK_ENDPOINT_LIMIT endpoints.
 */
export async function createEndpoint(ctx: Ctx, tenant: Tenant, input: CreateEndpointInput) {
  assertManage(tenant);
  const f = parseInput(createEndpointSchema, input);
  assertWebhookTarget(ctx, f.url);
  const secret = newSecret();
  const row = await ctx.db.transaction(async (tx) => {
    if ((await q.lockEndpointCreation(tx, tenant.workspaceId)) >= WEBHOOK_ENDPOINT_LIMIT)
      throw new AppError(
        "CONFLICT",
        `This workspace already has ${WEBHOOK_ENDPOINT_LIMIT} webhook endpoints, the most it can have. Delete one it no longer uses, or subscribe an existing endpoint to more events.`,
      );
    return q.insertEndpoint(tx, {
      workspaceId: tenant.workspaceId,
      url: f.url,
      events: f.events,
      secret,
      createdBy: tenant.userId,
    });
  });
  return { ...toEndpointJson(row, tenant.role), secret };
}

/** A new signing secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks). */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * Rolls an endpoint's signing secret (Stripe's "Roll secret", Svix's rotate): a new secret (same
 * form as at creation) becomes the current one and is returned this once, as `{...endpoint,
 * secret}`; the secret it replaces keeps signing deliveries beside it for `expiresInHours`
 * (ROLL_SECRET_DEFAULT_HOURS = 24 when not given, 0 to ROLL_SECRET_MAX_HOURS = 168 whole hours;
 * 0 stops it at once), so the receiver can switch without losing a delivery: each delivery meanwhile
 * carries `webhook-signature: v1,<new> v1,<old>` (Standard Webhooks: a receiver accepts any signature
 * that verifies). Only one previous secret is kept: rolling again drops the one before. One UPDATE
 * statement (the previous secret is the row's current value), so concurrent rolls cannot lose a
 * secret in between. Allowed to owners and admins whatever the plan, as deleting is: it is the
 * remedy for a leaked secret.
 * @throws FORBIDDEN (member), NOT_FOUND 'Webhook endpoint not found' (also another workspace's),
 *   BAD_REQUEST (param `expiresInHours`) outside 0..168 or not a whole number.
 */
export async function rotateEndpointSecret(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  id: string,
  input: RotateSecretInput = {},
) {
  assertCan(tenant, "manageWebhooks");
  const f = parseInput(rotateSecretSchema, input ?? {});
  const hours = f.expiresInHours ?? ROLL_SECRET_DEFAULT_HOURS;
  const secret = newSecret();
  const row = endpointIdSchema.safeParse(id).success
    ? await q.rotateEndpointSecret(
        ctx.db,
        tenant.workspaceId,
        id,
        secret,
        hours > 0 ? new Date(Date.now() + hours * 3_600_000) : null,
      )
    : undefined;
  if (!row) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return { ...toEndpointJson(row.e, row.creatorRole), secret };
}

/**
 * The workspace's endpoints, newest first, for Settings > Webhooks (REST `GET /api/webhook-endpoints`,
 * tRPC `webhooks.list`; not the public API's list): toEndpointJson plus `creator_name`, the name
 * (user.service displayNames: the name, else the email, else 'A former member') of whoever added
 * the endpoint (kept when someone re-enables it), also once they are no longer a member (the row then
 * reads "Ben Admin (former member)" beside the disabled reason), null when nobody is recorded;
 * `creator_member` (false once that person is not a member of the workspace); and
 * `reenabled_by_name`, the name of whoever last enabled it again (null until someone does), which
 * the row shows as "Re-enabled by Ana Owner".
 * @throws FORBIDDEN for members.
 */
export async function listEndpoints(ctx: Pick<AppContext, "db">, tenant: Tenant) {
  assertCan(tenant, "manageWebhooks");
  const rows = await q.listEndpoints(ctx.db, tenant.workspaceId);
  const names = await displayNames(
    ctx,
    rows.flatMap((r) => [r.e.createdBy, r.e.reenabledBy]),
  );
  return rows.map((r) => {
    return {
      ...toEndpointJson(r.e, r.creatorRole),
      creator_name: (r.e.createdBy && names.get(r.e.createdBy)) ?? null,
      creator_member: r.creatorIsMember,
      reenabled_by_name: (r.e.reenabledBy && names.get(r.e.reenabledBy)) ?? null,
    };
  });
}

/** Cursor of the newest-first lists: the last row's `[created_at::text, id]`. */
const newestCursor = z.tuple([pgTimestampText, z.uuid()]);

/**
 * A cursor page of the workspace's endpoints for the public API (issue 15), newest first
 * (created_at desc, id desc): `limit` after `cursor`. Returns `{endpoints, nextCursor}`.
 * @throws FORBIDDEN for members, BAD_REQUEST 'cursor is not valid'.
 */
export async function listEndpointsPage(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  limit: number,
  cursor?: string,
) {
  assertCan(tenant, "manageWebhooks");
  const p = await cursorPage(
    cursor,
    newestCursor,
    limit,
    (n, after) => q.listEndpointsPage(ctx.db, tenant.workspaceId, n, after && { ts: after[0], id: after[1] }),
    (r) => [r.ts, r.e.id],
  );
  return { endpoints: p.rows.map((r) => toEndpointJson(r.e, r.creatorRole)), nextCursor: p.nextCursor };
}

/** One endpoint. @throws FORBIDDEN, NOT_FOUND. */
export async function getEndpoint(ctx: Pick<AppContext, "db">, tenant: Tenant, id: string) {
  assertCan(tenant, "manageWebhooks");
  const { e, creatorRole } = await ownEndpoint(ctx, tenant, id);
  return toEndpointJson(e, creatorRole);
}

/**
 * Changes url, events or `enabled`; enabling clears the failure streak and the disabled reason, and
 * enabling an endpoint that was not delivering (disabled, or its creator no longer an admin) records
 * the enabling owner or admin (`tenant.userId`; for an API key, the key's creator) as `reenabled_by`:
 * the endpoint then acts for them (endpointActor, creatorMayDeliver), while `created_by` keeps who
 * added it (Settings: "Added by Ben Admin (former member)", "Re-enabled by Ana Owner"). A new URL clears the
 * failure streak too: the streak measured the old receiver, and kept, the new receiver's first failed
 * answer would disable the endpoint "after 5 days" (the same URL sent again keeps it).
 * @throws FORBIDDEN, PAYMENT_REQUIRED, NOT_FOUND, BAD_REQUEST.
 */
export async function updateEndpoint(ctx: Ctx, tenant: Tenant, id: string, input: UpdateEndpointInput) {
  assertManage(tenant);
  const f = parseInput(updateEndpointSchema, input);
  const { e, creatorRole } = await ownEndpoint(ctx, tenant, id);
  if (f.url) assertWebhookTarget(ctx, f.url);
  // enabling one that was delivering changes nobody's authority over it
  const reenabling = f.enabled === true && !(e.enabled && creatorMayDeliver(endpointActor(e), creatorRole));
  const row = await q.updateEndpoint(ctx.db, tenant.workspaceId, id, {
    ...(f.url ? { url: f.url, ...(f.url !== e.url ? { failingSince: null } : {}) } : {}),
    ...(f.events ? { events: f.events } : {}),
    ...(f.enabled === true ? { enabled: true, disabledReason: null, failingSince: null } : {}),
    ...(reenabling ? { reenabledBy: tenant.userId } : {}),
    ...(f.enabled === false ? { enabled: false, disabledReason: "Disabled by a user" } : {}),
  });
  if (!row) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return toEndpointJson(row, reenabling ? tenant.role : creatorRole);
}

/** Deletes an endpoint and its delivery log. @throws FORBIDDEN, NOT_FOUND. */
export async function deleteEndpoint(ctx: Pick<AppContext, "db">, tenant: Tenant, id: string) {
  assertCan(tenant, "manageWebhooks");
  if (!endpointIdSchema.safeParse(id).success || !(await q.deleteEndpoint(ctx.db, tenant.workspaceId, id)))
    throw new AppError("NOT_FOUND", "Webhook endpoint not found");
}

/**
 * The endpoint's latest deliveries (at most `limit`, 100 default), newest first, each with its retry
 * schedule (toDeliveryJson). @throws NOT_FOUND.
 */
export async function listDeliveries(
  ctx: Pick<AppContext, "db" | "jobs">,
  tenant: Tenant,
  endpointId: string,
  limit = 100,
) {
  assertCan(tenant, "manageWebhooks");
  await ownEndpoint(ctx, tenant, endpointId);
  const rows = await q.listDeliveries(
    ctx.db,
    tenant.workspaceId,
    endpointId,
    Math.min(Math.max(1, limit), 500),
  );
  return deliveryLog(ctx, rows);
}

/**
 * A cursor page of an endpoint's deliveries for the public API (issue 15), newest first
 * (created_at desc, id desc): `limit` after `cursor`. Returns `{deliveries, nextCursor}`, each
 * delivery with its retry schedule (toDeliveryJson).
 * @throws FORBIDDEN, NOT_FOUND 'Webhook endpoint not found', BAD_REQUEST 'cursor is not valid'.
 */
export async function listDeliveriesPage(
  ctx: Pick<AppContext, "db" | "jobs">,
  tenant: Tenant,
  endpointId: string,
  limit: number,
  cursor?: string,
) {
  assertCan(tenant, "manageWebhooks");
  await ownEndpoint(ctx, tenant, endpointId);
  const p = await cursorPage(
    cursor,
    newestCursor,
    limit,
    (n, after) =>
      q.listDeliveriesPage(
        ctx.db,
        tenant.workspaceId,
        endpointId,
        n,
        after && { ts: after[0], id: after[1] },
      ),
    (r) => [r.ts, r.d.id],
  );
  return { deliveries: await deliveryLog(ctx, p.rows), nextCursor: p.nextCursor };
}

/**
 * Refuses a manual send (test event, resend) to a disabled endpoint, also one whose creator may no
 * longer deliver (creatorMayDeliver): the delivery job would only record it as failed
 * (webhooks.deliver.ts), so saying it was sent would be untrue.
 * @throws AppError CONFLICT (409).
 */
function assertEnabled(
  e: Pick<WebhookEndpoint, "enabled" | "createdBy" | "reenabledBy">,
  creatorRole: string | null,
  what: "a test event" | "a delivery again",
) {
  if (!e.enabled || !creatorMayDeliver(endpointActor(e), creatorRole))
    throw new AppError("CONFLICT", `This endpoint is disabled. Enable it to send ${what}.`);
}

/**
 * Queues a delivery again (same event, same `webhook-id`) as a job of its own, whose id the delivery
 * keeps (`job_id`: the log shows that job's schedule); its status is `pending` until the attempt is
 * recorded. @throws NOT_FOUND 'Delivery not found', CONFLICT (409) when its endpoint is
 * disabled, FORBIDDEN, PAYMENT_REQUIRED.
 */
export async function resendDelivery(ctx: Ctx, tenant: Tenant, deliveryId: string) {
  assertManage(tenant);
  const found = endpointIdSchema.safeParse(deliveryId).success
    ? await q.findWorkspaceDelivery(ctx.db, tenant.workspaceId, deliveryId)
    : undefined;
  if (!found) throw new AppError("NOT_FOUND", "Delivery not found");
  assertEnabled(found, found.creatorRole, "a delivery again");
  const jobId = randomUUID();
  const d = await q.resetDelivery(ctx.db, tenant.workspaceId, deliveryId, jobId);
  if (!d) throw new AppError("NOT_FOUND", "Delivery not found");
  await ctx.jobs.send(deliverWebhookJob, { deliveryId: d.id }, { id: jobId });
  return { id: d.id, status: "pending" as const };
}

/**
 * Sends a test event to one endpoint: an event of `input.type` (one of the endpoint's subscribed
 * types; its first when absent) whose `data` is that type's example with every field a real one has
 * and `test: true` (webhooks.examples testEventData), so the receiver can try its handling of the
 * real shape. Returns `{delivery_id, event_id, type}` (the type sent); the delivery is queued (status
 * `pending` until its attempt is recorded).
 * @throws NOT_FOUND, FORBIDDEN, PAYMENT_REQUIRED, BAD_REQUEST (an unknown type, or one the endpoint
 *   does not subscribe to: param `type`), CONFLICT (409) 'This endpoint is disabled. Enable it to send a test event.'
 */
export async function sendTestEvent(
  ctx: Ctx,
  tenant: Tenant,
  endpointId: string,
  input: TestEventInput = {},
) {
  assertManage(tenant);
  const { type: asked } = parseInput(testEventSchema, input ?? {});
  const { e, creatorRole } = await ownEndpoint(ctx, tenant, endpointId);
  assertEnabled(e, creatorRole, "a test event");
  const subscribed = e.events as WebhookEventType[];
  const type = asked ?? subscribed[0] ?? "contact.created";
  if (asked && !subscribed.includes(asked))
    throw new AppError(
      "BAD_REQUEST",
      `This endpoint does not subscribe to ${asked}. Send a test of one of its events: ${subscribed.join(", ")}.`,
      { param: "type" },
    );
  // the event and its delivery in one transaction, the job queued after its commit
  const { ev, d } = await ctx.db.transaction(async (tx) => {
    const ev = await q.insertEvent(tx, {
      id: newEventId(),
      workspaceId: tenant.workspaceId,
      type,
      data: testEventData(type),
    });
    const [d] = await q.insertDeliveries(tx, [
      { workspaceId: tenant.workspaceId, endpointId: e.id, eventId: ev.id },
    ]);
    return { ev, d: d! };
  });
  await queueDeliveries(ctx, [d]);
  return { delivery_id: d!.id, event_id: ev.id, type };
}

async function queueDeliveries(ctx: Pick<AppContext, "jobs">, rows: { id: string }[]) {
  if (rows.length === 0) return;
  await ctx.jobs.sendMany(
    deliverWebhookJob,
    rows.map((d) => ({ data: { deliveryId: d.id }, options: { id: d.id } })),
  );
}

/** Deliveries one sweep queues again at most (the next sweep, 5 minutes later, takes the rest). */
export const STRANDED_SWEEP_LIMIT = 5_000;

/**
 * The stranded-delivery sweep (job webhooks.requeue-stranded-deliveries): a delivery is stored in
 * the transaction of the change it reports (emitWebhookEvent) and its job queued after that commits
 * (queueWebhookDeliveries), so a process that stops in between leaves it pending with no job, and
 * at-least-once delivery would not hold. Queues again every delivery still
 * unattempted STRANDED_DELIVERY_MINUTES after it was stored (and less than a day old: older ones
 * were past their retry window anyway), at most STRANDED_SWEEP_LIMIT per run. A delivery whose job
 * exists (waiting in a backlog) is not queued twice: the job id is the delivery id.
 * Returns how many deliveries were queued again (jobs that already existed included).
 */
export async function requeueStrandedDeliveries(ctx: Pick<AppContext, "db" | "jobs">): Promise<number> {
  const ids = await q.unattemptedDeliveryIds(ctx.db, STRANDED_DELIVERY_MINUTES, 24, STRANDED_SWEEP_LIMIT);
  await queueDeliveries(
    ctx,
    ids.map((id) => ({ id })),
  );
  return ids.length;
}

function newEventId() {
  return `msg_${randomToken(16)}`;
}

/**
 * What an emit stored in the caller's transaction (the transactional outbox, issue 15): the events'
 * ids (their stable `webhook-id`s) and the deliveries whose `webhooks.deliver` jobs are still to be
 * queued, once that transaction commits, by queueWebhookDeliveries. Empty when nobody listens or
 * the events could not be stored.
 */
export interface WebhookEmit {
  readonly eventIds: readonly string[];
  readonly deliveryIds: readonly string[];
}

/** An emit that stored nothing. */
export const NO_WEBHOOK_EMIT: WebhookEmit = Object.freeze({ eventIds: [], deliveryIds: [] });

/**
 * What emitting needs: `db`, the transaction that makes the feature's change (or the db itself for a
 * change of one autocommitted statement), and optionally a logger for an event not stored.
 */
export type WebhookEmitCtx = { db: DbOrTx; log?: { warn: (o: object, m: string) => void } };

/** Events stored per insert statement (and their deliveries per statement, times the endpoints). */
const EVENT_CHUNK = 1000;

/**
 * Stores `dataList` as events of `type` with one delivery per subscribed endpoint and event, in a
 * savepoint of ctx.db (a transaction of its own when ctx.db is not one). Inside a caller's
 * transaction (db/reserved inTransaction: a drizzle transaction, or an import batch's hand-run one)
 * the subscribed endpoints are read in that savepoint too: a failed read outside it (a
 * lock or statement timeout) would abort the caller's transaction, undoing the feature's change the
 * event reports. Outside a transaction they are read first, on their own (one indexed select when
 * nobody listens). An endpoint deleted since it was read fails a delivery insert on its foreign key
 * (23503), which would lose the events for every other endpoint too: the savepoint is rolled back
 * and the whole store retried with the endpoints read again (up to 3 times; each retry can only lose
 * endpoints deleted meanwhile).
 * @throws the database's error (emitWebhookEvents catches it).
 */
async function storeEvents(
  ctx: WebhookEmitCtx,
  workspaceId: string,
  type: WebhookEventType,
  dataList: Record<string, unknown>[],
): Promise<WebhookEmit> {
  const inTx = inTransaction(ctx.db);
  // outside a transaction: the one indexed select every emit pays when nobody listens
  let endpoints = inTx ? null : await q.subscribedEndpoints(ctx.db, workspaceId, type);
  for (let attempt = 0; endpoints === null || endpoints.length > 0; attempt++) {
    const known = endpoints;
    try {
      return await ctx.db.transaction(async (sp) => {
        const current = known ?? (await q.subscribedEndpoints(sp, workspaceId, type));
        const eventIds: string[] = [];
        const deliveryIds: string[] = [];
        if (current.length === 0) return NO_WEBHOOK_EMIT;
        for (let i = 0; i < dataList.length; i += EVENT_CHUNK) {
          const events = await q.insertEvents(
            sp,
            dataList.slice(i, i + EVENT_CHUNK).map((data) => ({ id: newEventId(), workspaceId, type, data })),
          );
          const rows = await q.insertDeliveries(
            sp,
            events.flatMap((ev) => current.map((e) => ({ workspaceId, endpointId: e.id, eventId: ev.id }))),
          );
          eventIds.push(...events.map((ev) => ev.id));
          deliveryIds.push(...rows.map((d) => d.id));
        }
        return { eventIds, deliveryIds };
      });
    } catch (err) {
      if (attempt >= 2 || pgErrorCode(err) !== "23503") throw err;
      endpoints = inTx ? null : await q.subscribedEndpoints(ctx.db, workspaceId, type);
    }
  }
  return NO_WEBHOOK_EMIT;
}

/**
 * The one way features emit an outbound webhook event (issue 15), as a transactional outbox: call it
 * with the transaction (`ctx.db`) that makes the change the event reports, so the event and its
 * deliveries (one per enabled endpoint of the workspace subscribed to `type`) commit or roll back
 * with the change; then, after the commit, hand the result to queueWebhookDeliveries. A process that
 * stops between the commit and the queueing leaves the deliveries to the stranded-delivery sweep
 * (requeueStrandedDeliveries, STRANDED_DELIVERY_MINUTES), never loses them. In a transaction the
 * subscribed endpoints are read and the inserts made in one savepoint (one indexed select in it when
 * nobody listens); outside one, the select runs on its own first. `data` should be the resource's
 * public JSON (snake_case, ISO 8601 times). Never throws for a webhook problem: a failed read or
 * insert rolls back its savepoint only and is logged, so the feature's change is not undone (a broken
 * connection ends the caller's transaction anyway). Returns what it stored (NO_WEBHOOK_EMIT when
 * nobody listens).
 */
export async function emitWebhookEvent(
  ctx: WebhookEmitCtx,
  workspaceId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
): Promise<WebhookEmit> {
  return emitWebhookEvents(ctx, workspaceId, type, [data]);
}

/**
 * emitWebhookEvent for many events of one type at once (a campaign batch's `message.sent`), in the
 * caller's transaction: in one savepoint, the subscribed endpoints' indexed select and, when any
 * listens, one insert of the events and one of their deliveries per 1,000 events. `dataList`: each
 * event's public JSON.
 * Never throws for a webhook problem (logged). Returns what it stored; queue it after the commit
 * with queueWebhookDeliveries.
 */
export async function emitWebhookEvents(
  ctx: WebhookEmitCtx,
  workspaceId: string,
  type: WebhookEventType,
  dataList: Record<string, unknown>[],
): Promise<WebhookEmit> {
  if (dataList.length === 0) return NO_WEBHOOK_EMIT;
  try {
    return await storeEvents(ctx, workspaceId, type, dataList);
  } catch (err) {
    ctx.log?.warn(
      { err, code: pgErrorCode(err), workspaceId, type, events: dataList.length },
      "webhook event not stored",
    );
    return NO_WEBHOOK_EMIT;
  }
}

/** Several emits' results as one (for a change that emitted more than one type). */
export function mergeWebhookEmits(...emits: readonly (WebhookEmit | null | undefined)[]): WebhookEmit {
  const present = emits.filter((e): e is WebhookEmit => !!e && e.deliveryIds.length + e.eventIds.length > 0);
  if (present.length <= 1) return present[0] ?? NO_WEBHOOK_EMIT;
  return {
    eventIds: present.flatMap((e) => e.eventIds),
    deliveryIds: present.flatMap((e) => e.deliveryIds),
  };
}

/**
 * Whether a job named `jobName` is a webhook delivery's: one whose failure to be queued loses nothing,
 * since the stranded-delivery sweep queues its stored delivery again (queueWebhookDeliveries logs such
 * a failure and goes on). For a caller that queues jobs later on another's behalf (campaigns.service
 * inlineRowsTransaction, after its commit) and must keep that rule.
 */
export function isWebhookDeliveryJob(jobName: string): boolean {
  return jobName === deliverWebhookJob.name;
}

/**
 * Queues the first attempt of the deliveries `emits` stored, once the transaction that stored them
 * has committed (never before: a worker could look for a delivery not yet visible): one
 * `webhooks.deliver` job each, whose job id is the delivery's id, so queueing a delivery again while
 * its job exists is a no-op (pg-boss ignores a second job with the same id; the sweep relies on it).
 * Never throws: a failure is logged and the deliveries are queued by the stranded-delivery sweep
 * STRANDED_DELIVERY_MINUTES (10) to 15 minutes after they were stored.
 */
export async function queueWebhookDeliveries(
  ctx: Pick<AppContext, "jobs"> & { log?: { warn: (o: object, m: string) => void } },
  ...emits: readonly (WebhookEmit | null | undefined)[]
): Promise<void> {
  const ids = emits.flatMap((e) => e?.deliveryIds ?? []);
  if (ids.length === 0) return;
  try {
    await queueDeliveries(
      ctx,
      ids.map((id) => ({ id })),
    );
  } catch (err) {
    ctx.log?.warn(
      { err, deliveries: ids.length },
      "webhook deliveries not queued; the stranded-delivery sweep queues them",
    );
  }
}

/**
 * Which of `types` an enabled endpoint of the workspace subscribes to, in one indexed select of the
 * workspace's endpoints (a handful per workspace). For a feature whose event data costs a read
 * (a bulk write's rows read back as JSON): ask once, then read and emitWebhookEvents only for the
 * types in the set. Never throws for a webhook problem: a failure is logged and reads as nobody
 * listening.
 */
export async function subscribedWebhookTypes(
  ctx: Pick<AppContext, "db"> & { log?: { warn: (o: object, m: string) => void } },
  workspaceId: string,
  types: readonly WebhookEventType[],
): Promise<Set<WebhookEventType>> {
  try {
    const subscribed = new Set<string>();
    // the endpoints emitWebhookEvents would store deliveries for (q.subscribedEndpoints)
    for (const { e, creatorRole } of await q.listEndpoints(ctx.db, workspaceId))
      if (e.enabled && creatorMayDeliver(endpointActor(e), creatorRole))
        for (const type of e.events) subscribed.add(type);
    return new Set(types.filter((type) => subscribed.has(type)));
  } catch (err) {
    ctx.log?.warn({ err, workspaceId, types }, "webhook subscriptions not read");
    return new Set();
  }
}
