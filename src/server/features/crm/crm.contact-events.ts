import type { AppContext } from "../../context";
import type { Contact } from "../../db/schema";
import { emitWebhookEvents, subscribedWebhookTypes } from "../webhooks/webhooks.service";
import { toContactJson } from "./crm.contact-json";
import { selectContactsByIds } from "./crm.queries";

// The contact.* outbound webhook events (issue 15) of the paths that write many contacts at once:
// the JSON import and the v1 bulk upsert, the CSV file import, bulk operations and campaign CSV
// recipients. Each event carries the same data as the single-contact events of crm.contacts.ts:
// the contact's public JSON (toContactJson), or `{id, deleted: true}` for a deletion. A path asks
// once which types anyone listens to (webhooks.service subscribedWebhookTypes: one select of the
// workspace's endpoints) and only then pays for returning ids and reading rows back; it emits after
// its write committed.

export type ContactEventCtx = Pick<AppContext, "db" | "jobs"> & {
  log?: { warn: (o: object, m: string) => void };
};
export type ContactChangeType = "contact.created" | "contact.updated";

/** Contacts read back per statement (and events emitted per emitWebhookEvents call). */
const READ_BACK_CHUNK = 1000;

/**
 * Emits `type` for contacts already in hand (a write's `returning`), one event per contact with
 * toContactJson as data, in the given order. Never throws for a webhook problem (logged).
 */
export async function emitContactRows(
  ctx: ContactEventCtx,
  workspaceId: string,
  type: ContactChangeType,
  rows: Contact[],
): Promise<void> {
  if (rows.length) await emitWebhookEvents(ctx, workspaceId, type, rows.map(toContactJson));
}

/**
 * Emits `type` for the contacts `ids` of the workspace after a write that committed: reads them
 * back READ_BACK_CHUNK at a time (ids no longer there are left out) and emits one event per contact
 * (toContactJson), by ascending id within a chunk. Call only when someone listens
 * (webhooks.service subscribedWebhookTypes): the read-back is the cost. Never throws: a failed
 * read is logged, so the write it reports on is not undone or failed.
 */
export async function emitContactEvents(
  ctx: ContactEventCtx,
  workspaceId: string,
  type: ContactChangeType,
  ids: readonly number[],
): Promise<void> {
  for (let i = 0; i < ids.length; i += READ_BACK_CHUNK) {
    let rows: Contact[];
    try {
      rows = await selectContactsByIds(ctx.db, workspaceId, ids.slice(i, i + READ_BACK_CHUNK));
    } catch (err) {
      ctx.log?.warn({ err, workspaceId, type }, "contacts not read back for webhook events");
      return;
    }
    rows.sort((a, b) => a.id - b.id);
    await emitContactRows(ctx, workspaceId, type, rows);
  }
}

/**
 * Emits `contact.deleted` with `{id, deleted: true}` (the single delete's data) for each of `ids`,
 * captured by the delete's `returning`. Never throws for a webhook problem (logged).
 */
export async function emitContactsDeleted(
  ctx: ContactEventCtx,
  workspaceId: string,
  ids: readonly number[],
): Promise<void> {
  if (ids.length)
    await emitWebhookEvents(
      ctx,
      workspaceId,
      "contact.deleted",
      ids.map((id) => ({ id, deleted: true })),
    );
}

/**
 * The `onWritten` listener of an import (ContactImporter, importRows) that emits `contact.created`
 * for the contacts each batch created and `contact.updated` for those it updated, or undefined
 * when no endpoint of the workspace subscribes to either: then the import returns no ids and reads
 * nothing back. Costs one select (webhooks.service subscribedWebhookTypes), made once per import.
 */
export async function importEventListener(
  ctx: ContactEventCtx,
  workspaceId: string,
): Promise<((ids: { created: number[]; updated: number[] }) => Promise<void>) | undefined> {
  const listens = await subscribedWebhookTypes(ctx, workspaceId, ["contact.created", "contact.updated"]);
  if (listens.size === 0) return undefined;
  return async ({ created, updated }) => {
    if (listens.has("contact.created")) await emitContactEvents(ctx, workspaceId, "contact.created", created);
    if (listens.has("contact.updated")) await emitContactEvents(ctx, workspaceId, "contact.updated", updated);
  };
}
