import { z } from "zod";
import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { isConstraintViolation, isUniqueViolation } from "../../db/errors";
import { isRetryableRace, retryOnRace } from "../../db/retry";
import type { SegmentFilter } from "../../db/schema";
import { cursorId, cursorPage } from "../../lib/cursor";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { queueWebhookDeliveries, subscribedWebhookTypes } from "../webhooks/webhooks.service";
import { type ContactEventCtx, emitContactEvents } from "./crm.contact-events";
import { contactIdsWhere, contactWhere, countContactsWhere, selectContact } from "./crm.queries";
import { createSegmentSchema, createTagSchema, updateSegmentSchema } from "./crm.schemas";
import { listContactsPageJson } from "./crm.search";
import {
  deleteSegmentRow,
  deleteTagRow,
  ensureTag,
  insertSegment,
  insertTag,
  lockSegmentCreation,
  lockTagCreation,
  lockTagRow,
  selectSegment,
  selectSegments,
  selectSegmentsPage,
  selectTagsOfContacts,
  selectTagsPage,
  selectTagsWithCounts,
  tagContactsWhereReturningIds,
  tagExists,
  tagNameExists,
  untagContactsWhere,
  updateSegmentRow,
} from "./crm.tags.queries";

// Tags and lists (saved segments).

/**
 * The colour of a tag created without one (and of a tag shown without one): white text on it is
 * 6.29:1 (WCAG AA; #6366f1, the default before migration 0057, gave 4.47:1).
 */
export const DEFAULT_TAG_COLOR = "#4f46e5";

/**
 * Most tags a workspace may have. Tags were created without end (every one is listed with its
 * count on the contacts screen and in the tag pickers); the 501st is a 409 (tooManyTags).
 */
export const MAX_TAGS = 500;
/**
 * Most saved segments (lists) a workspace may have. Listing them counts each one's contacts with
 * its own query (a search filter over the whole workspace), so a workspace holding thousands made
 * every GET /api/contacts/lists/all run thousands of counts; the 101st is a 409.
 */
export const MAX_SEGMENTS = 100;

function tooManyTags(): AppError {
  return new AppError(
    "CONFLICT",
    `This workspace already has ${MAX_TAGS} tags, the most it can have. Delete one it no longer uses to create another.`,
  );
}

/** GET /api/contacts/tags/all: `{id, name, color, contact_count}` by name. */
export async function listTags(ctx: Pick<AppContext, "db">, workspaceId: string) {
  return selectTagsWithCounts(ctx.db, workspaceId);
}

/**
 * Cursor of the name-ordered lists (tags, segments): the last row's `[name, id]`. A name holding a
 * NUL or a lone surrogate is refused by decodeCursor before this shape is checked.
 */
const nameCursor = z.tuple([z.string().max(200), cursorId]);

/**
 * A cursor page of `listTags` for the public API (issue 15): by name then id, `limit` tags after
 * `cursor` (a previous page's `nextCursor`). Returns `{tags, nextCursor}` (null on the last page).
 * @throws AppError BAD_REQUEST 'cursor is not valid'.
 */
export async function listTagsPage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  limit: number,
  cursor?: string,
) {
  const p = await cursorPage(
    cursor,
    nameCursor,
    limit,
    (n, after) => selectTagsPage(ctx.db, workspaceId, n, after && { name: after[0], id: after[1] }),
    (t) => [t.name, t.id],
  );
  return { tags: p.rows, nextCursor: p.nextCursor };
}

/**
 * Deletes a tag of the workspace; it comes off every contact that carried it. A tag a saved segment
 * (list) filters on is refused, so no list silently turns empty. The check and the delete run in one
 * transaction holding the tag's row FOR UPDATE (lockTagRow), which waits for a segment being saved or
 * re-filtered on the tag (it holds the row FOR SHARE): that segment is seen by the check, and one
 * saved after the delete finds no tag (createSegment/updateSegment's 404).
 * @throws AppError NOT_FOUND 'Tag not found' (also another workspace's), CONFLICT naming the lists.
 */
