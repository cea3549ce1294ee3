import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import type { ApiKey, ApiKeyRevokedReason, Workspace } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { parseInput } from "../../lib/validate";
import { assertPlanFeature } from "../billing/billing.plans";
import { displayNames } from "../user/user.service";
import type { WebhookEventType } from "../webhooks/webhooks.service";
import { assertCan, type Tenant } from "../workspaces/workspaces.service";
import * as q from "./api.queries";
import { type ApiScope, apiKeyIdSchema, type CreateApiKeyInput, createApiKeySchema } from "./api.schemas";

/** Every key starts with this (the "live" secret-scanning prefix, like Stripe's `sk_live_`). */
export const API_KEY_PREFIX = "pw_live_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** hex SHA-256 of a key: the only form in which keys are stored. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** `pw_live_` + 32 base62 characters (~190 bits). */
function newKey(): string {
  const bytes = randomBytes(32);
  let s = "";
  for (const b of bytes) s += BASE62[b % 62];
  return API_KEY_PREFIX + s;
}

/**
 * What Settings > API keys says of a revoked key, by its `revoked_reason` (a key revoked before reasons
 * were kept, migration 0054, has none and shows only that it was revoked).
 */
export const REVOKED_REASON_TEXT: Readonly<Record<ApiKeyRevokedReason, string>> = {
  manual: "Revoked by an owner or admin.",
  creator_removed: "Revoked when its creator was removed from the workspace.",
  creator_left: "Revoked when its creator left the workspace.",
  account_recovery:
    "Revoked when its creator's account was recovered: it was made while someone else held it.",
};

/**
 * A key as lists show it (never the key itself). `revoked_reason`: a sentence (REVOKED_REASON_TEXT)
 * once revoked with a recorded reason, else null.
 */
export function toApiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes as ApiScope[],
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    revoked_reason: k.revokedReason ? REVOKED_REASON_TEXT[k.revokedReason] : null,
    created_at: k.createdAt.toISOString(),
  };
}
export type ApiKeyJson = ReturnType<typeof toApiKeyJson>;

/**
 * Live keys (not revoked, not expired) a workspace may have. Each key has its own rate limit
 * (API_RATE_LIMIT_PER_MINUTE), so keys minted without end multiplied the workspace's request rate
 * without bound; this caps it at 25 times one key's.
 */
export const API_KEY_LIMIT = 25;

/**
 * Creates a key for the tenant's workspace (owner/admin, Business plan and up). The returned `key`
 * is shown once; only its SHA-256 hash and a 12-character prefix are stored. A workspace has at most
 * API_KEY_LIMIT live keys (counted under the workspace's key-creation lock, so concurrent creations
 * cannot pass it together).
 * @throws FORBIDDEN (member), PAYMENT_REQUIRED (plan without API access), BAD_REQUEST (input),
 *   CONFLICT (409) when the workspace already has API_KEY_LIMIT live keys.
 */
export async function createApiKey(ctx: Pick<AppContext, "db">, tenant: Tenant, input: CreateApiKeyInput) {
  assertCan(tenant, "manageApiKeys");
  assertPlanFeature(tenant.workspace, "apiAccess");
  const f = parseInput(createApiKeySchema, input);
  const key = newKey();
  const row = await ctx.db.transaction(async (tx) => {
    if ((await q.lockKeyCreation(tx, tenant.workspaceId)) >= API_KEY_LIMIT)
      throw new AppError(
        "CONFLICT",
        `This workspace already has ${API_KEY_LIMIT} active API keys, the most it can have. Revoke one it no longer uses to create another.`,
      );
    return q.insertApiKey(tx, {
      workspaceId: tenant.workspaceId,
      name: f.name,
      prefix: key.slice(0, API_KEY_PREFIX.length + 4),
      keyHash: hashApiKey(key),
      scopes: f.scopes,
      expiresAt: f.expires_at ? new Date(f.expires_at) : null,
      createdBy: tenant.userId,
    });
  });
  return { key, apiKey: toApiKeyJson(row) };
}

