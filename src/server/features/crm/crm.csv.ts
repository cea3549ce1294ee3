import { AppError } from "../../lib/errors";

/** Contact fields an import column can map to (spec section 3: Contact), plus `name` (split in two). */
export const IMPORT_FIELDS = [
  "first_name",
  "last_name",
  "name",
  "email",
  "phone",
  "mobile",
  "company",
  "job_title",
  "website",
  "street_address",
  "city",
  "state",
  "postal_code",
  "country",
  "lifecycle_stage",
  "lead_status",
  "lead_source",
  "lead_score",
  "email_opt_in",
  "sms_opt_in",
  "call_opt_in",
  "preferred_language",
  "timezone",
  "linkedin_url",
  "twitter_handle",
  "facebook_url",
  "instagram_handle",
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];
export type ColumnMapping = Partial<Record<ImportField, number>>;

/**
 * Header rules, first match wins per column and per field. The spec's rules come first
 * (section 5, Import: case-insensitive containment of first+name, last+name, email, phone/mobile,
 * company, city, state), then vendor export headers (Google, Outlook, Mailchimp, HubSpot) for the
 * other fields. `all` = every word must be contained; `not` = none of these may be.
 */
const RULES: { field: ImportField; all: string[]; not?: string[] }[] = [
  { field: "first_name", all: ["first", "name"] },
  { field: "last_name", all: ["last", "name"] },
  { field: "email", all: ["e-mail"], not: ["type", "opt", "label"] },
  { field: "email", all: ["email"], not: ["type", "opt", "label"] },
  { field: "mobile", all: ["mobile"], not: ["type", "opt", "label"] },
  { field: "phone", all: ["phone"], not: ["type", "opt", "label", "mobile"] },
  { field: "company", all: ["company"] },
  { field: "company", all: ["organization"], not: ["title", "type"] },
  {
    field: "company",
    all: ["business"],
    not: ["phone", "type", "address", "street", "city", "state", "postal", "zip", "country"],
  },
  { field: "lifecycle_stage", all: ["lifecycle"] },
  { field: "lead_status", all: ["lead", "status"] },
  { field: "lead_source", all: ["source"] },
  { field: "lead_score", all: ["score"] },
  { field: "email_opt_in", all: ["email", "opt"] },
  { field: "sms_opt_in", all: ["sms", "opt"] },
  { field: "call_opt_in", all: ["call", "opt"] },
  { field: "job_title", all: ["job"] },
  { field: "job_title", all: ["title"] },
  { field: "job_title", all: ["position"] },
  { field: "website", all: ["website"] },
  { field: "website", all: ["web page"] },
  { field: "linkedin_url", all: ["linkedin"] },
  { field: "twitter_handle", all: ["twitter"] },
  { field: "facebook_url", all: ["facebook"] },
  { field: "instagram_handle", all: ["instagram"] },
  { field: "street_address", all: ["street"] },
  { field: "street_address", all: ["address"], not: ["email", "e-mail", "ip", "web"] },
  { field: "city", all: ["city"] },
  { field: "state", all: ["state"] },
  { field: "state", all: ["region"] },
  { field: "state", all: ["province"] },
  { field: "postal_code", all: ["postal"] },
  { field: "postal_code", all: ["zip"] },
  { field: "country", all: ["country"] },
  { field: "preferred_language", all: ["language"] },
  { field: "timezone", all: ["time zone"] },
  { field: "timezone", all: ["timezone"] },
  {
    field: "name",
    all: ["name"],
    not: ["first", "last", "middle", "company", "user", "nick", "file", "display name", "phonetic"],
  },
  { field: "name", all: ["display name"] },
];

/**
 * Pre-fills the column mapping from a header row (case-insensitive containment, spec section 5,
 * extended to every contact field). Returns field -> column index; each column is used once.
 */
