import tzLookup from "@photostructure/tz-lookup";
import { IANAZone } from "luxon";

/**
 * The IANA time zone at a point, e.g. `timeZoneAt(40.7, -74)` -> "America/New_York" (ocean points
 * get the nautical "Etc/GMT±N" zones), from `@photostructure/tz-lookup`'s offline boundary data.
 *
 * @param lat latitude in degrees, -90..90
 * @param lng longitude in degrees, -180..180
 * @returns the zone name, or null when it cannot tell: a coordinate that is missing (null or
 *   undefined), not finite or out of range (tz-lookup throws "invalid coordinates"), or a zone this
 *   runtime's Intl does not know (checked with luxon's IANAZone.isValidZone, which caches the answer).
 *   Never throws.
 */
export function timeZoneAt(lat: number | null | undefined, lng: number | null | undefined): string | null {
  if (typeof lat !== "number" || typeof lng !== "number" || !Number.isFinite(lat) || !Number.isFinite(lng))
    return null;
  try {
    const zone = tzLookup(lat, lng);
    return IANAZone.isValidZone(zone) ? zone : null;
  } catch {
    return null;
  }
}