/**
 * The workspace's keys, newest first, as toApiKeyJson plus `creator_active` (false once the key's
 * creator is no longer an owner or admin, when its requests get 401), `creator_name`: the name of
 * its creator (user.service displayNames: the name, else the email, else 'A former member') while
 * they are a member of the workspace, null once
 * they are not (removed, left, account deleted), and `former_creator_name`: that person's name once
 * they are no longer a member (null while they are, and once their account is deleted), which
 * Settings shows as "Ben Admin (former member)": an owner auditing a revoked key learns whose it was.
 * @throws FORBIDDEN for members.
 */
export async function listApiKeys(ctx: Pick<AppContext, "db">, tenant: Tenant) {
  assertCan(tenant, "manageApiKeys");
  const rows = await q.listApiKeys(ctx.db, tenant.workspaceId);
  const names = await displayNames(
    ctx,
    rows.map((r) => r.key.createdBy),
  );
  return rows.map((r) => {
    const name = (r.key.createdBy && names.get(r.key.createdBy)) ?? null;
    const member = r.creatorRole !== null;
    return {
      ...toApiKeyJson(r.key),
      // false once its creator is no longer an owner or admin: its requests get 401 (authenticateApiKey)
      creator_active: creatorMayUseKeys(r.creatorRole),
      creator_name: member ? name : null,
      former_creator_name: member ? null : name,
    };
  });
}

/**
 * The names of the workspace's API keys among `ids`, revoked keys included (a revoked key's row and
 * name stay), for the screens that say what was added through a key ("Added through API key
 * 'Zapier'": crm's contact page). Nulls and repeats are skipped; an id that is no key of the workspace
 * is left out. Shape: Map id -> name; no query when there is no id.
 */
export async function apiKeyNames(
  ctx: { db: DbOrTx },
  workspaceId: string,
  ids: readonly (string | null | undefined)[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === "string" && isUuid(id)))];
  if (!wanted.length) return new Map();
  return new Map((await q.selectKeyNames(ctx.db, workspaceId, wanted)).map((k) => [k.id, k.name]));
}

/**
 * Revokes a key: the next request with it gets 401.
 * @throws FORBIDDEN for members, NOT_FOUND 'API key not found' (also another workspace's or an
 *   already revoked key).
 */
export async function revokeApiKey(ctx: Pick<AppContext, "db">, tenant: Tenant, id: string) {
  assertCan(tenant, "manageApiKeys");
  if (!apiKeyIdSchema.safeParse(id).success) throw new AppError("NOT_FOUND", "API key not found");
  const row = await q.revokeApiKey(ctx.db, tenant.workspaceId, id);
  if (!row) throw new AppError("NOT_FOUND", "API key not found");
  return toApiKeyJson(row);
}

/**
 * Revokes every API key that `userId` created at or after `since`, in every workspace (account
 * recovery: keys made while someone else held the account). `ctx.db` may be a transaction.
 * Returns how many keys were revoked.
 */
export async function revokeKeysCreatedBySince(
  ctx: { db: DbOrTx },
  userId: string,
  since: Date,
): Promise<number> {
  return (await q.revokeKeysCreatedBySince(ctx.db, userId, since)).length;
}

/**
 * How many API keys would be revoked if `userId` left the workspace or were removed from it now
 * (revokeKeysOfDepartingMember): the keys they created in the tenant's workspace that are neither
 * revoked nor expired. Settings > Team's remove and leave confirmations say it. Anyone may ask about
 * themselves (leaving); asking about someone else needs the right to remove members. Shape `{count}`.
 * @throws FORBIDDEN (a member asking about someone else), NOT_FOUND 'Member not found.' for a
 *   malformed id (a well-formed id of a non-member counts 0).
 */
export async function countKeysRevokedOnDeparture(
  ctx: Pick<AppContext, "db">,
  tenant: Tenant,
  userId: string,
): Promise<{ count: number }> {
  if (userId !== tenant.userId) assertCan(tenant, "manageMembers");
  if (!isUuid(userId)) throw new AppError("NOT_FOUND", "Member not found.");
  return { count: await q.countLiveKeysOfCreator(ctx.db, tenant.workspaceId, userId) };
}

