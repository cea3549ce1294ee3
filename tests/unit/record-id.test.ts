import { describe, expect, it } from "vitest";
import { AppError } from "../../src/server/lib/errors";
import { NO_RECORD_ID, pathRecordId, recordId } from "../../src/server/lib/validate";

// lib/validate recordId: the id a request names, as a number, NO_RECORD_ID for a whole number no
// record can have, a 400 sentence for anything that is no whole number.
const id = recordId("Media id");

describe("recordId", () => {
  it("reads digits with leading zeros and numbers up to Number.MAX_SAFE_INTEGER", () => {
    expect(id.parse("12")).toBe(12);
    expect(id.parse("007")).toBe(7);
    expect(id.parse(`${"0".repeat(40)}42`)).toBe(42);
    expect(id.parse("9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    expect(id.parse(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    expect(id.parse(5n)).toBe(5);
  });

  it("turns 0, 2^53 + 1, 17+ digits and a body's million digits into NO_RECORD_ID", () => {
    for (const v of [
      "0",
      "000",
      "9007199254740992",
      "9007199254740993",
      "99999999999999999",
      0,
      -3,
      2 ** 60,
    ]) {
      expect(id.parse(v), String(v)).toBe(NO_RECORD_ID);
    }
    // a million digits (1 MB, the default body limit): no id, and no BigInt of it (quadratic parse)
    expect(id.parse(`1${"0".repeat(999_999)}`)).toBe(NO_RECORD_ID);
  });

  it("refuses what is no whole number with a sentence naming the field", () => {
    for (const v of ["0x10", "1e1", "+5", "5.0", 1.5, true]) {
      const r = id.safeParse(v);
      expect(r.success, String(v)).toBe(false);
      expect(r.error?.issues[0]?.message, String(v)).toMatch(/^Media id must be a (whole )?number$/);
    }
  });
});

describe("pathRecordId", () => {
  it("reads a path segment of digits naming a possible record", () => {
    expect(pathRecordId("12", "Campaign")).toBe(12);
    expect(pathRecordId("007", "Campaign")).toBe(7);
    expect(pathRecordId("9007199254740991", "Campaign")).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("answers any other segment with the unknown id's 404 sentence", () => {
    for (const v of [
      "abc",
      "0x10",
      "1e1",
      "+5",
      "-5",
      "5.0",
      "",
      " 5",
      "0",
      "9007199254740992",
      "1".repeat(17),
      undefined,
    ]) {
      let thrown: unknown;
      try {
        pathRecordId(v, "Campaign");
      } catch (e) {
        thrown = e;
      }
      expect(thrown, String(v)).toBeInstanceOf(AppError);
      expect([(thrown as AppError).code, (thrown as AppError).message], String(v)).toEqual([
        "NOT_FOUND",
        "Campaign not found",
      ]);
    }
  });
});
