import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import { describe, expect, it } from "vitest";
import { normalisePhone, toE164 } from "../../src/server/features/crm/crm.phone";

/** libphonenumber-js's own answer: possible number with default country US, else null. */
function reference(raw: string): string | null {
  const t = raw.trim();
  if (t.length < 3 || t.length > 40) return null;
  const p = parsePhoneNumberFromString(t, "US");
  return p?.isPossible() ? p.number : null;
}

/** Deterministic pseudo-random digits (LCG), so a failure names a reproducible input. */
function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

// shapes of real exports (datablist/faker, Google, Outlook, HubSpot) and edge cases around the fast path
const SHAPES = [
  "9999999999",
  "999.999.9999",
  "999-999-9999",
  "(999)999-9999",
  "(999) 999-9999",
  "999-999-9999x99999",
  "999-999-999-9999x9999",
  "999-999-999-9999",
  "+9-999-999-9999x9999",
  "+9-999-999-9999",
  "+9 (999) 999-9999",
  "9-999-999-9999",
  "99999999999",
  "+99999999999",
  "999.999.9999 ext. 99",
  "999-999-9999 #999",
  "999 999 9999 extension 9",
  "999-9999",
  "999999999",
  "999999999999",
  "001-999-999-9999",
  "011-99-99-9999-9999",
  "+99 99 9999 9999",
  "+999 99 999 9999",
  "9.9.9.9.9.9.9.9.9.9",
];

describe("toE164 (fast North American path)", () => {
  it("gives libphonenumber-js's answer for random numbers of every shape", () => {
    const rand = rng(20261121);
    let checked = 0;
    for (const shape of SHAPES) {
      for (let i = 0; i < 400; i++) {
        // bias the leading digits towards 0 and 1, the cases the fast path must get right
        const input = shape.replace(/9/g, () =>
          String(rand() < 0.3 ? Math.floor(rand() * 2) : Math.floor(rand() * 10)),
        );
        expect(toE164(input), input).toBe(reference(input));
        checked++;
      }
    }
    expect(checked).toBe(SHAPES.length * 400);
  });

  it("keeps the raw text for display and trims", () => {
    expect(normalisePhone("  (989) 555-0142 x12 ")).toEqual({
      e164: "+19895550142",
      raw: "(989) 555-0142 x12",
    });
    expect(normalisePhone("")).toEqual({ e164: null, raw: null });
    expect(normalisePhone("001-184-153-9683")).toEqual({ e164: null, raw: "001-184-153-9683" });
    expect(toE164("+44 20 7946 0958")).toBe("+442079460958");
  });
});