/**
 * Revokes every API key `userId` created in `workspaceId` (neither revoked nor expired yet) as they
 * leave the workspace (`reason: "left"`) or are removed from it (`"removed"`): they saw each key's
 * secret once and no longer belong to the workspace, so the keys end with their membership, as
 * GitHub and Slack end user-bound tokens. The keys are kept, marked revoked with the reason
 * (`creator_left`, `creator_removed`), so Settings > API keys still lists them; a re-invited person
 * does not get them back. Called by workspaces.service removeMember and leaveWorkspace inside their
 * transaction (`ctx.db` is it), handed in by their adapters (workspaces cannot import this feature,
 * which imports it). Returns how many keys were revoked.
 */
export async function revokeKeysOfDepartingMember(
  ctx: { db: DbOrTx },
  departure: { workspaceId: string; userId: string; reason: "removed" | "left" },
): Promise<number> {
  const reason = departure.reason === "removed" ? "creator_removed" : "creator_left";
  return (await q.revokeLiveKeysOfCreator(ctx.db, departure.workspaceId, departure.userId, reason)).length;
}

/** Whether a key whose creator has `role` in its workspace (null: not a member) may act: owners and admins. */
function creatorMayUseKeys(role: string | null): boolean {
  return role === "owner" || role === "admin";
}

/** What a valid key acts as on /api/v1. */
export interface ApiPrincipal {
  key: ApiKey;
  workspace: Workspace;
  /** the workspace tenant the services take; acts with admin rights bounded by `key.scopes` */
  tenant: Tenant;
}

/**
 * Resolves `Authorization: Bearer <key>` (issue 15). Checked on every request (no cache), so a
 * revoke or a plan change takes effect at once.
 * @throws UNAUTHORIZED (unknown, revoked or expired key), PAYMENT_REQUIRED (the workspace's plan no
 *   longer includes API access).
 */
export async function authenticateApiKey(ctx: Pick<AppContext, "db">, key: string): Promise<ApiPrincipal> {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200)
    throw new AppError("UNAUTHORIZED", "Invalid API key. Send 'Authorization: Bearer pw_live_...'.");
  const row = await q.findKeyByHash(ctx.db, hashApiKey(key));
  if (!row) throw new AppError("UNAUTHORIZED", "Invalid API key.");
  if (row.key.revokedAt) throw new AppError("UNAUTHORIZED", "This API key has been revoked.");
  if (row.key.expiresAt && row.key.expiresAt.getTime() <= Date.now())
    throw new AppError("UNAUTHORIZED", "This API key has expired.");
  // a key acts with its creator's authority: it stops when they are no longer an owner or admin
  // (removed, left, demoted, or their account deleted), as keys are created by owners and admins only
  if (!creatorMayUseKeys(row.creatorRole))
    throw new AppError(
      "UNAUTHORIZED",
      "This API key no longer works: the person who created it is no longer an owner or admin of this workspace. An owner or admin can create a new key in Settings > API keys.",
    );
  assertPlanFeature(row.workspace, "apiAccess");
  if (!row.key.lastUsedAt || Date.now() - row.key.lastUsedAt.getTime() > 60_000)
    await q.touchApiKey(ctx.db, row.key.id);
  return {
    key: row.key,
    workspace: row.workspace,
    tenant: {
      userId: row.key.createdBy as string,
      workspaceId: row.workspace.id,
      role: "admin",
      plan: row.workspace.plan,
      workspace: row.workspace,
    },
  };
}

/** @throws FORBIDDEN naming the missing scope, e.g. "This API key lacks the 'contacts:write' scope." */
export function assertScope(principal: Pick<ApiPrincipal, "key">, scope: ApiScope): void {
  if (!principal.key.scopes.includes(scope))
    throw new AppError("FORBIDDEN", `This API key lacks the '${scope}' scope.`, { scope });
}

/**
 * The scope that reads the data each webhook event carries: subscribing an endpoint to an event sends
 * that data to the endpoint's URL, so a key may subscribe only to events whose data it could read
 * (as a video campaign needs media:read, api.v1 POST /campaigns). contact.* carry the contact (or its
 * address and id) -> contacts:read; campaign.*, message.* (recipient address and status) and
 * video.viewed (a recipient's view) -> campaigns:read, what GET /campaigns/{id}/recipients shows;
 * lead_search.* -> leads:read. A Record over every event type: a new type does not compile until
 * it is given its scope.
 */
