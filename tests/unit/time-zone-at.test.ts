import { describe, expect, it } from "vitest";
import { timeZoneAt } from "../../src/server/lib/time-zone-at";

describe("timeZoneAt (lib/time-zone-at: quiet hours and OSM opening hours)", () => {
  it("names the IANA zone of a point on land and at sea", () => {
    expect(timeZoneAt(40.7128, -74.006)).toBe("America/New_York");
    expect(timeZoneAt(34.0522, -118.2437)).toBe("America/Los_Angeles");
    expect(timeZoneAt(51.5074, -0.1278)).toBe("Europe/London");
    // mid-Atlantic: tz-lookup's nautical zone, which Intl knows
    expect(timeZoneAt(30, -40)).toMatch(/^Etc\/GMT[+-]\d+$/);
  });

  it("is null, never a throw, for missing, non-finite or out-of-range coordinates", () => {
    for (const [lat, lng] of [
      [null, -74],
      [40.7, undefined],
      [Number.NaN, 0],
      [0, Number.POSITIVE_INFINITY],
      [91, 0],
      [0, -181],
    ] as const) {
      expect(timeZoneAt(lat, lng), `${lat}, ${lng}`).toBeNull();
    }
  });
});
