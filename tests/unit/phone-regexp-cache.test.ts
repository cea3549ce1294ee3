import { afterEach, describe, expect, it } from "vitest";
import { toE164 } from "../../src/server/lib/phone";

/**
 * libphonenumber-js's matchesEntirely (patched by patches/libphonenumber-js+1.13.16.patch at `npm ci`)
 * built a new RegExp from a metadata pattern on every call, several per parsed number: about half of
 * the CPU of reading a national number (a 100,000-row CSV import reads 100,000; bench:crm), as did two
 * more helpers with the IDD and national prefix patterns. Patched, each
 * pattern is compiled once. The phone rule's answers are those of phone.test.ts either way.
 */
const NativeRegExp = globalThis.RegExp;
afterEach(() => {
  globalThis.RegExp = NativeRegExp;
});

/** How many RegExps are built while `fn` runs (the global constructor, counted). */
function regExpsBuiltBy(fn: () => void): number {
  let built = 0;
  globalThis.RegExp = new Proxy(NativeRegExp, {
    construct(target, args) {
      built++;
      return Reflect.construct(target, args);
    },
    apply(target, self, args) {
      built++;
      return Reflect.apply(target, self, args);
    },
  });
  try {
    fn();
  } finally {
    globalThis.RegExp = NativeRegExp;
  }
  return built;
}

describe("phone parsing compiles libphonenumber-js's metadata patterns once (patched)", () => {
  it("reading 2,000 different national numbers of many area codes builds no RegExp once each pattern has been met", () => {
    const numbers = Array.from(
      { length: 2000 },
      (_, i) => `(${200 + (i % 700)}) ${200 + ((i * 7) % 700)}-${String(i).padStart(4, "0")}`,
    );
    // first pass: each pattern met for the first time may be compiled
    regExpsBuiltBy(() => {
      for (const n of numbers) toE164(n, "US");
    });
    const again = regExpsBuiltBy(() => {
      for (const n of numbers) toE164(n, "US");
    });
    // unpatched: over ten per number (23,576 here); patched: none
    expect(again).toBe(0);
  });

  it("a +1 number not valid in the US is tried against the other +1 countries without compiling their leading digits each time", () => {
    // getCountryByNationalNumber tested each NANP country's leading digits with
    // String.prototype.search(patternText), which compiles a RegExp per call through the intrinsic
    // RegExp (unseen by the count above): about a quarter of the CPU of reading such a number
    // (bench:crm's 100,000-row import, 68 % of whose numbers are not valid). Patched, it passes the
    // pattern compiled once.
    const search = String.prototype.search;
    let withText = 0;
    String.prototype.search = function (this: string, pattern: unknown) {
      if (typeof pattern === "string") withText++;
      return search.call(this, pattern as RegExp);
    } as typeof String.prototype.search;
    try {
      expect(toE164("(188) 169-1674", "US")).toBeNull();
      expect(toE164("+1 204 555 0199")).toBe("+12045550199"); // Manitoba: Canada's leading digits
      expect(toE164("+1 555 123 4567")).toBeNull();
    } finally {
      String.prototype.search = search;
    }
    expect(withText).toBe(0);
  });

  it("answers as before: valid numbers in E.164, invalid ones null", () => {
    expect(toE164("(415) 555-0132", "US")).toBe("+14155550132");
    expect(toE164("+44 20 7946 0958")).toBe("+442079460958");
    expect(toE164("020 7946 0958", "GB")).toBe("+442079460958");
    expect(toE164("(188) 169-1674", "US")).toBeNull();
    expect(toE164("+1 555 123 4567")).toBeNull();
  });
});