export async function deleteTag(ctx: Pick<AppContext, "db">, workspaceId: string, id: number) {
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("NOT_FOUND", "Tag not found");
  await ctx.db.transaction(async (tx) => {
    if (!(await lockTagRow(tx, workspaceId, id, "update"))) throw new AppError("NOT_FOUND", "Tag not found");
    // a statement of its own after the lock: sees every segment committed on the tag before it
    const using = (await selectSegments(tx, workspaceId)).filter((s) => s.filter.tag_id === id);
    if (using.length)
      throw new AppError(
        "CONFLICT",
        `This tag is used by the list${using.length > 1 ? "s" : ""} ${using.map((s) => `'${s.name}'`).join(", ")}. Change or delete ${using.length > 1 ? "them" : "it"} first.`,
      );
    if (!(await deleteTagRow(tx, workspaceId, id))) throw new AppError("NOT_FOUND", "Tag not found");
  });
}

/**
 * In the transaction `tx` of a segment's save: when `filter` names a tag, holds the tag's row FOR
 * SHARE until `tx` ends (lockTagRow), so deleteTag waits and then sees the segment, or the tag was
 * deleted first and the save is refused.
 * @throws AppError NOT_FOUND 'Tag not found' (also another workspace's, or deleted meanwhile).
 */
async function lockSegmentTag(tx: DbOrTx, workspaceId: string, filter: SegmentFilter | undefined) {
  const tagId = filter?.tag_id;
  if (tagId === undefined) return;
  if (!Number.isSafeInteger(tagId) || tagId <= 0 || !(await lockTagRow(tx, workspaceId, tagId, "share")))
    throw new AppError("NOT_FOUND", "Tag not found");
}

/** True for a contact_tags insert refused because its contact was deleted meanwhile (23503 on contact_id). */
function isTaggedContactGone(e: unknown): boolean {
  return isConstraintViolation(e, "23503", "contact_tags_contact_id_contacts_id_fk");
}

/**
 * Runs a tagging `work` (one statement, or one transaction that rolls back as a whole) again when a
 * contact it read was deleted by another request before its contact_tags insert was checked: the
 * contacts foreign key refuses the insert (23503); the new run reads the contacts still there.
 * Deadlocks and serialization failures are retried too; retryOnRace's attempts and waits. Any other
 * error, or the last run's, is thrown as is.
 */
export async function retryTagging<T>(work: () => Promise<T>): Promise<T> {
  return retryOnRace(work, { retryable: (e) => isRetryableRace(e) || isTaggedContactGone(e) });
}

/**
 * Puts tag `tagId` on one contact (the single-contact form of bulk add_tag; tagging twice is a no-op).
 * A contact deleted by another request while it is tagged is a 404 too (never a 500).
 * @throws AppError NOT_FOUND 'Contact not found' / 'Tag not found' (also another workspace's ids).
 */
export async function tagContact(
  ctx: ContactEventCtx,
  workspaceId: string,
  contactId: number,
  tagId: number,
) {
  await assertContactOfWorkspace(ctx, workspaceId, contactId);
  await assertTagOfWorkspace(ctx, workspaceId, tagId);
  // contact.updated when the tag is new on the contact (as the bulk add_tag), stored with the tagging
  // in one transaction (the webhooks outbox) when an endpoint listens
  const listens = (await subscribedWebhookTypes(ctx, workspaceId, ["contact.updated"])).size > 0;
  const target = contactIdsWhere(workspaceId, [contactId]);
  const { matched, emitted } = await retryTagging(async () => {
    if (!listens)
      return { matched: (await tagContactsWhereReturningIds(ctx.db, target, tagId)).matched, emitted: null };
    return ctx.db.transaction(async (tx) => {
      const r = await tagContactsWhereReturningIds(tx, target, tagId);
      const emitted = r.tagged.length
        ? await emitContactEvents({ db: tx, log: ctx.log }, workspaceId, "contact.updated", r.tagged)
        : null;
      return { matched: r.matched, emitted };
    });
  });
  // deleted by another request since it was found: nothing was tagged
  if (matched === 0) throw new AppError("NOT_FOUND", "Contact not found");
  await queueWebhookDeliveries(ctx, emitted);
  return { contact_id: contactId, tag_id: tagId };
}

/**
 * Takes tag `tagId` off one contact (the single-contact form of bulk remove_tag).
 * @throws AppError NOT_FOUND 'Contact not found' / 'Tag not found' / 'This contact does not have
 *   this tag'.
 */
