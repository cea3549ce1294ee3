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
    const text = `h1,h2\nshort,1\n${"x".repeat(50)},2\n"${"q,".repeat(20)}",3\n${"ab,".repeat(12)}\nlast,4`;
    for (const step of [1, 3, 7, 64, text.length]) {
      const parsed = rows(limit(text, step));
      expect(parsed.length).toBe(6);
      expect(parsed[0]).toEqual(["h1", "h2"]);
      expect(parsed[1]).toEqual(["short", "1"]);
      expect(parsed[2]?.[0]).toBe("\u0000pitchwise-unread:field");
      expect(parsed[3]?.[0]).toBe("\u0000pitchwise-unread:field");
      expect(parsed[4]?.[0]).toBe("\u0000pitchwise-unread:row");
      expect(parsed[5]).toEqual(["last", "4"]);
    }
  });

  it("a quoted field never closed is dropped and the lines after its opening line are read as rows (not swallowed, as papaparse would), in bounded memory", () => {
    const text = `h\n"never closed${",x\n".repeat(1000)}`;
    for (const step of [1, 100, text.length]) {
      const out = limit(text, step);
      expect(out.length).toBeLessThan(text.length + 40);
      const parsed = rows(out);
      expect(parsed.slice(0, 3)).toEqual([["h"], ["\u0000pitchwise-unread:field"], ["", "x"]]);
      expect(parsed.length).toBe(1001);
    }
  });

  it("agrees with papaparse on quotes and line ends: what it passes parses without errors, broken quotes are dropped", () => {
    const cases: [string, "\n" | "\r\n"][] = [
      ['h\nq1,"Bobby" Jones\na,1\nq2,"Ed E"\nz,2\n', "\n"],
      ['h\n"a","unterm\nb,B\nc,C', "\n"],
      ['h\n"x"y,abc\ndef\n', "\n"],
      [`h\ncr,${"y".repeat(12)}\r${"y".repeat(12)}\nok,1\n`, "\n"],
      ['h\r\n"a b"  ,c\r\n"q\r\nr",2\r\nx\ry,3\r\n', "\r\n"],
    ];
    const expected = [
      [["h"], ["\u0000pitchwise-unread:quote:%22Bobby%22%20J"], ["a", "1"], ["q2", "Ed E"], ["z", "2"]],
      [["h"], ["\u0000pitchwise-unread:unclosed:%22unterm%20b%2CB%20c%2CC"], ["b", "B"], ["c", "C"]],
      [["h"], ["\u0000pitchwise-unread:quote:%22x%22y"], ["def"]],
      [["h"], ["\u0000pitchwise-unread:field"], ["ok", "1"]],
      [["h"], ["a b", "c"], ["q\r\nr", "2"], ["x\ry", "3"]],
    ];
    cases.forEach(([text, newline], k) => {
      for (let step = 1; step <= text.length; step++) {
        const l = createRecordLimiter(",", { maxField: 20, maxRow: 60, newline });
        let out = "";
        for (let i = 0; i < text.length; i += step) out += l.push(text.slice(i, i + step));
        out += l.end();
        const parsed = Papa.parse<string[]>(out, { delimiter: ",", newline, skipEmptyLines: "greedy" });
        expect(parsed.errors).toEqual([]);
        expect(parsed.data).toEqual(expected[k]);
      }
    });
  });

  it("counts fields by the file's delimiter", () => {
    const text = `a;b\n${"x,".repeat(4)};y\n`;
    expect(limit(text, 5, { maxField: 6, maxRow: 100 }, ";")).toContain("pitchwise-unread:field");
    expect(limit(text, 5, { maxField: 9, maxRow: 100 }, ";")).toBe(text);
  });
});
