import { and, desc, eq, inArray, sql } from "drizzle-orm";
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

/** Suppressions of the workspace on any of `channels` whose lower-cased value is one of `values`. */
export async function selectSuppressions(
  db: DbOrTx,
  workspaceId: string,
  channels: string[],
  values: string[],
): Promise<{ value: string; reason: string }[]> {
  return db
    .select({ value: suppressions.value, reason: suppressions.reason })
    .from(suppressions)
    .where(
      and(
        eq(suppressions.workspaceId, workspaceId),
        inArray(suppressions.channel, channels),
        inArray(sql`lower(${suppressions.value})`, values),
      ),
    );
}

/**
 * Which of `phones` (E.164, compared exactly) last replied STOP rather than START (sms_opt_events:
 * the latest decision by the provider's time, ties by arrival, as campaigns.webhooks records them).
 */
export async function selectStoppedPhones(db: DbOrTx, phones: string[]): Promise<string[]> {
  if (phones.length === 0) return [];
  const rows = await db
    .selectDistinctOn([smsOptEvents.phone], { phone: smsOptEvents.phone, kind: smsOptEvents.kind })
    .from(smsOptEvents)
    .where(inArray(smsOptEvents.phone, phones))
    .orderBy(smsOptEvents.phone, desc(smsOptEvents.providerTime), desc(smsOptEvents.id));
  return rows.filter((r) => r.kind === "stop").map((r) => r.phone);
}
