import { AppError } from "./errors";

/** A UTF-16 surrogate half without its partner (a high not followed by a low, a low not after a high). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What makes a string unstorable: a NUL character or an unpaired surrogate. */
export type UnstorableKind = "nul" | "surrogate";

/**
 * The first reason a value (a parsed JSON body, a query or params object, a tRPC input, a
 * multipart field) cannot be stored in Postgres, or null when it can. Walks strings in keys and
 * values iteratively (no recursion limit for deeply nested bodies):
 * - `"nul"`: U+0000 anywhere. Postgres `text` and `jsonb` cannot hold it (error 22021 / 22P05).
 * - `"surrogate"`: a lone UTF-16 surrogate (U+D800-U+DFFF not forming a pair). JSON may carry one
 *   (`"\ud800"`), JavaScript keeps it, and Postgres `jsonb` rejects the escape (22P02) while `text`
 *   would silently store U+FFFD instead.
 * Source: PostgreSQL docs 8.14 "JSON Types" (\u0000 and surrogate escapes) and 8.3 (NUL in text).
 */
export function findUnstorableText(value: unknown): UnstorableKind | null {
  const stack: unknown[] = [value];
  const check = (s: string): UnstorableKind | null =>
    s.includes("\u0000") ? "nul" : LONE_SURROGATE.test(s) ? "surrogate" : null;
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      const r = check(v);
      if (r) return r;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v && typeof v === "object" && !Buffer.isBuffer(v) && !(v instanceof Date)) {
      if (v instanceof Map) {
        for (const [k, x] of v) stack.push(k, x);
        continue;
      }
      if (v instanceof Set) {
        for (const x of v) stack.push(x);
        continue;
      }
      for (const [k, x] of Object.entries(v)) {
        const r = check(k);
        if (r) return r;
        stack.push(x);
      }
    }
  }
  return null;
}

/**
 * `s` with every NUL character and lone UTF-16 surrogate replaced by U+FFFD, so Postgres `text` can
 * store it: for text that comes from outside and is kept, not refused (e.g. the start of a webhook
 * receiver's response body recorded as a delivery's `last_error`).
 */
export function storableText(s: string): string {
  return s.replace(new RegExp(`\u0000|${LONE_SURROGATE.source}`, "g"), "\uFFFD");
}

/** Whether `value` holds a NUL character anywhere (see findUnstorableText). */
export function containsNul(value: unknown): boolean {
  return findUnstorableText(value) === "nul";
}

/** The 400 sentence for an unstorable character of kind `kind`. */
export function unstorableMessage(kind: UnstorableKind): string {
  return kind === "nul"
    ? "The request contains a NUL character (\\u0000), which text cannot hold. Remove it and try again."
    : "The request contains an unpaired UTF-16 surrogate (a broken character between \\uD800 and \\uDFFF). Send valid Unicode text and try again.";
}

/**
 * Throws a 400 when `value` holds a NUL character or a lone surrogate (see findUnstorableText).
 * Used by the global preHandler (JSON bodies, query, params), the tRPC input middleware and the
 * multipart routes (field values and file names).
 * @throws AppError BAD_REQUEST with a sentence naming the character.
 */
export function assertStorableText(value: unknown): void {
  const kind = findUnstorableText(value);
  if (kind) throw new AppError("BAD_REQUEST", unstorableMessage(kind));
}
