import { z } from "zod";
import { AppError } from "./errors";

/**
 * Keyset cursors of the public API's lists (issue 15): the sort key of a page's last row, as
 * base64url of a JSON array, opaque to callers. Timestamps go in as Postgres text (`created_at::text`,
 * microseconds and offset kept), never through a JS Date, which would cut them to milliseconds and
 * skip or repeat rows created in the same millisecond.
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/**
 * The sort key in `cursor` (undefined when there is none), checked against `schema` (a tuple).
 * @throws AppError BAD_REQUEST 'cursor is not valid' (param `cursor`) for anything `encodeCursor`
 *   did not make with that shape.
 */
export function decodeCursor<T>(cursor: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (!cursor) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    raw = undefined;
  }
  const r = schema.safeParse(raw);
  if (!r.success) throw new AppError("BAD_REQUEST", "cursor is not valid", { param: "cursor" });
  return r.data;
}

/** A Postgres `timestamptz::text` value, e.g. `2026-03-12 09:41:07.123456+00`. */
export const pgTimestampText = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?[+-]\d\d(?::\d\d)?$/);
/** A positive bigint id as a JS number. */
export const cursorId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * One page of a keyset list after `cursor`: decodes it against `schema` (undefined on the first page),
 * fetches `limit + 1` rows after that key with `fetch`, and returns keysetPage's `{rows, nextCursor}`
 * with `keyOf` giving a row's sort key. @throws AppError BAD_REQUEST 'cursor is not valid' (before
 * `fetch` runs).
 */
export async function cursorPage<K, R>(
  cursor: string | undefined,
  schema: z.ZodType<K>,
  limit: number,
  fetch: (n: number, after: K | undefined) => Promise<R[]>,
  keyOf: (last: R) => readonly (string | number)[],
): Promise<{ rows: R[]; nextCursor: string | null }> {
  const after = decodeCursor(cursor, schema);
  return keysetPage(await fetch(limit + 1, after), limit, keyOf);
}

/** A page of a keyset list: `rows` (at most `limit`) from `limit + 1` fetched, and the next cursor. */
export function keysetPage<R>(
  fetched: R[],
  limit: number,
  keyOf: (last: R) => readonly (string | number)[],
): { rows: R[]; nextCursor: string | null } {
  const rows = fetched.slice(0, limit);
  const last = rows[rows.length - 1];
  return { rows, nextCursor: fetched.length > limit && last ? encodeCursor(keyOf(last)) : null };
}
