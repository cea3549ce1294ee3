import { describe, expect, it } from "vitest";
import { LocalPlacesProvider } from "../../src/server/providers/places/local";
import { openNowAt } from "../../src/server/providers/places/osm";

// Demo businesses: "Open now" agrees with the opening hours they show (leads audit).

describe("local (demo) provider opening hours", () => {
  it.each([
    ["Wednesday noon in Saginaw", "2026-11-25T17:00:00Z"],
    ["Sunday 03:00 in Saginaw", "2026-11-29T08:00:00Z"],
    ["Saturday 10:00 in Saginaw", "2026-11-28T15:00:00Z"],
  ])("open now matches the shown hours at %s", async (_label, iso) => {
    const now = new Date(iso);
    const p = new LocalPlacesProvider({ perRequestCap: 500, clock: () => now });
    const places: Awaited<ReturnType<typeof p.searchNearby>>["places"] = [];
    for (const businessType of ["dentist", "plumber", "restaurant", "salon"])
      places.push(
        ...(await p.searchNearby({ lat: 43.4195, lng: -83.9508, radiusMi: 15, businessType })).places,
      );
    expect(places.length).toBeGreaterThan(30);
    const mismatched = places.filter((x) => {
      const expected =
        x.businessStatus !== "OPERATIONAL"
          ? false
          : openNowAt(x.hours?.text as string, now, { lat: x.lat, lng: x.lng });
      return x.hours?.openNow !== expected;
    });
    // before: open now was a coin toss (60%) whatever the hours said
    expect(mismatched.map((x) => `${x.name}: ${x.hours?.text} open=${x.hours?.openNow}`)).toEqual([]);
  });
});
