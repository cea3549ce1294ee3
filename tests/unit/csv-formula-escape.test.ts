import { describe, expect, it } from "vitest";
import { CSV_FORMULA_ESCAPE } from "../../src/server/lib/csv";
import { cpuMsSince } from "../cpu-time";

describe("CSV_FORMULA_ESCAPE", () => {
  it("escapes cells a spreadsheet would run, and leaves numbers and phone numbers as they are", () => {
    for (const v of [
      "=1+1",
      "+cmd|' /C calc'!A0",
      "-2+3",
      "@SUM(A1)",
      "\t=1",
      "\r=1",
      "-1x",
      "-(1)a",
      "+",
      "-",
      "- ",
      "-()",
    ])
      expect(CSV_FORMULA_ESCAPE.test(v), JSON.stringify(v)).toBe(true);
    for (const v of [
      "+14155552671",
      "+1 (415) 555-2671",
      "-70.1",
      "-33.86",
      "-1-1",
      "- 1",
      "+(1)",
      "abc",
      "1=1",
      " =1",
      "",
    ])
      expect(CSV_FORMULA_ESCAPE.test(v), JSON.stringify(v)).toBe(false);
  });

  it("takes time linear in the cell's length: a 50,000-character near-number is judged at once", () => {
    // "-111...1x": every split of the digits between the two runs of the number rule was tried
    // (quadratic: 5 s for this cell, 10 s for an export of 5,000 contacts with such fields)
    const cell = `-${"1".repeat(50_000)}x`;
    // CPU time, not wall time: a loaded machine stretches the latter many times over
    const started = process.cpuUsage();
    expect(CSV_FORMULA_ESCAPE.test(cell)).toBe(true);
    expect(CSV_FORMULA_ESCAPE.test(`+${"1 ".repeat(25_000)}x`)).toBe(true);
    expect(CSV_FORMULA_ESCAPE.test(`-${"1".repeat(50_000)}`)).toBe(false);
    expect(cpuMsSince(started)).toBeLessThan(250);
  });
});
