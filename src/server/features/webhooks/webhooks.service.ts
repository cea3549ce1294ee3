import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { AppContext } from "../../context";
import { pgErrorCode } from "../../db/errors";
import type { WebhookDelivery, WebhookEndpoint } from "../../db/schema";
import { cursorPage, pgTimestampText } from "../../lib/cursor";
import { AppError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { assertOutboundUrl, parseAllowedHosts } from "../../lib/outbound";
import { parseInput } from "../../lib/validate";
import { assertPlanFeature } from "../billing/billing.plans";
import { assertCan, type Tenant } from "../workspaces/workspaces.service";
import { deliverWebhookJob, STRANDED_DELIVERY_MINUTES } from "./webhooks.jobs";
import * as q from "./webhooks.queries";
import {
  type CreateEndpointInput,
  createEndpointSchema,
  endpointIdSchema,
  type UpdateEndpointInput,
  updateEndpointSchema,
  type WebhookEventType,
} from "./webhooks.schemas";

export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./webhooks.schemas";

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

/** An endpoint as the API shows it (the secret only at creation). */
export function toEndpointJson(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events as WebhookEventType[],
    enabled: e.enabled,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince?.toISOString() ?? null,
    created_at: e.createdAt.toISOString(),
  };
}

/** A delivery log row: status, response code, duration (ms), attempt count. */
export function toDeliveryJson(d: WebhookDelivery, type: string) {
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
  };
}

function assertManage(tenant: Tenant) {
  assertCan(tenant, "manageWebhooks");
  assertPlanFeature(tenant.workspace, "apiAccess");
}

async function ownEndpoint(ctx: Pick<AppContext, "db">, tenant: Tenant, id: string) {
  const e = endpointIdSchema.safeParse(id).success
    ? await q.findEndpoint(ctx.db, tenant.workspaceId, id)
    : undefined;
  if (!e) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return e;
}

/**
 * Creates an endpoint `{url, events}`; returns it with its signing `secret` (`whsec_` + base64 of 24
 * random bytes, Standard Webhooks), shown this once. The url must be https and not a private
 * address (OUTBOUND_ALLOWED_HOSTS excepted); it is checked again on every delivery after DNS.
 * @throws FORBIDDEN (member), PAYMENT_REQUIRED (plan without API access), BAD_REQUEST.
 */
export async function createEndpoint(ctx: Ctx, tenant: Tenant, input: CreateEndpointInput) {
  assertManage(tenant);
  const f = parseInput(createEndpointSchema, input);
  assertWebhookTarget(ctx, f.url);
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const row = await q.insertEndpoint(ctx.db, {
    workspaceId: tenant.workspaceId,
    url: f.url,
    events: f.events,
    secret,
    createdBy: tenant.userId,
  });
  return { ...toEndpointJson(row), secret };
}

/** The workspace's endpoints, newest first. @throws FORBIDDEN for members. */
export async function listEndpoints(ctx: Pick<AppContext, "db">, tenant: Tenant) {
  assertCan(tenant, "manageWebhooks");
  return (await q.listEndpoints(ctx.db, tenant.workspaceId)).map(toEndpointJson);
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
  return { endpoints: p.rows.map((r) => toEndpointJson(r.e)), nextCursor: p.nextCursor };
}

/** One endpoint. @throws FORBIDDEN, NOT_FOUND. */
export async function getEndpoint(ctx: Pick<AppContext, "db">, tenant: Tenant, id: string) {
  assertCan(tenant, "manageWebhooks");
  return toEndpointJson(await ownEndpoint(ctx, tenant, id));
}

/**
 * Changes url, events or `enabled`; enabling clears the failure streak and the disabled reason.
 * @throws FORBIDDEN, PAYMENT_REQUIRED, NOT_FOUND, BAD_REQUEST.
 */
export async function updateEndpoint(ctx: Ctx, tenant: Tenant, id: string, input: UpdateEndpointInput) {
  assertManage(tenant);
  const f = parseInput(updateEndpointSchema, input);
  await ownEndpoint(ctx, tenant, id);
  if (f.url) assertWebhookTarget(ctx, f.url);
  const row = await q.updateEndpoint(ctx.db, tenant.workspaceId, id, {
    ...(f.url ? { url: f.url } : {}),
    ...(f.events ? { events: f.events } : {}),
    ...(f.enabled === true ? { enabled: true, disabledReason: null, failingSince: null } : {}),
    ...(f.enabled === false ? { enabled: false, disabledReason: "Disabled by a user" } : {}),
  });
  if (!row) throw new AppError("NOT_FOUND", "Webhook endpoint not found");
  return toEndpointJson(row);
}

