import { AppError } from "../../lib/errors";

export { type ColumnMapping, IMPORT_FIELDS, type ImportField, matchHeaders } from "./crm.headers";

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
