import { and, count, countDistinct, desc, eq, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { ADVISORY_LOCK, advisoryXactLock } from "../../db/locks";
import { activities, notes } from "../../db/schema";

// SQL of notes and timeline activities. Rules: crm.notes.ts.

/** Activity types that count as a message sent to a contact (the dashboard's Messages Sent). */
export const SENT_TYPES = ["email_sent", "sms_sent", "call_made", "voicemail_sent"] as const;
/** Activity types that count as a contact engaging (opened, clicked, replied, watched). */
export const ENGAGED_TYPES = ["email_opened", "email_clicked", "sms_received", "video_viewed"] as const;

/**
 * A data-modifying CTE body (use as `kept as (${...})` inside the statement that deletes the contacts)
 * that detaches the message history (SENT_TYPES and ENGAGED_TYPES rows) of the contacts whose ids
 * `contactIds` selects: contact_id null, former_contact_id the id, metadata emptied (addresses,
 * subjects and urls go with the contact). The contact's ON DELETE CASCADE then takes only its other
 * rows, and the dashboard's past Messages Sent and Engagement rate keep the messages that really went
 * (as campaign reports keep their recipients since migration 0046). Uses activities_contact_idx.
 */
export function detachMessageHistory(contactIds: SQL): SQL {
  const types = [...SENT_TYPES, ...ENGAGED_TYPES].map((t) => sql`${t}`);
  return sql`update activities set former_contact_id = contact_id, contact_id = null, metadata = '{}'::jsonb
    where contact_id in (${contactIds}) and activity_type in (${sql.join(types, sql`, `)})`;
}

/**
 * In the transaction `tx`: takes the contact's note-creation lock (transaction-scoped advisory lock),
 * then returns how many notes the contact has, counted after the lock was granted, so a count checked
 * here and the insert that follows cannot pass a limit together with a concurrent note's.
 */
export async function lockNoteCreation(tx: DbOrTx, workspaceId: string, contactId: number): Promise<number> {
  await advisoryXactLock(tx, ADVISORY_LOCK.noteCreation, String(contactId));
  // a statement of its own: its snapshot is taken after the lock was granted
  const [row] = await tx
    .select({ n: count() })
    .from(notes)
    .where(and(eq(notes.workspaceId, workspaceId), eq(notes.contactId, contactId)));
  return Number(row?.n ?? 0);
}

/**
 * One timeline row to insert (`activityType` as documented on the `activities` table). `createdBy`:
 * the person who did it by hand (a send from the contact's page, a note), left out for what nobody
 * did by hand (campaign sends, replies, opens).
 */
export interface ActivityRow {
  workspaceId: string;
  contactId: number;
  activityType: string;
  metadata?: Record<string, unknown>;
  createdBy?: string | null;
}

/**
 * Inserts activities in one statement per 5,000 rows, each chunk as a single jsonb parameter
 * instead of 5 per row (no per-row query building: campaign sends' hot path; their rows carry no
 * `b`, read as a null created_by).
 */
export async function insertActivities(db: DbOrTx, rows: ActivityRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000).map((r) => ({
      u: r.workspaceId,
      c: r.contactId,
      t: r.activityType,
      m: r.metadata ?? {},
      ...(r.createdBy ? { b: r.createdBy } : {}),
    }));
    if (chunk.length)
      await db.execute(sql`
        insert into activities (workspace_id, contact_id, activity_type, metadata, created_by)
        select v.u, v.c, v.t, v.m, v.b
        from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as v(u uuid, c bigint, t text, m jsonb, b uuid)`);
  }
}

/** Activities of `workspaceId` in [from, to) whose type is in `types`. */
export async function countActivities(
  db: DbOrTx,
  workspaceId: string,
  from: Date,
  to: Date,
  types: string[],
) {
  const [row] = await db
    .select({ n: count() })
    .from(activities)
    .where(
      and(
        eq(activities.workspaceId, workspaceId),
        gte(activities.createdAt, from),
        lt(activities.createdAt, to),
        inArray(activities.activityType, types),
      ),
    );
  return row?.n ?? 0;
}

/**
 * Distinct contacts of `workspaceId` with an activity whose type is in `types` in [from, to), deleted
 * contacts included (their detached rows count by former_contact_id: see detachMessageHistory).
 */
export async function countContactsWithActivity(
  db: DbOrTx,
  workspaceId: string,
  from: Date,
  to: Date,
  types: string[],
) {
  const [row] = await db
    .select({ n: countDistinct(sql`coalesce(${activities.contactId}, ${activities.formerContactId})`) })
    .from(activities)
    .where(
      and(
        eq(activities.workspaceId, workspaceId),
        gte(activities.createdAt, from),
        lt(activities.createdAt, to),
        inArray(activities.activityType, types),
      ),
    );
  return row?.n ?? 0;
}

/**
 * The metadata of contact `contactId`'s first SMS `opted_out` activity (metadata.channel "sms") since
 * its latest SMS START (an `opted_in` activity of channel "sms", or an `sms_received` one of keyword
 * "START": crm.notes recordSmsStart records one or the other), or since ever; undefined when there is
 * none. The first, not the latest: a STOP repeated before the START finds the flag already off.
 * Uses activities_contact_idx.
 */
