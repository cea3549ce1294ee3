import type { AppContext } from "../../context";
import type { DbOrTx } from "../../db/client";
import type { Contact } from "../../db/schema";
import {
  emitWebhookEvents,
  mergeWebhookEmits,
  NO_WEBHOOK_EMIT,
  queueWebhookDeliveries,
  subscribedWebhookTypes,
  type WebhookEmit,
} from "../webhooks/webhooks.service";
import { toContactJson } from "./crm.contact-json";
import { selectContactsByIds } from "./crm.queries";

// The contact.* outbound webhook events (issue 15) of the paths that write many contacts at once:
// the JSON import and the v1 bulk upsert, the CSV file import, bulk operations and campaign CSV
// recipients. Each event carries the same data as the single-contact events of crm.contacts.ts:
// the contact's public JSON (toContactJson), or `{id, deleted: true}` for a deletion. A path asks
// once which types anyone listens to (webhooks.service subscribedWebhookTypes: one select of the
// workspace's endpoints) and only then pays for returning ids and reading rows back. The events are
// stored in the write's own transaction (`db` below: the webhooks outbox, so a change and its events
// commit together); the caller queues the returned WebhookEmit after the commit
// (webhooks.service queueWebhookDeliveries).

export type ContactEventCtx = Pick<AppContext, "db" | "jobs"> & {
  log?: { warn: (o: object, m: string) => void };
};
/** What storing contact events needs: the write's transaction and optionally a logger. */
export type ContactEmitCtx = { db: DbOrTx; log?: { warn: (o: object, m: string) => void } };
export type ContactChangeType = "contact.created" | "contact.updated";

/** Contacts read back per statement (and events emitted per emitWebhookEvents call). */
const READ_BACK_CHUNK = 1000;

/**
 * Stores `type` for contacts already in hand (a write's `returning`), in the write's transaction
 * `ctx.db`: one event per contact with toContactJson as data, in the given order. Never throws for
 * a webhook problem (logged). Returns what to queue after the commit.
 */
export async function emitContactRows(
  ctx: ContactEmitCtx,
  workspaceId: string,
  type: ContactChangeType,
  rows: Contact[],
): Promise<WebhookEmit> {
  return rows.length ? emitWebhookEvents(ctx, workspaceId, type, rows.map(toContactJson)) : NO_WEBHOOK_EMIT;
}

/**
 * Stores `type` for the contacts `ids` of the workspace in the transaction `ctx.db` that wrote them,
 * after the write: reads them back READ_BACK_CHUNK at a time (ids no longer there are left out) and
 * stores one event per contact (toContactJson), by ascending id within a chunk. Call only when
 * someone listens (webhooks.service subscribedWebhookTypes): the read-back is the cost. Never throws:
 * each read-back runs in a savepoint, so a failed one is logged (its chunk's events and the later
 * chunks' are not stored) without aborting the caller's transaction: the write it reports on is not
 * undone or failed. Returns what to queue after the commit.
 */
export async function emitContactEvents(
  ctx: ContactEmitCtx,
  workspaceId: string,
  type: ContactChangeType,
  ids: readonly number[],
): Promise<WebhookEmit> {
  const emits: WebhookEmit[] = [];
  for (let i = 0; i < ids.length; i += READ_BACK_CHUNK) {
    let rows: Contact[];
    try {
      rows = await ctx.db.transaction((sp) =>
        selectContactsByIds(sp, workspaceId, ids.slice(i, i + READ_BACK_CHUNK)),
      );
    } catch (err) {
      ctx.log?.warn({ err, workspaceId, type }, "contacts not read back for webhook events");
      break;
    }
    rows.sort((a, b) => a.id - b.id);
    emits.push(await emitContactRows(ctx, workspaceId, type, rows));
  }
  return mergeWebhookEmits(...emits);
}

/**
 * Stores `contact.deleted` with `{id, deleted: true}` (the single delete's data) for each of `ids`,
 * captured by the delete's `returning`, in the delete's transaction `ctx.db`. Never throws for a
 * webhook problem (logged). Returns what to queue after the commit.
 */
export async function emitContactsDeleted(
  ctx: ContactEmitCtx,
  workspaceId: string,
  ids: readonly number[],
): Promise<WebhookEmit> {
  if (!ids.length) return NO_WEBHOOK_EMIT;
  return emitWebhookEvents(
    ctx,
    workspaceId,
    "contact.deleted",
    ids.map((id) => ({ id, deleted: true })),
  );
}

/**
 * What an import (ContactImporter's `events`, importRows) does with each batch it writes: the
 * contact.* webhook events as a transactional outbox (issue 15). A batch is written on a reserved
 * connection in a transaction run by hand (`begin` ... `commit`), so `stored` gets a drizzle handle
 * on that open transaction (db/reserved openTransactionDb; its `.transaction()` is a savepoint).
 */
export interface ImportEventListener {
  /**
   * Runs in the batch's transaction, after its upsert and before its commit, with the ids of the
   * contacts the batch created and updated (skipped ones are in neither): what it stores commits or
   * rolls back with the batch (a batch run again after a deadlock runs this again). Never throws for
   * a webhook problem (a savepoint rolled back and logged; the batch commits). Returns what to queue.
   */
  stored(db: DbOrTx, ids: { created: number[]; updated: number[] }): Promise<WebhookEmit>;
  /** After the batch committed: queues what `stored` returned. Never throws (the sweep covers it). */
  committed(emitted: WebhookEmit): Promise<void>;
}

/**
 * The ImportEventListener of an import: stores `contact.created` for the contacts each batch created
 * and `contact.updated` for those it updated, in the batch's transaction, and queues their deliveries
 * after its commit (a process that stops in between leaves them to the stranded-delivery sweep). Or
 * undefined when no endpoint of the workspace subscribes to either: then the import returns no ids,
 * reads nothing back and runs nothing more per batch. Costs one select (webhooks.service
 * subscribedWebhookTypes), made once per import.
 */
export async function importEventListener(
  ctx: ContactEventCtx,
  workspaceId: string,
): Promise<ImportEventListener | undefined> {
  const listens = await subscribedWebhookTypes(ctx, workspaceId, ["contact.created", "contact.updated"]);
  if (listens.size === 0) return undefined;
  return {
    async stored(db, { created, updated }) {
      const ectx: ContactEmitCtx = { db, log: ctx.log };
      return mergeWebhookEmits(
        listens.has("contact.created")
          ? await emitContactEvents(ectx, workspaceId, "contact.created", created)
          : NO_WEBHOOK_EMIT,
        listens.has("contact.updated")
          ? await emitContactEvents(ectx, workspaceId, "contact.updated", updated)
          : NO_WEBHOOK_EMIT,
      );
    },
    committed: (emitted) => queueWebhookDeliveries(ctx, emitted),
  };
}
