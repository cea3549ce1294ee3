import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import { retryOnRace } from "../../db/retry";
import type { WorkspaceRole } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { parseInput } from "../../lib/validate";
import {
  queueWebhookDeliveries,
  subscribedWebhookTypes,
  type WebhookEmit,
} from "../webhooks/webhooks.service";
import { assertCan } from "../workspaces/workspaces.service";
import { emitContactEvents, emitContactsDeleted } from "./crm.contact-events";
import {
  contactIdsWhere,
  contactWhereExcept,
  deleteContactsWhere,
  deleteContactsWhereReturningIds,
  setContactsColumnWhere,
  setContactsColumnWhereReturningIds,
} from "./crm.queries";
import { type BulkOperationInput, bulkOperationSchema } from "./crm.schemas";
import { assertTagOfWorkspace, retryTagging } from "./crm.tags";
import { tagContactsWhere, tagContactsWhereReturningIds, untagContactsWhere } from "./crm.tags.queries";

// Bulk operations (spec section 7 "Bulk operations").

/**
 * POST /api/contacts/bulk/operation over explicit `contactIds` or a whole `filter` result (minus
 * `excludeIds`: "select all N matching", then untick a few; issue 14).
 * delete -> {deleted}; update_stage {lifecycle_stage} -> {updated}; update_status {lead_status}
 * -> {updated}; add_tag {tag_id} -> {tagged}; remove_tag {tag_id} -> {untagged}.
 * Ids that are not the workspace's are ignored; a `filter.tag_id` that is not the workspace's tag is a
 * 404. A `member` may delete at most one contact at a time
 * (issue 10 roles): deleting a filter's result or several ids needs owner or admin.
 * Each operation is one set-based statement ("select all matching" can cover a million rows); updates
 * and deletes lock their contacts in the contacts' one lock order (crm.queries CONTACT_LOCK_ORDER, the
 * upserts' order), and a statement aborted by a deadlock anyway is run again (retryOnRace). add_tag
 * is also run again when a contact it read was deleted by another request before its tag link was
 * checked (the contacts foreign key refuses it; retryTagging): that contact is skipped, not a 500.
 * Webhook events (issue 15, the single-contact events' data), stored in the statement's transaction
 * (the webhooks outbox: the change and its events commit together; their delivery jobs are queued
 * after the commit) and only when an endpoint of the workspace listens (one select of its endpoints
 * otherwise; only then does the statement run in a transaction and return ids): delete ->
 * `contact.deleted` per deleted contact (ids from the delete's `returning`); update_stage, update_status -> `contact.updated` per updated contact;
 * add_tag -> `contact.updated` per contact that newly got the tag; remove_tag -> per contact that
 * lost it.
 * @throws BAD_REQUEST (missing data, unknown keys, contactIds with filter), NOT_FOUND 'Tag not found'
 *   (data.tag_id or filter.tag_id), FORBIDDEN (member bulk delete).
 */
export async function bulkOperation(
  ctx: Pick<AppContext, "db" | "jobs" | "log">,
  workspaceId: string,
  input: BulkOperationInput,
  actor: { role: WorkspaceRole },
) {
  const b = parseInput(bulkOperationSchema, input);
  if (b.operation === "delete" && (!b.contactIds || b.contactIds.length > 1))
    assertCan(actor, "bulkDeleteContacts");
  // a filter on another workspace's (or no) tag is a 404, as a saved segment's and an audience's
  if (b.filter?.tag_id !== undefined) await assertTagOfWorkspace(ctx, workspaceId, b.filter.tag_id);
  const target = b.contactIds
    ? contactIdsWhere(workspaceId, b.contactIds)
    : contactWhereExcept(workspaceId, b.filter ?? {}, b.excludeIds);
  const listens = async (type: "contact.deleted" | "contact.updated") =>
    (await subscribedWebhookTypes(ctx, workspaceId, [type])).has(type);
  const emitCtx = (db: DbOrTx) => ({ db, log: ctx.log });
  /** `write` and the events it stores: one transaction (run again as a whole on a deadlock); events queued after the commit */
  const withEvents = async <T extends { emitted: WebhookEmit }>(
    retry: <R>(work: () => Promise<R>) => Promise<R>,
    write: (tx: DbOrTx) => Promise<T>,
  ): Promise<T> => {
    const r = await retry(() => ctx.db.transaction((tx) => write(tx)));
    await queueWebhookDeliveries(ctx, r.emitted);
    return r;
  };
  switch (b.operation) {
    case "delete": {
      if (!(await listens("contact.deleted")))
        return { deleted: await retryOnRace(() => deleteContactsWhere(ctx.db, target)) };
      const { ids } = await withEvents(retryOnRace, async (tx) => {
        const ids = await deleteContactsWhereReturningIds(tx, target);
        return { ids, emitted: await emitContactsDeleted(emitCtx(tx), workspaceId, ids) };
      });
      return { deleted: ids.length };
    }
    case "update_stage":
    case "update_status": {
      const column = b.operation === "update_stage" ? "lifecycle_stage" : "lead_status";
      const value = b.operation === "update_stage" ? b.data?.lifecycle_stage : b.data?.lead_status;
      if (!value) throw new AppError("BAD_REQUEST", `data.${column} is required`);
      if (!(await listens("contact.updated")))
        return { updated: await retryOnRace(() => setContactsColumnWhere(ctx.db, target, column, value)) };
      const { ids } = await withEvents(retryOnRace, async (tx) => {
        const ids = await setContactsColumnWhereReturningIds(tx, target, column, value);
        return { ids, emitted: await emitContactEvents(emitCtx(tx), workspaceId, "contact.updated", ids) };
      });
      return { updated: ids.length };
    }
    case "add_tag":
    case "remove_tag": {
      const tagId = b.data?.tag_id;
      if (!tagId) throw new AppError("BAD_REQUEST", "data.tag_id is required");
      await assertTagOfWorkspace(ctx, workspaceId, tagId);
      const events = await listens("contact.updated");
      if (b.operation === "remove_tag") {
        if (!events)
          return { untagged: (await retryOnRace(() => untagContactsWhere(ctx.db, target, tagId))).length };
        const { ids } = await withEvents(retryOnRace, async (tx) => {
          const ids = await untagContactsWhere(tx, target, tagId);
          return { ids, emitted: await emitContactEvents(emitCtx(tx), workspaceId, "contact.updated", ids) };
        });
        return { untagged: ids.length };
      }
      // contacts already carrying the tag count as tagged
      // a contact deleted meanwhile (after the statement read it, before its link was checked) fails
      // the insert on the contacts foreign key: the tagging runs again without it (retryTagging)
      if (!events) return { tagged: await retryTagging(() => tagContactsWhere(ctx.db, target, tagId)) };
      const { r } = await withEvents(retryTagging, async (tx) => {
        const r = await tagContactsWhereReturningIds(tx, target, tagId);
        return { r, emitted: await emitContactEvents(emitCtx(tx), workspaceId, "contact.updated", r.tagged) };
      });
      return { tagged: r.matched };
    }
  }
}
