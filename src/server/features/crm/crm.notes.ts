import { z } from "zod";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { cursorId, cursorPage, pgTimestampText } from "../../lib/cursor";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { apiKeyNames } from "../api/api.service";
import { displayNames } from "../user/user.service";
import { type AddedBy, getContact, recordContactOptIn } from "./crm.contacts";
import { canChangeNote, type NoteActor } from "./crm.note-access";
import {
  type ActivityRow,
  addEngagementPoints,
  countActivities,
  countContactsWithActivity,
  deleteNoteRow,
  ENGAGED_TYPES,
  insertActivities,
  insertNote,
  lockNoteCreation,
  SENT_TYPES,
  selectContactNotesPage,
  selectFirstSmsOptOutSinceStart,
  selectNoteForUpdate,
  updateNoteText,
} from "./crm.notes.queries";
import { noteSchema } from "./crm.schemas";

// Notes and the contact timeline (activities).

export { ENGAGED_TYPES, SENT_TYPES };

/**
 * Messages sent to contacts (email_sent, sms_sent, call_made, voicemail_sent activities) in [from, to),
 * and how many of those contacts engaged (opened, clicked or replied) in the same window. Deleted
 * contacts' messages and engagement still count: their deletion keeps these rows, detached from the
 * contact (crm.notes.queries detachMessageHistory), so a past month's figures never drop.
 */
export async function countMessageActivity(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  from: Date,
  to: Date,
): Promise<{ sent: number; engaged: number }> {
  const [sent, engaged] = await Promise.all([
    countActivities(ctx.db, workspaceId, from, to, [...SENT_TYPES]),
    countContactsWithActivity(ctx.db, workspaceId, from, to, [...ENGAGED_TYPES]),
  ]);
  return { sent, engaged };
}

/**
 * Points a contact's `engagement_score` gains per timeline activity of theirs (Pitchwise's rule, in
 * the manner of HubSpot's and Mailchimp's contact ratings: the more a person engages, the higher;
 * replies and clicks weigh more than opens): an email open 1, a click (email or SMS link) 3, a reply
 * 5, a video landing page view 2, each video watch milestone (25/50/75/100 %) 1, an answered call 2.
 * The score is capped at ENGAGEMENT_SCORE_MAX; the user and the API may still set it (e.g. to reset it).
 */
export const ENGAGEMENT_POINTS: Readonly<Record<string, number>> = {
  email_opened: 1,
  email_clicked: 3,
  sms_clicked: 3,
  sms_received: 5,
  video_viewed: 2,
  video_progress: 1,
  call_completed: 2,
};
/** The highest engagement score (a 0-100 rating, as lead_score). */
export const ENGAGEMENT_SCORE_MAX = 100;

/**
 * Bulk-inserts timeline activities (5,000 rows per statement). `activityType` is one of the types
 * documented on the `activities` table (email_sent, sms_sent, video_viewed, ...). The caller vouches
 * that every contactId belongs to workspaceId (campaigns and studio pass ids they resolved for that user).
 * Engagement activities (ENGAGEMENT_POINTS) also raise their contact's `engagement_score`, in `db`
 * (the caller's transaction, when it has one).
 */
export async function recordActivities(db: DbOrTx, rows: ActivityRow[]): Promise<void> {
  await insertActivities(db, rows);
  const gained = new Map<string, { workspaceId: string; contactId: number; points: number }>();
  for (const r of rows) {
    const p = ENGAGEMENT_POINTS[r.activityType];
    if (!p || r.contactId === null || r.contactId === undefined) continue;
    const key = `${r.workspaceId}:${r.contactId}`;
    const g = gained.get(key) ?? { workspaceId: r.workspaceId, contactId: r.contactId, points: 0 };
    g.points += p;
    gained.set(key, g);
  }
  // one contact's points in one row; contacts in id order (a fixed lock order for concurrent calls)
  await addEngagementPoints(
    db,
    [...gained.values()].sort((a, b) => a.contactId - b.contactId),
    ENGAGEMENT_SCORE_MAX,
  );
}

