import { describe, expect, it } from "vitest";
import { hoursFrom, osmToPlace, overpassQuery } from "../../src/server/providers/places/osm";

// OSM opening_hours read in the place's own time zone, with its public holidays (leads audit).

const SAGINAW = { lat: 43.4195, lng: -83.9508 }; // America/Detroit
const LA = { lat: 34.0522, lng: -118.2437 }; // America/Los_Angeles

describe("hoursFrom", () => {
  it("answers open now in the place's time zone, not the server's", () => {
    // Wednesday 25 Nov 2026 20:00 UTC = 15:00 in Saginaw (EST), 12:00 in Los Angeles (PST)
    const at = new Date("2026-11-25T20:00:00Z");
    expect(hoursFrom("Mo-Fr 09:00-17:00", at, SAGINAW)?.openNow).toBe(true);
    expect(hoursFrom("Mo-Fr 09:00-17:00", at, LA)?.openNow).toBe(true);
    // 23:30 UTC = 18:30 in Saginaw (closed), 15:30 in Los Angeles (open)
    const late = new Date("2026-11-25T23:30:00Z");
    expect(hoursFrom("Mo-Fr 09:00-17:00", late, SAGINAW)?.openNow).toBe(false);
    expect(hoursFrom("Mo-Fr 09:00-17:00", late, LA)?.openNow).toBe(true);
    // 07:30 UTC Thursday = 02:30 Thursday in Saginaw: a bar open until 03:00 is open there
    expect(hoursFrom("Mo-Su 16:00-03:00", new Date("2026-11-26T07:30:00Z"), SAGINAW)?.openNow).toBe(true);
  });

  it("reads the weekly facts from the place's local days", () => {
    // Saturday 28 Nov 2026 03:00 UTC is still Friday evening in Los Angeles
    const h = hoursFrom("Mo-Fr 17:00-22:00", new Date("2026-11-28T03:00:00Z"), LA);
    expect(h).toMatchObject({ openNow: true, openLate: true, openWeekends: false, openEarly: false });
  });

  it("understands public holidays (PH) instead of giving up on the whole value", () => {
    // Thanksgiving, Thursday 26 Nov 2026, 15:00 in Saginaw: closed on public holidays
    const thanksgiving = new Date("2026-11-26T20:00:00Z");
    const h = hoursFrom("Mo-Fr 09:00-17:00; PH off", thanksgiving, SAGINAW);
    expect(h?.openNow).toBe(false);
    expect(h?.hasHolidayHours).toBe(true);
    // the day before is an ordinary Wednesday
    expect(hoursFrom("Mo-Fr 09:00-17:00; PH off", new Date("2026-11-25T20:00:00Z"), SAGINAW)?.openNow).toBe(
      true,
    );
  });

  it("keeps an unparsable value as text with open now unknown", () => {
    expect(hoursFrom("whenever we feel like it", new Date(), SAGINAW)).toEqual({
      openNow: null,
      text: "whenever we feel like it",
    });
  });
});

describe("osmToPlace", () => {
  it("evaluates a place's opening_hours at its coordinates", () => {
    const p = osmToPlace(
      {
        type: "node",
        id: 1,
        lat: LA.lat,
        lon: LA.lng,
        tags: { name: "Late Dental", amenity: "dentist", opening_hours: "Mo-Fr 09:00-17:00" },
      },
      new Date("2026-11-25T23:30:00Z"), // 15:30 in Los Angeles, 23:30 on a UTC server
    );
    expect(p?.hours?.openNow).toBe(true);
  });
});

describe("overpassQuery escaping", () => {
  const at = { lat: 43.4195, lng: -83.9508, radiusMi: 2 };
  it("keeps hostile business type text inside one quoted name pattern", () => {
    const hostile = 'pizza"]; out; node(1);("\\ .* [a-z]+ (x|y)';
    const q = overpassQuery({ ...at, businessType: hostile });
    const names = [...q.matchAll(/\["name"~"([^"]*)",i\]/g)].map((m) => m[1]);
    expect(names.length).toBe(5); // shop, amenity, craft, office, healthcare
    for (const n of names) expect(n).toMatch(/^[\p{L}\p{N} &'-]+$/u);
    expect(q.split('"').length % 2).toBe(1); // balanced quotes
    // outside the quoted strings the query is the same as a harmless name search's
    const code = (x: string) => x.replace(/"[^"]*"/g, '""');
    expect(code(q)).toBe(code(overpassQuery({ ...at, businessType: "pizza shop" })));
  });
});
