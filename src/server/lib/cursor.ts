import { z } from "zod";
import { AppError } from "./errors";
import { findUnstorableText } from "./nul";

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
 * The decoded key is checked as a whole first: text in it holding a NUL or a lone UTF-16 surrogate
 * (which Postgres cannot take) is refused here, since the request-wide check only sees the cursor's
 * base64 form.
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
  const r = findUnstorableText(raw) ? null : schema.safeParse(raw);
  if (!r?.success) throw invalidCursor();
  return r.data;
}

const invalidCursor = () => new AppError("BAD_REQUEST", "cursor is not valid", { param: "cursor" });

const PG_TIMESTAMP = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.\d{1,6})?([+-])(\d\d)(?::(\d\d))?$/;

/**
 * Whether `s` is a timestamp Postgres prints for `timestamptz::text` and reads back as the same
 * instant: a real calendar day of a year 1..9999 (no 30 February, no month 13), a time of day
 * 00:00:00..23:59:59 (fraction up to microseconds), and a UTC offset of at most ±15:59 (Postgres's
 * limit; its text output never carries more). The digits-only shape alone let `2026-13-45
 * 25:61:61+00` and `+99` offsets through to Postgres, which refused them with a 500.
 */
export function isPgTimestampText(s: string): boolean {
  const m = PG_TIMESTAMP.exec(s);
  if (!m) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, , offH = 0, offM = 0] = m
    .slice(1)
    .map((x) => (x === undefined ? 0 : Number(x)));
  if (year < 1 || hour > 23 || minute > 59 || second > 59 || offH > 15 || offM > 59) return false;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // rolls 30 February over to March: caught below
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** A Postgres `timestamptz::text` value, e.g. `2026-03-12 09:41:07.123456+00` (see isPgTimestampText). */
export const pgTimestampText = z.string().max(40).refine(isPgTimestampText);
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
