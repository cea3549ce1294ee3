import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "./auth";
import { workspaces } from "./workspaces";

/**
 * Why a key was revoked: in Settings > API keys (`manual`), its creator removed from the workspace or
 * leaving it (`creator_removed`, `creator_left`), or made while someone else held its creator's
 * account (`account_recovery`). Checked by the table's api_keys_revoked_reason_ck.
 */
export type ApiKeyRevokedReason = "manual" | "creator_removed" | "creator_left" | "account_recovery";

/**
 * API keys of a workspace (issue 15). The key itself (`pw_live_<random>`) is shown once; only its
 * SHA-256 hash (hex) and a visible prefix are stored.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid().primaryKey().defaultRandom(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** the first characters of the key, e.g. `pw_live_AbC1`, shown in lists */
    prefix: text().notNull(),
    /** hex SHA-256 of the whole key */
    keyHash: text().notNull(),
    /** e.g. `contacts:read`, `webhooks:write` (API_SCOPES) */
    scopes: text().array().notNull(),
    lastUsedAt: timestamp({ withTimezone: true }),
    expiresAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    /** why it was revoked (migration 0054; null for keys revoked before it, and live keys) */
    revokedReason: text().$type<ApiKeyRevokedReason>(),
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("api_keys_hash_uq").on(t.keyHash),
    index("api_keys_workspace_idx").on(t.workspaceId, t.createdAt),
  ],
);
export type ApiKey = typeof apiKeys.$inferSelect;

/** The first response of a POST /api/v1 request made with an `Idempotency-Key` (kept 24 hours). */
export const apiIdempotencyKeys = pgTable(
  "api_idempotency_keys",
  {
    apiKeyId: uuid()
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    key: text().notNull(),
    /** hex SHA-256 of method, path and body */
    requestHash: text().notNull(),
    /** null while the first request is still running */
    statusCode: integer(),
    response: jsonb(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * while in progress: a random id of the request holding the claim, which fences its lease renewals
     * and its stored response (null once the response is stored, and on claims made before leases)
     */
    claimId: uuid(),
    /**
     * while in progress: when the claim's lease lapses unless its request renews it (api.service
     * idempotencyLease); only then may a retry take the claim over
     */
    leaseExpiresAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: "api_idempotency_keys_pk", columns: [t.apiKeyId, t.key] }),
    index("api_idempotency_keys_created_idx").on(t.createdAt),
  ],
);

/** An outbound webhook endpoint (issue 15): https URL, subscribed event types, signing secret. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid().primaryKey().defaultRandom(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    url: text().notNull(),
    events: text().array().notNull(),
    /** `whsec_<base64>` (Standard Webhooks) */
    secret: text().notNull(),
    /**
     * The secret before the last roll (webhooks.service rotateEndpointSecret), which deliveries are
     * also signed with until `previousSecretExpiresAt`; both null, or both set
     * (webhook_endpoints_previous_secret_ck, migration 0055).
     */
    previousSecret: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true }),
    enabled: boolean().notNull().default(true),
    disabledReason: text(),
    /** first failed delivery since the last success; 5 days of failures disable the endpoint */
    failingSince: timestamp({ withTimezone: true }),
    /** who added the endpoint (Settings > Webhooks "Added by"); kept when someone re-enables it */
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    /**
     * who last enabled it again (migration 0066; null until someone does): the endpoint then delivers
     * with their authority instead of its creator's (webhooks.service endpointActor), and Settings says
     * "Re-enabled by Ana Owner"
     */
    reenabledBy: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_workspace_idx").on(t.workspaceId)],
);
export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;

/** One emitted event; its id is the stable `webhook-id` of every delivery of it. */
export const outboundWebhookEvents = pgTable(
  "outbound_webhook_events",
  {
    id: text().primaryKey(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    type: text().notNull(),
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("outbound_webhook_events_workspace_idx").on(t.workspaceId, t.createdAt)],
);
export type OutboundWebhookEvent = typeof outboundWebhookEvents.$inferSelect;

export type WebhookDeliveryStatus = "pending" | "succeeded" | "failed";

/** One event to one endpoint: the latest attempt's outcome (the delivery log). */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid().primaryKey().defaultRandom(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    endpointId: uuid()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: text()
      .notNull()
      .references(() => outboundWebhookEvents.id, { onDelete: "cascade" }),
    status: text().$type<WebhookDeliveryStatus>().notNull().default("pending"),
    attempts: integer().notNull().default(0),
    responseCode: integer(),
    /** milliseconds of the latest attempt */
    durationMs: integer(),
    lastError: text(),
    lastAttemptAt: timestamp({ withTimezone: true }),
    /**
     * The pg-boss job (webhooks.deliver) whose retry schedule the delivery follows now: null for the
     * first queueing and the stranded sweep, whose job id is the delivery's own id; a resend's job
     * has an id of its own, stored here (the log reads its schedule: webhooks.service listDeliveries).
     */
    jobId: uuid(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_endpoint_event_uq").on(t.endpointId, t.eventId),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    // the stranded-delivery sweep (webhooks.requeue-stranded-deliveries) reads only these
    index("webhook_deliveries_unattempted_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'pending' and ${t.attempts} = 0`),
  ],
);
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