export const WEBHOOK_EVENT_SCOPES: Readonly<Record<WebhookEventType, ApiScope>> = {
  "contact.created": "contacts:read",
  "contact.updated": "contacts:read",
  "contact.deleted": "contacts:read",
  "contact.unsubscribed": "contacts:read",
  "campaign.launched": "campaigns:read",
  "campaign.rescheduled": "campaigns:read",
  "campaign.completed": "campaigns:read",
  "message.sent": "campaigns:read",
  "message.delivered": "campaigns:read",
  "message.opened": "campaigns:read",
  "message.clicked": "campaigns:read",
  "message.replied": "campaigns:read",
  "message.bounced": "campaigns:read",
  "video.viewed": "campaigns:read",
  "lead_search.completed": "leads:read",
};

/**
 * Refuses a key that would subscribe an endpoint to `events` without the scope reading each event's
 * data (WEBHOOK_EVENT_SCOPES); session users are not scoped and never come here.
 * @throws FORBIDDEN naming the first missing scope and the event needing it, e.g. "This API key
 *   lacks the 'contacts:read' scope, which a webhook subscription to contact.created needs."
 */
export function assertEventScopes(
  principal: Pick<ApiPrincipal, "key">,
  events: readonly WebhookEventType[],
): void {
  for (const event of events) {
    const scope = WEBHOOK_EVENT_SCOPES[event];
    if (!principal.key.scopes.includes(scope))
      throw new AppError(
        "FORBIDDEN",
        `This API key lacks the '${scope}' scope, which a webhook subscription to ${event} needs: an endpoint receives the data of the events it subscribes to.`,
        { scope },
      );
  }
}

/**
 * hex SHA-256 identifying a request for idempotency: its method, path and parsed JSON body, the body
 * hashed as JSON.stringify writes it but with each object's fields in code-unit order of their names
 * (writeJsonText), so the same JSON object is the same request whatever order a client's serialiser
 * wrote its fields in (a retry that rebuilt its body from a map got 409 'already used with a
 * different request'); an array's order is kept, it is part of the request. Walked without recursion,
 * so a hostile body nested 100,000 arrays deep (well under the 1 MiB body limit) is fingerprinted like
 * any other instead of overflowing the stack (a 500).
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const hash = createHash("sha256").update(`${method} ${url}\n`);
  writeJsonText(body ?? null, (text) => hash.update(text));
  return hash.digest("hex");
}

/**
 * Writes `value` (a parsed JSON value: null, booleans, numbers, strings, arrays and plain objects)
 * as the text JSON.stringify makes of it with every object's fields sorted by name (code-unit order),
 * piece by piece to `write`, with an explicit stack instead of recursion: any nesting depth.
 */
function writeJsonText(value: unknown, write: (text: string) => void): void {
  type Frame = { entries: [string | null, unknown][]; next: number; close: string };
  const stack: Frame[] = [];
  const open = (v: unknown) => {
    if (Array.isArray(v)) {
      write("[");
      stack.push({ entries: v.map((x): [null, unknown] => [null, x]), next: 0, close: "]" });
    } else if (v !== null && typeof v === "object") {
      write("{");
      const entries = Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      stack.push({ entries, next: 0, close: "}" });
    } else write(JSON.stringify(v) ?? "null");
  };
  open(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.entries.length) {
      write(frame.close);
      stack.pop();
      continue;
    }
    const [key, v] = frame.entries[frame.next]!;
    if (frame.next > 0) write(",");
    frame.next += 1;
    if (key !== null) write(`${JSON.stringify(key)}:`);
    open(v);
  }
}

/**
 * The lease of an Idempotency-Key claim in progress: it lasts `seconds` (5 minutes) unless renewed,
 * and the request holding it renews it every `renewEveryMs` milliseconds (1 minute) while it runs.
 * A retry with the same key takes a claim over only once its lease lapsed, i.e. when its request has
 * not renewed it for `seconds` (its process died or was restarted mid-flight); a request that still
 * runs keeps its claim however long it takes (a long OpenStreetMap lead search can pass 5 minutes).
 * Exported so tests can shorten both; the renewal period must stay well under the lease.
 */
