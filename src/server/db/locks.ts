import { sql } from "drizzle-orm";
import type { DbOrTx } from "./client";

/**
 * The classes of the app's transaction-scoped advisory locks (`pg_advisory_xact_lock(class, key)`),
 * in one place so no two features share a class by accident. Each is the first argument of the lock;
 * the second is `hashtext` of the key the feature locks (a workspace id, a contact id, ...).
 */
export const ADVISORY_LOCK = {
  /** creating contacts in a workspace with a contact limit ("CRM\x01"; crm.queries) */
  contactCreation: 1129467137,
  /** a campaign launch fingerprint ("CRM\x02"; campaigns.queries) */
  launchFingerprint: 1129467138,
  /** creating a tag ("CRM\x03"; crm.tags.queries) */
  tagCreation: 1129467139,
  /** creating a saved segment ("CRM\x04"; crm.tags.queries) */
  segmentCreation: 1129467140,
  /** adding a note to a contact ("CRM\x05"; crm.notes.queries) */
  noteCreation: 1129467141,
  /** starting a workspace's avatar video ("AVA\x01"; avatar.queries) */
  avatarStart: 1096171777,
  /** creating an API key (api.queries) */
  apiKeyCreation: 1095778635,
  /** creating a webhook endpoint (webhooks.queries) */
  webhookEndpointCreation: 1464813384,
  /** giving a user left without any workspace a new personal one ("WSP\x01"; workspaces.queries) */
  fallbackWorkspace: 1465077761,
  /**
   * a change of what a workspace's seats allow against how many it uses: a plan change in the local
   * billing portal, a new or resent invitation ("WSP\x02"; workspaces.queries lockSeatChanges)
   */
  seatChange: 1465077762,
  /**
   * a campaign part's check that no other recipient of the campaign reached its addresses, and its
   * reservation of the addresses its contacts moved to ("CMP\x01"; campaigns.queries reserveAddresses)
   */
  campaignAddresses: 1129140225,
} as const;

/**
 * In the transaction `tx`: waits for and takes the advisory lock (`lockClass`, hashtext(`key`)), held
 * until `tx` commits or rolls back (on the pool, outside a transaction, it is released at once). A
 * count read after it in a statement of its own sees every competing holder's committed writes.
 */
export async function advisoryXactLock(
  tx: DbOrTx,
  lockClass: (typeof ADVISORY_LOCK)[keyof typeof ADVISORY_LOCK],
  key: string,
): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${sql.raw(String(lockClass))}, hashtext(${key}::text))`);
}

/**
 * In the transaction `tx`: takes the advisory lock (`lockClass`, hashtext(`key`)) in shared mode if
 * no exclusive holder has it or waits for it (advisoryXactLock is exclusive), without waiting; held
 * until `tx` ends. Shared holders do not exclude one another. Returns whether it was taken. For a
 * caller that must not hold a pool connection while waiting.
 */
export async function tryAdvisoryXactLockShared(
  tx: DbOrTx,
  lockClass: (typeof ADVISORY_LOCK)[keyof typeof ADVISORY_LOCK],
  key: string,
): Promise<boolean> {
  const rows = await tx.execute<{ taken: boolean }>(
    sql`select pg_try_advisory_xact_lock_shared(${sql.raw(String(lockClass))}, hashtext(${key}::text)) as taken`,
  );
  return rows[0]?.taken === true;
}