export async function selectFirstSmsOptOutSinceStart(
  db: DbOrTx,
  workspaceId: string,
  contactId: number,
): Promise<Record<string, unknown> | undefined> {
  const rows = await db.execute<{ metadata: Record<string, unknown> }>(sql`
    with last_start as (
      select created_at, id from activities
      where workspace_id = ${workspaceId} and contact_id = ${contactId}
        and ((activity_type = 'opted_in' and metadata->>'channel' = 'sms')
          or (activity_type = 'sms_received' and metadata->>'keyword' = 'START'))
      order by created_at desc, id desc limit 1
    )
    select a.metadata from activities a
    where a.workspace_id = ${workspaceId} and a.contact_id = ${contactId}
      and a.activity_type = 'opted_out' and a.metadata->>'channel' = 'sms'
      and not exists (select 1 from last_start s where (a.created_at, a.id) <= (s.created_at, s.id))
    order by a.created_at, a.id
    limit 1`);
  return rows[0]?.metadata;
}

/** The latest `limit` activities of one contact, newest first. */
export async function selectContactActivities(
  db: DbOrTx,
  workspaceId: string,
  contactId: number,
  limit: number,
) {
  return db
    .select()
    .from(activities)
    .where(and(eq(activities.workspaceId, workspaceId), eq(activities.contactId, contactId)))
    .orderBy(desc(activities.createdAt), desc(activities.id))
    .limit(limit);
}

/** Every note of one contact, newest first. */
export async function selectContactNotes(db: DbOrTx, workspaceId: string, contactId: number) {
  return db
    .select()
    .from(notes)
    .where(and(eq(notes.workspaceId, workspaceId), eq(notes.contactId, contactId)))
    .orderBy(desc(notes.createdAt), desc(notes.id));
}

/**
 * A keyset page of a contact's notes, newest first (created_at desc, id desc): `limit` notes after
 * `(ts, id)`, `ts` being the previous page's last `created_at::text` (microseconds kept). Each row
 * carries its own `ts`.
 */
export async function selectContactNotesPage(
  db: DbOrTx,
  workspaceId: string,
  contactId: number,
  limit: number,
  after?: { ts: string; id: number },
) {
  return db
    .select({ note: notes, ts: sql<string>`${notes.createdAt}::text` })
    .from(notes)
    .where(
      and(
        eq(notes.workspaceId, workspaceId),
        eq(notes.contactId, contactId),
        after
          ? sql`(${notes.createdAt}, ${notes.id}) < (${after.ts}::timestamptz, ${after.id}::bigint)`
          : undefined,
      ),
    )
    .orderBy(desc(notes.createdAt), desc(notes.id))
    .limit(limit);
}

/** Inserts a note and returns it. */
export async function insertNote(
  db: DbOrTx,
  values: {
    workspaceId: string;
    contactId: number;
    noteText: string;
    createdBy: string | null;
    createdByApiKeyId: string | null;
  },
) {
  const [row] = await db.insert(notes).values(values).returning();
  return row;
}

/**
 * In the transaction `tx`: one note of the workspace's contact, locked FOR UPDATE until `tx` ends (so
 * the author checked is the author of the row then changed), as `{id, createdBy, createdByApiKeyId}`,
 * or undefined.
 */
export async function selectNoteForUpdate(
  db: DbOrTx,
  workspaceId: string,
  contactId: number,
  noteId: number,
) {
  const [row] = await db
    .select({ id: notes.id, createdBy: notes.createdBy, createdByApiKeyId: notes.createdByApiKeyId })
    .from(notes)
    .where(and(eq(notes.id, noteId), eq(notes.workspaceId, workspaceId), eq(notes.contactId, contactId)))
    .for("update");
  return row;
}

/** Changes one note's text (scoped to the workspace and contact); returns the row or undefined. */
export async function updateNoteText(
  db: DbOrTx,
  workspaceId: string,
  contactId: number,
  noteId: number,
  noteText: string,
) {
  const [row] = await db
    .update(notes)
    .set({ noteText })
    .where(and(eq(notes.id, noteId), eq(notes.workspaceId, workspaceId), eq(notes.contactId, contactId)))
    .returning();
  return row;
}

/** Deletes one note (scoped to the workspace and contact); returns the deleted row or undefined. */
export async function deleteNoteRow(db: DbOrTx, workspaceId: string, contactId: number, noteId: number) {
  const [row] = await db
    .delete(notes)
    .where(and(eq(notes.id, noteId), eq(notes.workspaceId, workspaceId), eq(notes.contactId, contactId)))
    .returning();
  return row;
}

/**
 * Adds engagement points to contacts' `engagement_score`, capped at ENGAGEMENT_SCORE_MAX: `points`
 * holds one entry per contact (the sum of its new activities' points, crm.notes ENGAGEMENT_POINTS).
 * Contacts of another workspace than each entry's are never touched.
 */
export async function addEngagementPoints(
  db: DbOrTx,
  points: { workspaceId: string; contactId: number; points: number }[],
  max: number,
): Promise<void> {
  if (points.length === 0) return;
  const rows = points.map((p) => ({ u: p.workspaceId, c: p.contactId, p: p.points }));
  await db.execute(sql`
    update contacts set engagement_score = least(${max}::int, coalesce(contacts.engagement_score, 0) + v.p)
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(u uuid, c bigint, p int)
    where contacts.workspace_id = v.u and contacts.id = v.c`);
}
