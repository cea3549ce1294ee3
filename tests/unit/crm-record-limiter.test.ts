import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { createRecordLimiter } from "../../src/server/features/crm/crm.import";

/** Feeds `text` to a limiter in pieces of `step` characters and returns what it lets through. */
function limit(text: string, step: number, opts = { maxField: 10, maxRow: 25 }, delimiter = ",") {
  const l = createRecordLimiter(delimiter, opts);
  let out = "";
  for (let i = 0; i < text.length; i += step) out += l.push(text.slice(i, i + step));
  return out + l.end();
}

const rows = (text: string) => Papa.parse<string[]>(text, { skipEmptyLines: "greedy", delimiter: "," }).data;

describe("createRecordLimiter", () => {
  const ok = 'a,b,c\r\n"x,y",2,"he said ""hi"""\n"multi\nline",3,4\n';

  it("passes records within the limits through unchanged, at every chunk size", () => {
    for (let step = 1; step <= ok.length; step++)
      expect(limit(ok, step, { maxField: 12, maxRow: 25 })).toBe(ok);
  });

  it("replaces an oversized field or row by one marker line, keeping every other record and the line count", () => {
    const text = `h1,h2\nshort,1\n${"x".repeat(50)},2\n"${"q\n".repeat(20)}",3\n${"ab,".repeat(12)}\nlast,4`;
    for (const step of [1, 3, 7, 64, text.length]) {
      const parsed = rows(limit(text, step));
      expect(parsed.length).toBe(6);
      expect(parsed[0]).toEqual(["h1", "h2"]);
      expect(parsed[1]).toEqual(["short", "1"]);
      expect(parsed[2]?.[0]).toBe("\u0000pitchwise-oversize:field");
      expect(parsed[3]?.[0]).toBe("\u0000pitchwise-oversize:field");
      expect(parsed[4]?.[0]).toBe("\u0000pitchwise-oversize:row");
      expect(parsed[5]).toEqual(["last", "4"]);
    }
  });

  it("an unclosed quote swallows the rest of the file as one rejected record (as papaparse would), in bounded memory", () => {
    const text = `h\n"never closed${",x\n".repeat(1000)}`;
    const out = limit(text, 100);
    expect(out.length).toBeLessThan(40);
    expect(rows(out)).toEqual([["h"], ["\u0000pitchwise-oversize:field"]]);
  });

  it("counts fields by the file's delimiter", () => {
    const text = `a;b\n${"x,".repeat(4)};y\n`;
    expect(limit(text, 5, { maxField: 6, maxRow: 100 }, ";")).toContain("pitchwise-oversize:field");
    expect(limit(text, 5, { maxField: 9, maxRow: 100 }, ";")).toBe(text);
  });
});
