/**
 * JSON made elsewhere (crm.contact-json's contactJsonWriter, or an earlier JSON.stringify) that a
 * response embeds as it is, without parsing and serialising it again: UTF-8 bytes or text. `T`
 * records the shape it holds, so callers and the OpenAPI schema stay typed. Build one only from
 * trusted serialisers (contactJsonWriter, JSON.stringify): the JSON is not checked.
 */
export class RawJson<T = unknown> {
  declare readonly shape?: T;
  constructor(readonly json: Buffer | string) {}
  /** The JSON as text. */
  get text(): string {
    return typeof this.json === "string" ? this.json : this.json.toString("utf8");
  }
  /** The JSON as UTF-8 bytes. */
  get bytes(): Buffer {
    return typeof this.json === "string" ? Buffer.from(this.json, "utf8") : this.json;
  }
}

const COMMA = Buffer.from(",");

/** A JSON array of items that are each JSON already, as bytes or text (e.g. contactJsonWriter's rows). */
export function rawJsonArray<T>(items: (Buffer | string)[]): RawJson<T[]> {
  const parts: Buffer[] = [Buffer.from("[")];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(COMMA);
    const item = items[i]!;
    parts.push(typeof item === "string" ? Buffer.from(item, "utf8") : item);
  }
  parts.push(Buffer.from("]"));
  return new RawJson<T[]>(Buffer.concat(parts));
}

/**
 * The UTF-8 JSON of a response object whose top-level values may be RawJson (embedded as they are)
 * or anything JSON.stringify takes (undefined values are left out, as JSON.stringify does).
 * E.g. `jsonWithRaw({object: "list", data: new RawJson("[1,2]")})` is the bytes of
 * `{"object":"list","data":[1,2]}`.
 */
export function jsonWithRaw(obj: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [];
  let text = "{";
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    text += `${text.length > 1 || parts.length > 0 ? "," : ""}${JSON.stringify(k)}:`;
    if (v instanceof RawJson) {
      parts.push(Buffer.from(text, "utf8"), v.bytes);
      text = "";
    } else text += JSON.stringify(v);
  }
  parts.push(Buffer.from(`${text}}`, "utf8"));
  return Buffer.concat(parts);
}