export const idempotencyLease = { seconds: 5 * 60, renewEveryMs: 60_000 };
/**
 * Minutes after which a claim made before claims had leases (no `lease_expires_at`, from a server
 * older than migration 0045) is taken to be from a request that died, as all claims were before.
 */
export const IDEMPOTENCY_STALE_MINUTES = 5;
/** Hours an Idempotency-Key's stored response is replayed; older records are forgotten (Stripe's rule). */
export const IDEMPOTENCY_TTL_HOURS = 24;

/**
 * A claimed Idempotency-Key whose request is running: `claimId` fences its lease renewals and its
 * stored response; `stop` ends the renewals (finishIdempotent calls it; calling it again does nothing).
 */
export interface IdempotencyClaim {
  readonly apiKeyId: string;
  readonly key: string;
  readonly claimId: string;
  stop(): void;
}

/**
 * Idempotency-Key handling of POST /api/v1 (issue 15; semantics as Stripe's, "Idempotent requests",
 * https://docs.stripe.com/api/idempotent_requests): the first request claims the key and runs; a
 * repeat with the same body gets the stored response; a repeat with a different body, or while the
 * first is still running (however long), gets 409 and stores nothing (it conflicted with another
 * request: a retry may come later). Only the answers of requests whose work ran are stored
 * (keepsIdempotentAnswer): a request refused before it changed anything (a 4xx) or failed (a 5xx)
 * releases its claim (finishIdempotent), so a retry with the same key, with the same body or a
 * corrected one, runs anew and gets the real result. The claim is a lease (idempotencyLease) that
 * the running request renews until finishIdempotent; a retry with the same body takes it over only
 * after the lease lapsed (the first request's process died). After IDEMPOTENCY_TTL_HOURS a stored
 * answer is forgotten and the key may be reused (the hourly api.prune-idempotency-keys job deletes
 * those).
 * Returns `{claim}` when the caller should run the request (then must call finishIdempotent with
 * it), else `{stored: {statusCode, body}}` to replay.
 * @throws AppError BAD_REQUEST for a key over 255 characters; CONFLICT (409) 'This Idempotency-Key
 *   was already used with a different request. ...' (a stored answer, or a claim in progress, of
 *   another body) or 'A request with this Idempotency-Key is still in progress.' (param
 *   `Idempotency-Key`). None of these claims or stores anything.
 */
export async function beginIdempotent(
  ctx: Pick<AppContext, "db" | "log">,
  apiKeyId: string,
  idemKey: string,
  fingerprint: string,
): Promise<{ claim: IdempotencyClaim } | { stored: { statusCode: number; body: unknown } }> {
  if (idemKey.length > 255)
    throw new AppError("BAD_REQUEST", "Idempotency-Key must be at most 255 characters", {
      param: "Idempotency-Key",
    });
  const claimId = randomUUID();
  const r = await q.claimIdempotencyKey(ctx.db, apiKeyId, idemKey, fingerprint, claimId, {
    leaseSeconds: idempotencyLease.seconds,
    legacyStaleMinutes: IDEMPOTENCY_STALE_MINUTES,
    ttlHours: IDEMPOTENCY_TTL_HOURS,
  });
  if (r.claimed) return { claim: keepLeaseAlive(ctx, apiKeyId, idemKey, claimId) };
  if (!r.row || r.row.requestHash !== fingerprint)
    throw new AppError(
      "CONFLICT",
      "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
      { param: "Idempotency-Key" },
    );
  if (r.row.statusCode == null)
    throw new AppError("CONFLICT", "A request with this Idempotency-Key is still in progress.", {
      param: "Idempotency-Key",
    });
  return { stored: { statusCode: r.row.statusCode, body: r.row.response } };
}

/**
 * Renews the claim's lease every idempotencyLease.renewEveryMs until `stop` (or until the claim is no
 * longer this request's). A failed renewal is logged and the next one tried: the lease only lapses
 * after idempotencyLease.seconds without one.
 */