/**
 * Records an SMS START of contact `contactId` of `workspaceId` (campaigns applyTwilioInbound, in the
 * transaction `db` that marks the reply as applied). The START undoes the STOP: the SMS opt-in goes
 * back to what it was before the first SMS opt-out since the contact's last START (the
 * `opt_in_before` that opt-out's `opted_out` activity kept: crm recordContactOptIn's return; a STOP
 * repeated meanwhile found the flag already off), with an `opted_in` activity. Without such a record
 * (a START with no STOP, or an opt-out recorded before the flag was kept), a contact the workspace
 * `texted` at the number is opted in (the person asked for the texts of a business that texts them)
 * and one it only called or left a voicemail for is not: a number's STOP also opts it out of those
 * businesses, whose contact may never have agreed to texts, and a START is not that agreement. A
 * contact whose flag stays off gets an `sms_received` activity of keyword START instead, so the
 * timeline still shows the reply. Either activity marks the START for the next one's lookup
 * (selectFirstSmsOptOutSinceStart). The caller lifts the suppression. Returns whether the flag is on.
 */
export async function recordSmsStart(
  db: DbOrTx,
  workspaceId: string,
  contactId: number,
  texted: boolean,
): Promise<boolean> {
  const before = (await selectFirstSmsOptOutSinceStart(db, workspaceId, contactId))?.opt_in_before;
  const restore = typeof before === "boolean" ? before : texted;
  if (restore) await recordContactOptIn({ db }, workspaceId, contactId, "sms", true);
  await insertActivities(db, [
    restore
      ? { workspaceId, contactId, activityType: "opted_in", metadata: { channel: "sms" } }
      : {
          workspaceId,
          contactId,
          activityType: "sms_received",
          metadata: { channel: "sms", keyword: "START", sms_opt_in: false },
        },
  ]);
  return restore;
}

/**
 * Most notes one contact may have. The contact's page (GET /api/contacts/{id}, tRPC crm.get) returns
 * every note, each up to 10,000 characters: notes added without end made that one response as large
 * as the tenant liked (200 notes were 2 MB), all of it held in the server's memory.
 */
export const MAX_NOTES_PER_CONTACT = 500;

/**
 * POST /api/contacts/{id}/notes {note_text}: blank notes are rejected; records a note_added activity
 * in the same transaction. At most MAX_NOTES_PER_CONTACT per contact (counted under the contact's
 * note lock, so notes added together cannot pass it). `by`: its author (notes.created_by, the
 * signed-in person) or the API key it came through (notes.created_by_api_key_id, the public API).
 * Returns `{id, note_text, created_at}`.
 * @throws BAD_REQUEST, NOT_FOUND, CONFLICT (the contact already has MAX_NOTES_PER_CONTACT notes).
 */
export async function addNote(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  contactId: number,
  input: unknown,
  by: AddedBy = {},
) {
  const n = parseInput(noteSchema, input);
  await getContact(ctx, workspaceId, contactId);
  return ctx.db.transaction(async (tx) => {
    if ((await lockNoteCreation(tx, workspaceId, contactId)) >= MAX_NOTES_PER_CONTACT)
      throw new AppError(
        "CONFLICT",
        `This contact already has ${MAX_NOTES_PER_CONTACT} notes, the most it can have. Edit or delete an old note to add another.`,
      );
    const row = await insertNote(tx, {
      workspaceId,
      contactId,
      noteText: n.note_text,
      createdBy: by.userId ?? null,
      createdByApiKeyId: by.apiKeyId ?? null,
    });
    if (!row) throw new AppError("INTERNAL", "Failed to add note");
    await recordActivities(tx, [
      {
        workspaceId,
        contactId,
        activityType: "note_added",
        metadata: { note_id: row.id },
        createdBy: by.userId ?? null,
      },
    ]);
    return { id: row.id, note_text: row.noteText, created_at: row.createdAt.toISOString() };
  });
}

/**
 * A cursor page of a contact's notes for the public API (issue 15), newest first (created_at desc,
 * id desc): `limit` notes `{id, note_text, created_at}` after `cursor`. Returns `{notes, nextCursor}`.
 * @throws AppError NOT_FOUND 'Contact not found', BAD_REQUEST 'cursor is not valid'.
 */
