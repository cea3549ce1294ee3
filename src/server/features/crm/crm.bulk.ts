import type { AppContext } from "../../context";
import type { WorkspaceRole } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import { assertCan } from "../workspaces/workspaces.service";
import {
  contactIdsWhere,
  contactWhereExcept,
  deleteContactsWhere,
  setContactsColumnWhere,
} from "./crm.queries";
import { type BulkOperationInput, bulkOperationSchema } from "./crm.schemas";
import { assertTagOfWorkspace } from "./crm.tags";
import { tagContactsWhere, untagContactsWhere } from "./crm.tags.queries";

// Bulk operations (spec section 7 "Bulk operations").

/**
 * POST /api/contacts/bulk/operation over explicit `contactIds` or a whole `filter` result (minus
 * `excludeIds`: "select all N matching", then untick a few; issue 14).
 * delete -> {deleted}; update_stage {lifecycle_stage} -> {updated}; update_status {lead_status}
 * -> {updated}; add_tag {tag_id} -> {tagged}; remove_tag {tag_id} -> {untagged}.
 * Ids that are not the workspace's are ignored. A `member` may delete at most one contact at a time
 * (issue 10 roles): deleting a filter's result or several ids needs owner or admin.
 * Each operation is one set-based statement ("select all matching" can cover a million rows).
 * @throws BAD_REQUEST (missing data), NOT_FOUND 'Tag not found', FORBIDDEN (member bulk delete).
 */
export async function bulkOperation(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  input: BulkOperationInput,
  actor: { role: WorkspaceRole },
) {
  const b = parseInput(bulkOperationSchema, input);
  if (b.operation === "delete" && (!b.contactIds || b.contactIds.length > 1))
    assertCan(actor, "bulkDeleteContacts");
  const target = b.contactIds
    ? contactIdsWhere(workspaceId, b.contactIds)
    : contactWhereExcept(workspaceId, b.filter ?? {}, b.excludeIds);
  switch (b.operation) {
    case "delete":
      return { deleted: await deleteContactsWhere(ctx.db, target) };
    case "update_stage": {
      const stage = b.data?.lifecycle_stage;
      if (!stage) throw new AppError("BAD_REQUEST", "data.lifecycle_stage is required");
      return { updated: await setContactsColumnWhere(ctx.db, target, "lifecycle_stage", stage) };
    }
    case "update_status": {
      const status = b.data?.lead_status;
      if (!status) throw new AppError("BAD_REQUEST", "data.lead_status is required");
      return { updated: await setContactsColumnWhere(ctx.db, target, "lead_status", status) };
    }
    case "add_tag":
    case "remove_tag": {
      const tagId = b.data?.tag_id;
      if (!tagId) throw new AppError("BAD_REQUEST", "data.tag_id is required");
      await assertTagOfWorkspace(ctx, workspaceId, tagId);
      if (b.operation === "remove_tag") return { untagged: await untagContactsWhere(ctx.db, target, tagId) };
      // contacts already carrying the tag count as tagged
      return { tagged: await tagContactsWhere(ctx.db, target, tagId) };
    }
  }
}
