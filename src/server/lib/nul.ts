/**
 * Whether `value` (a parsed JSON body, a query or params object) holds a string with a NUL
 * character (U+0000) anywhere, in a key or a value. Postgres text and jsonb cannot store NUL, so
 * such input would otherwise fail deep inside a query. Walks iteratively (no recursion limit for
 * deeply nested bodies).
 */
export function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (v.includes("\u0000")) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v && typeof v === "object" && !Buffer.isBuffer(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes("\u0000")) return true;
        stack.push(x);
      }
    }
  }
  return false;
}