export async function listNotesPage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  contactId: number,
  limit: number,
  cursor?: string,
) {
  const p = await cursorPage(
    cursor,
    z.tuple([pgTimestampText, cursorId]),
    limit,
    async (n, after) => {
      await getContact(ctx, workspaceId, contactId);
      return selectContactNotesPage(
        ctx.db,
        workspaceId,
        contactId,
        n,
        after && { ts: after[0], id: after[1] },
      );
    },
    (r) => [r.ts, r.note.id],
  );
  return {
    notes: p.rows.map(({ note: n }) => ({
      id: n.id,
      note_text: n.noteText,
      created_at: n.createdAt.toISOString(),
    })),
    nextCursor: p.nextCursor,
  };
}

/**
 * In the transaction `tx`: locks the note (FOR UPDATE) and checks that `actor` may `verb` it
 * (canChangeNote: its author, or an owner or admin).
 * @throws AppError NOT_FOUND 'Note not found', FORBIDDEN (403) with a sentence naming its author.
 */
async function lockChangeableNote(
  tx: DbOrTx,
  workspaceId: string,
  contactId: number,
  noteId: number,
  actor: NoteActor,
  verb: "edit" | "delete",
): Promise<void> {
  const note = await selectNoteForUpdate(tx, workspaceId, contactId, noteId);
  if (!note) throw new AppError("NOT_FOUND", "Note not found");
  if (canChangeNote(actor, note.createdBy)) return;
  const author = note.createdBy
    ? (await displayNames({ db: tx }, [note.createdBy])).get(note.createdBy)
    : null;
  const key = note.createdByApiKeyId
    ? (await apiKeyNames({ db: tx }, workspaceId, [note.createdByApiKeyId])).get(note.createdByApiKeyId)
    : null;
  const whose = author
    ? `; this one is ${author}'s`
    : key
      ? `; this one was added through API key '${key}'`
      : "";
  throw new AppError(
    "FORBIDDEN",
    `You can ${verb} only the notes you wrote${whose}. The workspace owner or an admin can ${verb} anyone's.`,
  );
}

/**
 * PUT /api/contacts/{id}/notes/{noteId} {note_text}: replaces a note's text (blank refused like a new
 * note) and records a `note_edited` activity (metadata note_id) in the same transaction, so the
 * timeline says the note changed. Only its author, or an owner or admin, may (`actor`:
 * canChangeNote). Returns `{id, note_text, created_at}`.
 * @throws AppError BAD_REQUEST (blank), NOT_FOUND 'Note not found' (unknown, another contact's or
 * another workspace's note), FORBIDDEN (403) 'You can edit only the notes you wrote; ...' for
 * another member's note.
 */
export async function editNote(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  contactId: number,
  noteId: number,
  input: unknown,
  actor: NoteActor,
) {
  const n = parseInput(noteSchema, input);
  await getContact(ctx, workspaceId, contactId);
  return ctx.db.transaction(async (tx) => {
    await lockChangeableNote(tx, workspaceId, contactId, noteId, actor, "edit");
    const row = await updateNoteText(tx, workspaceId, contactId, noteId, n.note_text);
    if (!row) throw new AppError("NOT_FOUND", "Note not found");
    await recordActivities(tx, [
      {
        workspaceId,
        contactId,
        activityType: "note_edited",
        metadata: { note_id: row.id },
        createdBy: actor.userId,
      },
    ]);
    return { id: row.id, note_text: row.noteText, created_at: row.createdAt.toISOString() };
  });
}

/**
 * DELETE /api/contacts/{id}/notes/{noteId}: deletes a note and records a `note_deleted` activity
 * (metadata note_id) in the same transaction, so the timeline's earlier 'note added' is not left
 * pointing at a note that silently vanished. Only its author, or an owner or admin, may (`actor`:
 * canChangeNote).
 * @throws AppError NOT_FOUND 'Note not found', FORBIDDEN (403) 'You can delete only the notes you
 * wrote; ...' for another member's note.
 */
export async function deleteNote(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  contactId: number,
  noteId: number,
  actor: NoteActor,
): Promise<void> {
  await getContact(ctx, workspaceId, contactId);
  await ctx.db.transaction(async (tx) => {
    await lockChangeableNote(tx, workspaceId, contactId, noteId, actor, "delete");
    const row = await deleteNoteRow(tx, workspaceId, contactId, noteId);
    if (!row) throw new AppError("NOT_FOUND", "Note not found");
    await recordActivities(tx, [
      {
        workspaceId,
        contactId,
        activityType: "note_deleted",
        metadata: { note_id: row.id },
        createdBy: actor.userId,
      },
    ]);
  });
}