export async function untagContact(
  ctx: ContactEventCtx,
  workspaceId: string,
  contactId: number,
  tagId: number,
) {
  await assertContactOfWorkspace(ctx, workspaceId, contactId);
  await assertTagOfWorkspace(ctx, workspaceId, tagId);
  // the untagging and its contact.updated in one transaction (the webhooks outbox) when one listens
  const listens = (await subscribedWebhookTypes(ctx, workspaceId, ["contact.updated"])).size > 0;
  const target = contactIdsWhere(workspaceId, [contactId]);
  const { ids, emitted } = listens
    ? await ctx.db.transaction(async (tx) => {
        const ids = await untagContactsWhere(tx, target, tagId);
        const emitted = ids.length
          ? await emitContactEvents({ db: tx, log: ctx.log }, workspaceId, "contact.updated", ids)
          : null;
        return { ids, emitted };
      })
    : { ids: await untagContactsWhere(ctx.db, target, tagId), emitted: null };
  if (ids.length === 0) throw new AppError("NOT_FOUND", "This contact does not have this tag");
  await queueWebhookDeliveries(ctx, emitted);
  return { contact_id: contactId, tag_id: tagId };
}

async function assertContactOfWorkspace(ctx: Pick<AppContext, "db">, workspaceId: string, id: number) {
  if (!Number.isSafeInteger(id) || id <= 0 || !(await selectContact(ctx.db, workspaceId, id)))
    throw new AppError("NOT_FOUND", "Contact not found");
}

/**
 * POST /api/contacts/tags {name, color?}: creates a tag, at most MAX_TAGS per workspace (counted
 * under the workspace's tag-creation lock, so concurrent creations cannot pass it together).
 * @throws CONFLICT 'A tag with this name already exists', CONFLICT at MAX_TAGS.
 */
export async function createTag(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const t = parseInput(createTagSchema, input);
  try {
    const row = await ctx.db.transaction(async (tx) => {
      if ((await lockTagCreation(tx, workspaceId)) >= MAX_TAGS) throw tooManyTags();
      return insertTag(tx, workspaceId, t.name, t.color ?? DEFAULT_TAG_COLOR);
    });
    if (!row) throw new AppError("INTERNAL", "Failed to create tag");
    return { id: row.id, name: row.name, color: row.color };
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A tag with this name already exists");
    throw e;
  }
}

/**
 * In the transaction `tx`: creates the tag `name` (DEFAULT_TAG_COLOR) unless the workspace has one
 * of that name (case-insensitive), within MAX_TAGS as createTag (under the same lock). Used by the
 * lead search's "add to contacts" with a tag name.
 * @throws AppError CONFLICT when the tag is new and the workspace already has MAX_TAGS.
 */
export async function ensureTagWithinLimit(tx: DbOrTx, workspaceId: string, name: string): Promise<void> {
  const count = await lockTagCreation(tx, workspaceId);
  if (await tagNameExists(tx, workspaceId, name)) return;
  if (count >= MAX_TAGS) throw tooManyTags();
  await ensureTag(tx, workspaceId, name, DEFAULT_TAG_COLOR);
}

/** Tags of the given contacts as `{contact_id, id, tag_name, tag_color}` (spec section 3: Tag on a contact). */
export async function tagsOfContacts(ctx: Pick<AppContext, "db">, workspaceId: string, contactIds: number[]) {
  if (contactIds.length === 0) return [];
  return selectTagsOfContacts(ctx.db, workspaceId, contactIds);
}

/**
 * NOT_FOUND 'Tag not found' unless `tagId` is a tag of `workspaceId`.
 * @throws AppError NOT_FOUND.
 */
export async function assertTagOfWorkspace(ctx: Pick<AppContext, "db">, workspaceId: string, tagId: number) {
  if (!Number.isSafeInteger(tagId) || tagId <= 0 || !(await tagExists(ctx.db, workspaceId, tagId)))
    throw new AppError("NOT_FOUND", "Tag not found");
}

/** GET /api/contacts/lists/all: saved segments `{id, name, filter, contact_count, created_at}`. */
export async function listSegments(ctx: Pick<AppContext, "db">, workspaceId: string) {
  return segmentsWithCounts(ctx, workspaceId, await selectSegments(ctx.db, workspaceId));
}

async function segmentsWithCounts(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  rows: Awaited<ReturnType<typeof selectSegments>>,
) {
  const out = [];
  for (const s of rows) {
    out.push({
      id: s.id,
      name: s.name,
      filter: s.filter,
      contact_count: await countContactsWhere(ctx.db, contactWhere(workspaceId, s.filter)),
      created_at: s.createdAt.toISOString(),
    });
  }
  return out;
}

