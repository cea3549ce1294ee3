import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { type ContactImport, contactImports } from "../../db/schema";

// SQL of contact_imports rows (an import's registration and progress). Rules: crm.imports.ts; the
// streaming import itself writes through crm.import.ts.

/** Registers an import and returns its row. */
export async function insertContactImport(
  db: DbOrTx,
  values: typeof contactImports.$inferInsert,
): Promise<ContactImport | undefined> {
  const [row] = await db.insert(contactImports).values(values).returning();
  return row;
}

/** One import of `workspaceId`, or undefined. */
export async function selectContactImport(
  db: DbOrTx,
  workspaceId: string,
  importId: string,
): Promise<ContactImport | undefined> {
  const [row] = await db
    .select()
    .from(contactImports)
    .where(and(eq(contactImports.workspaceId, workspaceId), eq(contactImports.id, importId)));
  return row;
}

/** True when `importId` is a file import of `workspaceId` (a contact's import_id may name a JSON import). */
export async function contactImportExists(
  db: DbOrTx,
  workspaceId: string,
  importId: string,
): Promise<boolean> {
  const rows = await db
    .select({ id: contactImports.id })
    .from(contactImports)
    .where(and(eq(contactImports.workspaceId, workspaceId), eq(contactImports.id, importId)));
  return rows.length > 0;
}

/** The ids of every import of `workspaceId` (its deletion removes their stored files). */
export async function selectWorkspaceImportIds(db: DbOrTx, workspaceId: string): Promise<string[]> {
  const rows = await db
    .select({ id: contactImports.id })
    .from(contactImports)
    .where(eq(contactImports.workspaceId, workspaceId));
  return rows.map((r) => r.id);
}
