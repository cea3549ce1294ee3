import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { demoOptOuts, demoRequests } from "../../db/schema";

type DemoRequest = typeof demoRequests.$inferSelect;

/** The demo feature's SQL (landing-page demo requests). */

/** Records a demo request; returns its id. */
export async function insertDemoRequest(
  db: DbOrTx,
  row: { name: string; phone: string | null; email: string | null; ip: string },
): Promise<number> {
  const [created] = await db.insert(demoRequests).values(row).returning({ id: demoRequests.id });
  return created.id;
}

/** One demo request by id, or undefined. */
export async function getDemoRequest(db: DbOrTx, id: number): Promise<DemoRequest | undefined> {
  const [row] = await db.select().from(demoRequests).where(eq(demoRequests.id, id));
  return row;
}

/** Marks a demo request sent (its demo email, SMS and call went out). */
export async function markDemoRequestSent(db: DbOrTx, id: number): Promise<void> {
  await db.update(demoRequests).set({ status: "sent" }).where(eq(demoRequests.id, id));
}

/** Records that `phone` (E.164) pressed the opt-out key on a demo call (idempotent). */
export async function insertDemoOptOut(db: DbOrTx, phone: string): Promise<void> {
  await db.insert(demoOptOuts).values({ phone }).onConflictDoNothing();
}

/** Which of `phones` opted out of the demo's calls by keypress. */
export async function selectDemoOptOuts(db: DbOrTx, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await db
    .select({ phone: demoOptOuts.phone })
    .from(demoOptOuts)
    .where(inArray(demoOptOuts.phone, phones));
  return new Set(rows.map((r) => r.phone));
}

/** True when a demo request to `phone` (E.164) was sent (its text and call went out, or were dropped). */
export async function selectDemoSentTo(db: DbOrTx, phone: string): Promise<boolean> {
  const rows = await db
    .select({ id: demoRequests.id })
    .from(demoRequests)
    .where(and(eq(demoRequests.phone, phone), eq(demoRequests.status, "sent")))
    .limit(1);
  return rows.length > 0;
}
