import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { contactWhere, countContactsWhere, isUniqueViolation } from "./crm.queries";
import { createSegmentSchema, createTagSchema } from "./crm.schemas";
import {
  deleteSegmentRow,
  insertSegment,
  insertTag,
  selectSegments,
  selectTagsOfContacts,
  selectTagsWithCounts,
  tagExists,
  updateSegmentRow,
} from "./crm.tags.queries";

// Tags and lists (saved segments).

/** The colour of a tag created without one (and of a tag shown without one). */
export const DEFAULT_TAG_COLOR = "#6366f1";

/** GET /api/contacts/tags/all: `{id, name, color, contact_count}` by name. */
export async function listTags(ctx: Pick<AppContext, "db">, workspaceId: string) {
  return selectTagsWithCounts(ctx.db, workspaceId);
}

/** POST /api/contacts/tags {name, color?}: creates a tag. @throws CONFLICT 'A tag with this name already exists'. */
export async function createTag(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const t = parseInput(createTagSchema, input);
  try {
    const row = await insertTag(ctx.db, workspaceId, t.name, t.color ?? DEFAULT_TAG_COLOR);
    if (!row) throw new AppError("INTERNAL", "Failed to create tag");
    return { id: row.id, name: row.name, color: row.color };
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A tag with this name already exists");
    throw e;
  }
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
  if (!(await tagExists(ctx.db, workspaceId, tagId))) throw new AppError("NOT_FOUND", "Tag not found");
}

/** GET /api/contacts/lists/all: saved segments `{id, name, filter, contact_count, created_at}`. */
export async function listSegments(ctx: Pick<AppContext, "db">, workspaceId: string) {
  const rows = await selectSegments(ctx.db, workspaceId);
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
 * POST /api/contacts/lists {name, filter}: saves a segment.
 * @throws NOT_FOUND 'Tag not found' (filter.tag_id not the workspace's), CONFLICT on a duplicate name.
 */
export async function createSegment(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const s = parseInput(createSegmentSchema, input);
  if (s.filter.tag_id !== undefined) await assertTagOfWorkspace(ctx, workspaceId, s.filter.tag_id);
  try {
    const row = await insertSegment(ctx.db, workspaceId, s.name, s.filter);
    if (!row) throw new AppError("INTERNAL", "Failed to save list");
    return { id: row.id, name: row.name, filter: row.filter, created_at: row.createdAt.toISOString() };
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("CONFLICT", "A list with this name already exists");
    throw e;
  }
}

/**
 * Renames a saved segment and/or replaces its filter (issue 14: segments are editable); input as
 * POST /api/contacts/lists `{name, filter}`.
 * @throws NOT_FOUND 'List not found' (not the workspace's) or 'Tag not found', CONFLICT on a duplicate name.
 */
export async function updateSegment(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  id: number,
  input: unknown,
) {
  const s = parseInput(createSegmentSchema, input);
  if (s.filter.tag_id !== undefined) await assertTagOfWorkspace(ctx, workspaceId, s.filter.tag_id);
  try {
    const row = await updateSegmentRow(ctx.db, workspaceId, id, { name: s.name, filter: s.filter });
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
