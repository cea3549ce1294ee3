import { describe, expect, it } from "vitest";
import { demoQuietHoursRefusal } from "../../src/server/features/demo/demo.service";

// Argentina has several IANA zones (America/Argentina/*) that all keep UTC-3. The demo's refusal said
// "It is night in part of Argentina" for a Buenos Aires number, as if some of the country might be in
// the day, instead of the time it is there; demo-quiet-hours.int failed whenever its night place was
// Buenos Aires (01:00-08:00 UTC). When every zone of the country shows the same time, that time is said.

const WINDOW =
  "demo texts and calls are sent between 8 AM and 9 PM there. Try again later or use another number.";

describe("the demo's quiet-hours sentence", () => {
  it("says the local time for a country whose zones all show the same time (Argentina, 10:40 PM)", () => {
    const now = new Date("2026-11-29T01:40:00Z");
    expect(demoQuietHoursRefusal(now, "+5491123456789")).toBe(
      `It is 10:40 PM where +54 9 11 2345 6789 is; ${WINDOW}`,
    );
  });

  it("keeps 'part of' where the country's zones show different times (Russia: Moscow 9:00 PM, Vladivostok 4:00 AM)", () => {
    const now = new Date("2026-11-29T18:00:00Z");
    const sentence = demoQuietHoursRefusal(now, "+79161234567");
    expect(sentence).toBe(`It is night in part of Russia, where +7 916 123 45 67 is; ${WINDOW}`);
  });

  it("a single-zone country says its local time, and the day allows the demo", () => {
    expect(demoQuietHoursRefusal(new Date("2026-11-29T16:30:00Z"), "+819012345678")).toBe(
      `It is 1:30 AM where +81 90 1234 5678 is; ${WINDOW}`,
    );
    expect(demoQuietHoursRefusal(new Date("2026-11-29T03:00:00Z"), "+819012345678")).toBeNull();
  });
});
