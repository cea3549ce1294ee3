import { randomBytes } from "node:crypto";
import { eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { voiceTwimlDocuments } from "../../db/schema";

/** How long a stored TwiML document stays fetchable (a queued call is answered well within it). */
const KEEP_MS = 7 * 86_400_000;

/** The path Twilio fetches a stored TwiML document from: `{path}/{id}`. */
export const TWIML_DOCUMENT_PATH = "/api/webhooks/voice/twiml";

/**
 * Stores `twiml` for Twilio to fetch by URL and returns its id (a random 160-bit token, base64url).
 * Documents older than 7 days are deleted first.
 */
export async function storeTwimlDocument(db: Db, twiml: string): Promise<string> {
  await db
    .delete(voiceTwimlDocuments)
    .where(lt(voiceTwimlDocuments.createdAt, new Date(Date.now() - KEEP_MS)));
  const id = randomBytes(20).toString("base64url");
  await db.insert(voiceTwimlDocuments).values({ id, twiml });
  return id;
}

/** A stored TwiML document by id, or null (unknown, malformed or older than 7 days). */
export async function findTwimlDocument(db: Db, id: string): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{27}$/.test(id)) return null;
  const [row] = await db.select().from(voiceTwimlDocuments).where(eq(voiceTwimlDocuments.id, id));
  if (!row || row.createdAt.getTime() < Date.now() - KEEP_MS) return null;
  return row.twiml;
}