/**
 * A cursor page of `listSegments` for the public API (issue 15): by name then id, `limit` segments
 * after `cursor`. Returns `{segments, nextCursor}` (null on the last page).
 * @throws AppError BAD_REQUEST 'cursor is not valid'.
 */
export async function listSegmentsPage(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  limit: number,
  cursor?: string,
) {
  const p = await cursorPage(
    cursor,
    nameCursor,
    limit,
    (n, after) => selectSegmentsPage(ctx.db, workspaceId, n, after && { name: after[0], id: after[1] }),
    (s) => [s.name, s.id],
  );
  return { segments: await segmentsWithCounts(ctx, workspaceId, p.rows), nextCursor: p.nextCursor };
}

/**
 * A cursor page of the contacts a saved segment matches now (its filter applied to the contacts
 * list, as `listContactsPageJson`: newest first, same cursors).
 * @throws AppError NOT_FOUND 'List not found' (also another workspace's), BAD_REQUEST 'cursor is not valid'.
 */
export async function listSegmentContactsPageJson(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  segmentId: number,
  limit: number,
  cursor?: string,
) {
  const seg =
    Number.isSafeInteger(segmentId) && segmentId > 0
      ? await selectSegment(ctx.db, workspaceId, segmentId)
      : undefined;
  if (!seg) throw new AppError("NOT_FOUND", "List not found");
  return listContactsPageJson(ctx, workspaceId, seg.filter, limit, cursor);
}

/**
 * POST /api/contacts/lists {name, filter}: saves a segment, at most MAX_SEGMENTS per workspace
 * (counted under the workspace's segment-creation lock, so concurrent creations cannot pass it).
 * A filter's tag is held FOR SHARE while the segment is stored (lockSegmentTag), so a concurrent
 * deleteTag either sees the segment (its 409) or deleted the tag first (this 404).
 * @throws NOT_FOUND 'Tag not found' (filter.tag_id not the workspace's, or deleted meanwhile),
 *   CONFLICT on a duplicate name or at MAX_SEGMENTS.
 */
export async function createSegment(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const s = parseInput(createSegmentSchema, input);
  try {
    const row = await ctx.db.transaction(async (tx) => {
      await lockSegmentTag(tx, workspaceId, s.filter);
      if ((await lockSegmentCreation(tx, workspaceId)) >= MAX_SEGMENTS)
        throw new AppError(
          "CONFLICT",
          `This workspace already has ${MAX_SEGMENTS} saved lists, the most it can have. Delete one it no longer uses to save another.`,
        );
      return insertSegment(tx, workspaceId, s.name, s.filter);
    });
    if (!row) throw new AppError("INTERNAL", "Failed to save list");
    return { id: row.id, name: row.name, filter: row.filter, created_at: row.createdAt.toISOString() };
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A list with this name already exists");
    throw e;
  }
}

/**
 * Renames a saved segment and replaces its filter when one is given (issue 14: segments are
 * editable): `{name, filter?}` (updateSegmentSchema; without `filter` the stored one stays). A new
 * filter's tag is held FOR SHARE while the segment is stored, as in createSegment.
 * @throws NOT_FOUND 'List not found' (not the workspace's) or 'Tag not found' (also deleted
 *   meanwhile), CONFLICT on a duplicate name.
 */
export async function updateSegment(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  id: number,
  input: unknown,
) {
  const s = parseInput(updateSegmentSchema, input);
  try {
    const row = await ctx.db.transaction(async (tx) => {
      await lockSegmentTag(tx, workspaceId, s.filter);
      return updateSegmentRow(tx, workspaceId, id, {
        name: s.name,
        ...(s.filter ? { filter: s.filter } : {}),
      });
    });
    if (!row) throw new AppError("NOT_FOUND", "List not found");
    return { id: row.id, name: row.name, filter: row.filter, created_at: row.createdAt.toISOString() };
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A list with this name already exists");
    throw e;
  }
}

/** Deletes a saved segment (campaigns sent to it keep their recipients). @throws NOT_FOUND 'List not found'. */
export async function deleteSegment(ctx: Pick<AppContext, "db">, workspaceId: string, id: number) {
  if (!(await deleteSegmentRow(ctx.db, workspaceId, id))) throw new AppError("NOT_FOUND", "List not found");
}