export function matchHeaders(headers: string[]): ColumnMapping {
  const lower = headers.map((h) =>
    h
      .replace(/^\uFEFF/, "")
      .trim()
      .toLowerCase(),
  );
  const mapping: ColumnMapping = {};
  const used = new Set<number>();
  for (const rule of RULES) {
    if (mapping[rule.field] !== undefined) continue;
    const idx = lower.findIndex(
      (h, i) =>
        !used.has(i) && rule.all.every((w) => h.includes(w)) && !(rule.not ?? []).some((w) => h.includes(w)),
    );
    if (idx >= 0) {
      mapping[rule.field] = idx;
      used.add(idx);
    }
  }
  // "Name" split into first/last only when there is no first-name column
  if (mapping.first_name !== undefined) delete mapping.name;
  return mapping;
}

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/**
 * Detects the text encoding from the first bytes: a BOM (UTF-8, UTF-16 LE/BE), UTF-16 without a BOM
 * (NUL in every other byte), valid UTF-8, else Latin-1 (read as windows-1252, its superset).
 * @throws AppError UNSUPPORTED_MEDIA_TYPE when the bytes are binary, not text.
 */
export function sniffEncoding(head: Buffer): { encoding: TextEncodingName; bomLength: number } {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf)
    return { encoding: "utf-8", bomLength: 3 };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { encoding: "utf-16le", bomLength: 2 };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { encoding: "utf-16be", bomLength: 2 };
  const sample = head.subarray(0, 4096);
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < sample.length; i++) if (sample[i] === 0) i % 2 === 0 ? evenNul++ : oddNul++;
  const half = sample.length / 2;
  if (half > 4 && oddNul > half * 0.6 && evenNul === 0) return { encoding: "utf-16le", bomLength: 0 };
  if (half > 4 && evenNul > half * 0.6 && oddNul === 0) return { encoding: "utf-16be", bomLength: 0 };
  if (evenNul + oddNul > 0) throw notCsv();
  // control characters other than tab/CR/LF/FF mean binary
  let control = 0;
  for (const b of sample) if (b < 0x20 && b !== 9 && b !== 10 && b !== 13 && b !== 12) control++;
  if (control > sample.length * 0.01 + 1) throw notCsv();
  // trim a possibly cut multi-byte sequence at the end of the sample before validating
  let end = head.length;
  for (let k = 1; k <= 3 && end - k >= 0; k++) {
    const b = head[end - k] as number;
    if ((b & 0xc0) === 0xc0) {
      end -= k;
      break;
    }
    if ((b & 0x80) === 0) break;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, end));
    return { encoding: "utf-8", bomLength: 0 };
  } catch {
    return { encoding: "windows-1252", bomLength: 0 };
  }
}

export function notCsv() {
  return new AppError(
    "UNSUPPORTED_MEDIA_TYPE",
    "This file is not a CSV text file. Please upload a .csv file.",
  );
}

/** Decodes a whole buffer (small files, tests) with the sniffed encoding. */
export function decodeCsvBuffer(buf: Buffer): string {
  const { encoding, bomLength } = sniffEncoding(buf.subarray(0, 65536));
  return decodeWithEncoding(encoding, buf.subarray(bomLength));
}

export function decodeWithEncoding(encoding: TextEncodingName, buf: Buffer): string {
  if (encoding === "utf-16be") {
    const swapped = Buffer.from(buf);
    swapped.swap16();
    return new TextDecoder("utf-16le").decode(swapped);
  }
  return new TextDecoder(encoding).decode(buf);
}

/** A streaming decoder for the sniffed encoding (UTF-16 BE is byte-swapped to LE first). */
export function createDecoder(encoding: TextEncodingName): (chunk: Buffer | null) => string {
  const dec = new TextDecoder(encoding === "utf-16be" ? "utf-16le" : encoding);
  let carry: Buffer | null = null;
  return (chunk) => {
    if (chunk === null) return dec.decode();
    if (encoding !== "utf-16be") return dec.decode(chunk, { stream: true });
    let b = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = null;
    if (b.length % 2 === 1) {
      carry = b.subarray(b.length - 1);
      b = b.subarray(0, b.length - 1);
    }
    const swapped = Buffer.from(b);
    swapped.swap16();
    return dec.decode(swapped, { stream: true });
  };
}

/**
 * Neutralises spreadsheet formula injection (OWASP "CSV Injection"): a cell starting with
 * = + - @ TAB or CR gets a leading apostrophe so spreadsheet apps show it as text.
 */
export function safeCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const s = typeof value === "string" ? value : String(value);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}
