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

/**
 * The file import `importId` of `workspaceId` as a contact's page names it: `{createdBy}` (who
 * imported the file, null once that account is deleted), or undefined when there is no such file
 * import (a contact's import_id may name a JSON import).
 */
export async function selectFileImportOf(
  db: DbOrTx,
  workspaceId: string,
  importId: string,
): Promise<{ createdBy: string | null } | undefined> {
  const [row] = await db
    .select({ createdBy: contactImports.createdBy })
    .from(contactImports)
    .where(and(eq(contactImports.workspaceId, workspaceId), eq(contactImports.id, importId)));
  return row;
}

/** The ids of every import of `workspaceId` (its deletion removes their stored files). */
export async function selectWorkspaceImportIds(db: DbOrTx, workspaceId: string): Promise<string[]> {
  const rows = await db
    .select({ id: contactImports.id })
    .from(contactImports)
    .where(eq(contactImports.workspaceId, workspaceId));
  return rows.map((r) => r.id);
}
