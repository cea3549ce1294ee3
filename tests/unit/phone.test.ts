import { describe, expect, it } from "vitest";
import {
  INVALID_PHONE_MESSAGE,
  invalidPhoneMessage,
  isPhoneCountry,
  normalisePhone,
  toE164,
} from "../../src/server/lib/phone";

// The one phone rule (issue 14 section 4): libphonenumber-js's *valid* numbers, read in the
// workspace's default country when typed without +country.
describe("toE164", () => {
  it("accepts the shapes real exports use, in E.164, extensions dropped", () => {
    expect(toE164("(989) 555-0142")).toBe("+19895550142");
    expect(toE164("989.555.0142 x12")).toBe("+19895550142");
    expect(toE164("+1-989-555-0142")).toBe("+19895550142");
    expect(toE164("1 415 555 0132")).toBe("+14155550132");
    expect(toE164("+44 20 7946 0958")).toBe("+442079460958");
  });

  it("refuses numbers that are possible but not valid (the issue's examples)", () => {
    expect(toE164("(188)169-1674x58692")).toBeNull(); // no such area code
    expect(toE164("+1 555 123 4567")).toBeNull(); // 555 is not an area code
    expect(toE164("555-1234")).toBeNull(); // too short
    expect(toE164("001-184-153-9683")).toBeNull();
    expect(toE164("not a phone")).toBeNull();
    expect(toE164("")).toBeNull();
    expect(toE164(null)).toBeNull();
  });

  it("reads national numbers in the workspace's country", () => {
    expect(toE164("020 7946 0958")).toBeNull(); // not a US number
    expect(toE164("020 7946 0958", "GB")).toBe("+442079460958");
    expect(toE164("030 123456", "DE")).toBe("+4930123456");
    // an explicit +country wins over the default
    expect(toE164("+1 415 555 0132", "GB")).toBe("+14155550132");
    // an unknown country code falls back to US rather than throwing
    expect(toE164("(989) 555-0142", "ZZ")).toBe("+19895550142");
  });

  it("knows which country codes it has rules for", () => {
    expect(isPhoneCountry("US")).toBe(true);
    expect(isPhoneCountry("GB")).toBe(true);
    expect(isPhoneCountry("ZZ")).toBe(false);
    expect(isPhoneCountry("us")).toBe(false);
  });
});

describe("normalisePhone", () => {
  it("keeps the trimmed text for display, with e164 null when invalid", () => {
    expect(normalisePhone("  (989) 555-0142 x12 ")).toEqual({
      e164: "+19895550142",
      raw: "(989) 555-0142 x12",
    });
    expect(normalisePhone("(188)169-1674x58692")).toEqual({ e164: null, raw: "(188)169-1674x58692" });
    expect(normalisePhone("   ")).toEqual({ e164: null, raw: null });
  });
});

describe("messages", () => {
  it("are sentences without field keys or developer words", () => {
    const m = invalidPhoneMessage("phone", "555-1234");
    expect(m).toMatch(/^'555-1234' is not a valid phone number\. Please include the area code/);
    expect(invalidPhoneMessage("mobile", "1")).toContain("mobile number");
    expect(INVALID_PHONE_MESSAGE).toMatch(/^Please enter a valid phone number/);
    for (const s of [m, INVALID_PHONE_MESSAGE]) expect(s).not.toMatch(/phone:|regex|E\.164|undefined/);
  });
});