function keepLeaseAlive(
  ctx: Pick<AppContext, "db" | "log">,
  apiKeyId: string,
  key: string,
  claimId: string,
): IdempotencyClaim {
  const timer = setInterval(() => {
    q.renewIdempotencyLease(ctx.db, apiKeyId, key, claimId, idempotencyLease.seconds).then(
      (held) => {
        if (!held) clearInterval(timer);
      },
      (err) => ctx.log.warn({ err, apiKeyId }, "idempotency lease not renewed"),
    );
  }, idempotencyLease.renewEveryMs);
  timer.unref();
  return { apiKeyId, key, claimId, stop: () => clearInterval(timer) };
}

/**
 * Whether the answer a request made with an Idempotency-Key ended with is stored and replayed to
 * its retries (true), or its claim released so that a retry with the key runs the request anew
 * (false). `afterChanges`: the request had committed changes before it was refused (its error was
 * marked with lib/errors markRaisedAfterChanges).
 *
 * The rule is Stripe's (https://docs.stripe.com/api/idempotent_requests): "Results are only saved
 * if an API endpoint started executing. If incoming parameters failed validation, or the request
 * conflicted with another that was executing concurrently, no idempotent result is saved because no
 * API endpoint began execution. You can retry these requests." Here:
 * - below 400 (the work ran): stored.
 * - 4xx: not stored. What a /api/v1 POST refuses with a 4xx it refuses before its work changed
 *   anything: 400 validation, 403 a missing scope, 404 an unknown id (or route), 409 a conflict (a
 *   limit reached, a duplicate, a state that forbids the action: checked before the write or in its
 *   transaction, which the refusal rolls back), 422. (401 and 402 of the key or of the plan's API
 *   access, 429, 413, 415 and a body that is not JSON come before a key is claimed: nothing to keep.)
 *   A 402 plan refusal inside a route is no different: the plan's feature, and a paused campaign's
 *   limit on resume, are checked before anything is written, and a meter is reserved before the work
 *   writes (a lead search) or in the transaction that writes (a campaign launch), which the refusal
 *   rolls back; so a client that upgrades may retry with the same key and get the real result.
 *   Except `afterChanges`: a 4xx raised after changes were committed is stored, as Stripe stores the
 *   result of an endpoint that began executing: a retry must not make those changes again (a new
 *   request takes a new key). No route refuses so today: a campaign launch (POST /campaigns) with
 *   inline contacts creates them in the launch's one transaction, which its plan (402) and audience
 *   (404, 422) refusals roll back (campaigns.service createAndLaunchCampaign).
 * - 5xx: not stored, the rule this API had before (Stripe's API v1 replays a 500 too; its API v2,
 *   like this one, lets a retry complete failed work instead): a 5xx ends work that did not finish,
 *   mostly a failure that rolled its transaction back or a vendor that failed (a lead search's 502
 *   gives its quota unit back), as a request whose process died is taken over by its retry
 *   (idempotencyLease); replaying it for 24 hours would only keep the client from the real result.
 */
export function keepsIdempotentAnswer(statusCode: number, afterChanges = false): boolean {
  if (statusCode < 400) return true;
  if (statusCode < 500) return afterChanges;
  return false;
}

/**
 * Ends a claim's lease renewals, then stores its answer `{statusCode, body}` when
 * keepsIdempotentAnswer says so (`opts.afterChanges`: see there), else deletes the claim so that a
 * retry with the key (with any body) runs anew instead of getting 409 'in progress'. Fenced on the
 * claim: a claim taken over meanwhile (its lease had lapsed) is left to its new request. Throws only
 * what the database throws.
 */
export async function finishIdempotent(
  ctx: Pick<AppContext, "db">,
  claim: IdempotencyClaim,
  statusCode: number,
  body: unknown,
  opts: { afterChanges?: boolean } = {},
) {
  claim.stop();
  if (keepsIdempotentAnswer(statusCode, opts.afterChanges))
    await q.saveIdempotentResponse(ctx.db, claim.apiKeyId, claim.key, claim.claimId, statusCode, body);
  else await q.releaseIdempotencyKey(ctx.db, claim.apiKeyId, claim.key, claim.claimId);
}