/** Deletes an endpoint and its delivery log. @throws FORBIDDEN, NOT_FOUND. */
export async function deleteEndpoint(ctx: Pick<AppContext, "db">, tenant: Tenant, id: string) {
  assertCan(tenant, "manageWebhooks");
  if (!endpointIdSchema.safeParse(id).success || !(await q.deleteEndpoint(ctx.db, tenant.workspaceId, id)))
    throw new AppError("NOT_FOUND", "Webhook endpoint not found");
}

/** The endpoint's latest deliveries (at most `limit`, 100 default), newest first. @throws NOT_FOUND. */
export async function listDeliveries(
  ctx: Pick<AppContext, "db">,
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
  return rows.map((r) => toDeliveryJson(r.d, r.type));
}

/**
 * A cursor page of an endpoint's deliveries for the public API (issue 15), newest first
 * (created_at desc, id desc): `limit` after `cursor`. Returns `{deliveries, nextCursor}`.
 * @throws FORBIDDEN, NOT_FOUND 'Webhook endpoint not found', BAD_REQUEST 'cursor is not valid'.
 */
export async function listDeliveriesPage(
  ctx: Pick<AppContext, "db">,
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
  return { deliveries: p.rows.map((r) => toDeliveryJson(r.d, r.type)), nextCursor: p.nextCursor };
}

/**
 * Refuses a manual send (test event, resend) to a disabled endpoint: the delivery job would only
 * record "endpoint is disabled" (webhooks.deliver.ts), so saying it was sent would be untrue.
 * @throws AppError CONFLICT (409).
 */
function assertEnabled(e: Pick<WebhookEndpoint, "enabled">, what: "a test event" | "a delivery again") {
  if (!e.enabled) throw new AppError("CONFLICT", `This endpoint is disabled. Enable it to send ${what}.`);
}

/**
 * Queues a delivery again (same event, same `webhook-id`); its status is `pending` until the
 * attempt is recorded. @throws NOT_FOUND 'Delivery not found', CONFLICT (409) when its endpoint is
 * disabled, FORBIDDEN, PAYMENT_REQUIRED.
 */
export async function resendDelivery(ctx: Ctx, tenant: Tenant, deliveryId: string) {
  assertManage(tenant);
  const found = endpointIdSchema.safeParse(deliveryId).success
    ? await q.findWorkspaceDelivery(ctx.db, tenant.workspaceId, deliveryId)
    : undefined;
  if (!found) throw new AppError("NOT_FOUND", "Delivery not found");
  assertEnabled(found, "a delivery again");
  const d = await q.resetDelivery(ctx.db, tenant.workspaceId, deliveryId);
  if (!d) throw new AppError("NOT_FOUND", "Delivery not found");
  await ctx.jobs.send(deliverWebhookJob, { deliveryId: d.id });
  return { id: d.id, status: "pending" as const };
}

/**
 * Sends a `test.ping`-style event to one endpoint: an event of the endpoint's first subscribed type
 * with `data: {test: true}`. Returns `{delivery_id, event_id}`; the delivery is queued (status
 * `pending` until its attempt is recorded). @throws NOT_FOUND, FORBIDDEN, PAYMENT_REQUIRED,
 * CONFLICT (409) 'This endpoint is disabled. Enable it to send a test event.'
 */
export async function sendTestEvent(ctx: Ctx, tenant: Tenant, endpointId: string) {
  assertManage(tenant);
  const e = await ownEndpoint(ctx, tenant, endpointId);
  assertEnabled(e, "a test event");
  const ev = await q.insertEvent(ctx.db, {
    id: newEventId(),
    workspaceId: tenant.workspaceId,
    type: e.events[0] ?? "contact.created",
    data: { test: true, message: "This is a test event from Pitchwise." },
  });
  const [d] = await q.insertDeliveries(ctx.db, [
    { workspaceId: tenant.workspaceId, endpointId: e.id, eventId: ev.id },
  ]);
  await queueDeliveries(ctx, [d!]);
  return { delivery_id: d!.id, event_id: ev.id };
}

/**
 * Queues the first attempt of stored deliveries: one `webhooks.deliver` job each, whose job id is
 * the delivery's id, so queueing a delivery again while its job exists is a no-op (pg-boss ignores
 * a second job with the same id). requeueStrandedDeliveries relies on that.
 */
/**
 * Stores one delivery per (endpoint, event) for `endpoints` as read a moment ago. An endpoint deleted
 * since then fails the whole multi-row insert on its foreign key (23503), which would lose the event
 * for every other endpoint too: the subscribed endpoints are then read again and the insert retried
 * (up to 3 times; each retry can only lose endpoints deleted meanwhile). Returns the stored deliveries.
 */
