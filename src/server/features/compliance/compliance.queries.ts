import { and, desc, eq, inArray, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { smsOptEvents, suppressions } from "../../db/schema";

/** The compliance feature's SQL (suppression list); values arrive normalised by the service. */

/**
 * Inserts one suppression; an existing (workspace, channel, value) is left as it is, unless
 * `supersede` and its reason or source differs: then it takes this row's reason and source (the
 * person's own opt-out replaces a provider's record of the same reason too, e.g. Postmark's
 * "unsubscribed", which a Postmark reactivation would otherwise lift).
 */
export async function insertSuppression(
  db: DbOrTx,
  row: { workspaceId: string; channel: string; value: string; reason: string; source?: string },
  supersede = false,
): Promise<void> {
  if (!supersede) {
    await db.insert(suppressions).values(row).onConflictDoNothing();
    return;
  }
  await db.execute(sql`
    insert into suppressions (workspace_id, channel, value, reason, source)
    values (${row.workspaceId}, ${row.channel}, ${row.value}, ${row.reason}, ${row.source ?? null})
    on conflict (workspace_id, channel, lower(value)) do update
      set reason = excluded.reason, source = excluded.source
      where (suppressions.reason, suppressions.source) is distinct from (excluded.reason, excluded.source)`);
}

/**
 * Deletes the suppression of `value` (compared lower-cased) for exactly `channel`; with `source`,
 * only when the suppression came from that source.
 */
export async function deleteSuppression(
  db: DbOrTx,
  workspaceId: string,
  channel: string,
  value: string,
  source?: string,
): Promise<void> {
  await db
    .delete(suppressions)
    .where(
      and(
        eq(suppressions.workspaceId, workspaceId),
        eq(suppressions.channel, channel),
        sql`lower(${suppressions.value}) = ${value}`,
        source === undefined ? undefined : eq(suppressions.source, source),
      ),
    );
}

/**
 * Suppressions of the workspace on any of `channels` whose lower-cased value is one of `values`,
 * with each row's channel, reason and source. `values` go as one array parameter (an import batch
 * looks up 10,000 addresses at once: one bind, one index scan per value on
 * suppressions_user_channel_value_uq).
 */
export async function selectSuppressions(
  db: DbOrTx,
  workspaceId: string,
  channels: string[],
  values: string[],
): Promise<{ channel: string; value: string; reason: string; source: string | null }[]> {
  if (values.length === 0) return [];
  return db
    .select({
      channel: suppressions.channel,
      value: suppressions.value,
      reason: suppressions.reason,
      source: suppressions.source,
    })
    .from(suppressions)
    .where(
      and(
        eq(suppressions.workspaceId, workspaceId),
        inArray(suppressions.channel, channels),
        sql`lower(${suppressions.value}) = any(${sql.param(values)}::text[])`,
      ),
    );
}

/**
 * Which of `phones` (E.164, compared exactly; one array parameter) last replied STOP rather than
 * START (sms_opt_events: the latest decision by the provider's time, ties by arrival, as
 * campaigns.webhooks records them).
 */
export async function selectStoppedPhones(db: DbOrTx, phones: string[]): Promise<string[]> {
  if (phones.length === 0) return [];
  const rows = await db
    .selectDistinctOn([smsOptEvents.phone], { phone: smsOptEvents.phone, kind: smsOptEvents.kind })
    .from(smsOptEvents)
    .where(sql`${smsOptEvents.phone} = any(${sql.param(phones)}::text[])`)
    .orderBy(smsOptEvents.phone, desc(smsOptEvents.providerTime), desc(smsOptEvents.id));
  return rows.filter((r) => r.kind === "stop").map((r) => r.phone);
}

/** One row of the workspace's suppression list as the Opt-outs screen shows it. */
export interface SuppressionListRow {
  id: number;
  channel: string;
  value: string;
  reason: string;
  source: string | null;
  createdAt: Date;
}

/**
 * A page of the workspace's suppressions, newest first (ties by id), optionally one `channels` set
 * and a `search` matched case-insensitively inside the value, reason or source (LIKE metacharacters
 * taken literally), or naming one of `alsoReasons` / `alsoSources`, or a value among `alsoValues`. `limit` rows from `offset`, and the total that match.
 */
export async function selectSuppressionPage(
  db: DbOrTx,
  workspaceId: string,
  opts: {
    channels?: string[];
    search?: string;
    /** reasons and sources whose words for people match `search` (compliance describeOptOut) */
    alsoReasons?: string[];
    alsoSources?: string[];
    /** values (normalised) that match `search` some other way: the addresses of contacts it names */
    alsoValues?: string[];
    /** with `channels`, also the SMS list's STOP replies ("stop_reply": a STOP revokes calls too) */
    withSmsStops?: boolean;
    offset: number;
    limit: number;
  },
): Promise<{ rows: SuppressionListRow[]; total: number }> {
  const like = opts.search ? likePattern(opts.search) : "";
  const where = and(
    eq(suppressions.workspaceId, workspaceId),
    opts.channels
      ? opts.withSmsStops
        ? or(
            inArray(suppressions.channel, opts.channels),
            and(eq(suppressions.channel, "sms"), eq(suppressions.reason, "stop_reply")),
          )
        : inArray(suppressions.channel, opts.channels)
      : undefined,
    opts.search
      ? sql`(${suppressions.value} ilike ${like} escape '\\' or ${suppressions.reason} ilike ${like} escape '\\' or coalesce(${suppressions.source}, '') ilike ${like} escape '\\' or ${suppressions.reason} = any(${sql.param(opts.alsoReasons ?? [])}::text[]) or ${suppressions.source} = any(${sql.param(opts.alsoSources ?? [])}::text[]) or ${suppressions.value} = any(${sql.param(opts.alsoValues ?? [])}::text[]))`
      : undefined,
  );
  const [rows, [count]] = await Promise.all([
    db
      .select({
        id: suppressions.id,
        channel: suppressions.channel,
        value: suppressions.value,
        reason: suppressions.reason,
        source: suppressions.source,
        createdAt: suppressions.createdAt,
      })
      .from(suppressions)
      .where(where)
      .orderBy(desc(suppressions.createdAt), desc(suppressions.id))
      .offset(opts.offset)
      .limit(opts.limit),
    db.select({ n: sql<number>`count(*)::int` }).from(suppressions).where(where),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}

/** `%text%` with LIKE's metacharacters (\ % _) escaped. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Whether the workspace has any suppression on `channels`, and whether any number anywhere last
 * replied STOP (a STOP ever recorded: sms_opt_events kind 'stop'). Two index probes.
 */
export async function selectSuppressionsInUse(
  db: DbOrTx,
  workspaceId: string,
  channels: string[],
): Promise<{ any: boolean; anyStop: boolean }> {
  const [row] = await db.execute<{ any: boolean; any_stop: boolean }>(sql`
    select exists (select 1 from ${suppressions} where ${suppressions.workspaceId} = ${workspaceId}
                     and ${suppressions.channel} = any(${sql.param(channels)}::text[])) as any,
           exists (select 1 from ${smsOptEvents} where ${smsOptEvents.kind} = 'stop') as any_stop`);
  return { any: !!row?.any, anyStop: !!row?.any_stop };
}
