/**
 * JSON made elsewhere (crm.contact-json's contactJsonWriter, or an earlier JSON.stringify) that a
 * response embeds as it is, without parsing and serialising it again: UTF-8 bytes or text, in one
 * piece or as consecutive chunks (copied together once, into the response). `T` records the shape it
 * holds, so callers and the OpenAPI schema stay typed. Build one only from trusted serialisers
 * (contactJsonWriter, JSON.stringify): the JSON is not checked.
 */
export class RawJson<T = unknown> {
  declare readonly shape?: T;
  readonly chunks: readonly (Buffer | string)[];
  constructor(json: Buffer | string | readonly (Buffer | string)[]) {
    this.chunks = Array.isArray(json) ? json : [json as Buffer | string];
  }
  /** The JSON as text. */
  get text(): string {
    return this.chunks.map((c) => (typeof c === "string" ? c : c.toString("utf8"))).join("");
  }
}

const toBytes = (c: Buffer | string) => (typeof c === "string" ? Buffer.from(c, "utf8") : c);
const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/** A JSON array of items that are each JSON already, as bytes or text (e.g. contactJsonWriter's rows). */
export function rawJsonArray<T>(items: (Buffer | string)[]): RawJson<T[]> {
  const chunks: (Buffer | string)[] = [OPEN];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) chunks.push(COMMA);
    chunks.push(items[i]!);
  }
  chunks.push(CLOSE);
  return new RawJson<T[]>(chunks);
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
      parts.push(Buffer.from(text, "utf8"));
      for (const c of v.chunks) parts.push(toBytes(c));
      text = "";
    } else text += JSON.stringify(v);
  }
  parts.push(Buffer.from(`${text}}`, "utf8"));
  return Buffer.concat(parts);
}