async function insertDeliveriesOf(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  type: WebhookEventType,
  endpoints: { id: string }[],
  eventIds: string[],
): Promise<{ id: string }[]> {
  let current = endpoints;
  for (let attempt = 0; ; attempt++) {
    if (current.length === 0) return [];
    try {
      return await q.insertDeliveries(
        ctx.db,
        eventIds.flatMap((eventId) => current.map((e) => ({ workspaceId, endpointId: e.id, eventId }))),
      );
    } catch (err) {
      if (attempt >= 2 || pgErrorCode(err) !== "23503") throw err;
      current = await q.subscribedEndpoints(ctx.db, workspaceId, type);
    }
  }
}

async function queueDeliveries(ctx: Pick<AppContext, "jobs">, rows: { id: string }[]) {
  await ctx.jobs.sendMany(
    deliverWebhookJob,
    rows.map((d) => ({ data: { deliveryId: d.id }, options: { id: d.id } })),
  );
}

/** Deliveries one sweep queues again at most (the next sweep, 5 minutes later, takes the rest). */
export const STRANDED_SWEEP_LIMIT = 5_000;

/**
 * The stranded-delivery sweep (job webhooks.requeue-stranded-deliveries): a delivery is stored in
 * one statement and its job queued in the next, so a process that stops in between leaves it
 * pending with no job, and at-least-once delivery would not hold. Queues again every delivery still
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
 * The one way features emit an outbound webhook event (issue 15): when enabled endpoints of the
 * workspace subscribe to `type`, stores the event (its id is the stable `webhook-id`) and queues one
 * `webhooks.deliver` job per endpoint. Costs one indexed select when nobody listens. `data` should be
 * the resource's public JSON (snake_case, ISO 8601 times). Never throws for a webhook problem: a
 * failure is logged so the owning feature's action is not undone.
 * Returns the event id, or null when no endpoint listens.
 */
export async function emitWebhookEvent(
  ctx: Pick<AppContext, "db" | "jobs"> & { log?: { warn: (o: object, m: string) => void } },
  workspaceId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
): Promise<string | null> {
  try {
    const endpoints = await q.subscribedEndpoints(ctx.db, workspaceId, type);
    if (endpoints.length === 0) return null;
    const ev = await q.insertEvent(ctx.db, { id: newEventId(), workspaceId, type, data });
    const rows = await insertDeliveriesOf(ctx, workspaceId, type, endpoints, [ev.id]);
    await queueDeliveries(ctx, rows);
    return ev.id;
  } catch (err) {
    ctx.log?.warn({ err, code: pgErrorCode(err), workspaceId, type }, "webhook event not emitted");
    return null;
  }
}

/**
 * emitWebhookEvent for many events of one type at once (a campaign batch's `message.sent`): one
 * indexed select when nobody listens, else one insert of the events, one of their deliveries (one per
 * subscribed endpoint and event) and one enqueue. `dataList`: each event's public JSON. Never throws
 * for a webhook problem (logged). Returns the event ids ([] when no endpoint listens).
 */
export async function emitWebhookEvents(
  ctx: Pick<AppContext, "db" | "jobs"> & { log?: { warn: (o: object, m: string) => void } },
  workspaceId: string,
  type: WebhookEventType,
  dataList: Record<string, unknown>[],
): Promise<string[]> {
  if (dataList.length === 0) return [];
  try {
    const endpoints = await q.subscribedEndpoints(ctx.db, workspaceId, type);
    if (endpoints.length === 0) return [];
    const ids: string[] = [];
    for (let i = 0; i < dataList.length; i += 1000) {
      const events = await q.insertEvents(
        ctx.db,
        dataList.slice(i, i + 1000).map((data) => ({ id: newEventId(), workspaceId, type, data })),
      );
      const rows = await insertDeliveriesOf(
        ctx,
        workspaceId,
        type,
        endpoints,
        events.map((ev) => ev.id),
      );
      await queueDeliveries(ctx, rows);
      ids.push(...events.map((ev) => ev.id));
    }
    return ids;
  } catch (err) {
    ctx.log?.warn({ err, code: pgErrorCode(err), workspaceId, type }, "webhook events not emitted");
    return [];
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
    for (const e of await q.listEndpoints(ctx.db, workspaceId))
      if (e.enabled) for (const type of e.events) subscribed.add(type);
    return new Set(types.filter((type) => subscribed.has(type)));
  } catch (err) {
    ctx.log?.warn({ err, workspaceId, types }, "webhook subscriptions not read");
    return new Set();
  }
}
