/**
 * JSON text made elsewhere (crm.contact-json's contactJsonWriter, or an earlier JSON.stringify) that a
 * response embeds as it is, without parsing and serialising it again. `T` records the shape the text
 * holds, so callers and the OpenAPI schema stay typed. Build one only from trusted serialisers
 * (contactJsonWriter, JSON.stringify): the text is not checked.
 */
export class RawJson<T = unknown> {
  declare readonly shape?: T;
  constructor(readonly text: string) {}
}

/** A JSON array of items that are each JSON text already (e.g. contactJsonWriter's rows). */
export function rawJsonArray<T>(items: string[]): RawJson<T[]> {
  return new RawJson<T[]>(`[${items.join(",")}]`);
}

/**
 * The JSON text of a response object whose top-level values may be RawJson (embedded as they are)
 * or anything JSON.stringify takes (undefined values are left out, as JSON.stringify does).
 * E.g. `jsonWithRaw({object: "list", data: new RawJson("[1,2]")})` is `{"object":"list","data":[1,2]}`.
 */
export function jsonWithRaw(obj: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${v instanceof RawJson ? v.text : JSON.stringify(v)}`);
  }
  return `{${parts.join(",")}}`;
}
