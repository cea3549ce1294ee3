import zipcodes from "zipcodes";
import type { GeocodeQuery, GeocodeResult, GeocoderProvider } from "./index";

const US = new Set([
  "",
  "us",
  "usa",
  "u.s.",
  "u.s.a.",
  "united states",
  "united states of america",
  "america",
]);

/** Two-letter USPS code of a state given as a code or a full name ("Michigan", "MI"), else null. */
export function stateCode(state: string | null | undefined): string | null {
  const s = (state ?? "").trim().toUpperCase();
  if (!s) return null;
  if (s.length === 2 && Object.values(zipcodes.states.full).includes(s)) return s;
  return zipcodes.states.full[s] ?? null;
}

/**
 * Offline US geocoder over the `zipcodes` package (ZIP centroids, public US Census ZCTA data):
 * a 5-digit postal code wins, else city + state gives the centroid of the city's ZIP codes.
 * Non-US countries are not found.
 */
export class LocalGeocoder implements GeocoderProvider {
  readonly name = "local";
  private readonly cityCache = new Map<string, GeocodeResult | null>();

  geocodeOne(q: GeocodeQuery): GeocodeResult | null {
    if (!US.has((q.country ?? "").trim().toLowerCase())) return null;
    const zip = (q.postalCode ?? "").trim().match(/^(\d{5})(?:-\d{4})?$/)?.[1];
    if (zip) {
      const z = zipcodes.lookup(zip);
      if (z) return { latitude: z.latitude, longitude: z.longitude, precision: "postal_code" };
    }
    const st = stateCode(q.state);
    const city = (q.city ?? "").trim();
    if (!st || !city) return null;
    const key = `${city.toLowerCase()}|${st}`;
    const cached = this.cityCache.get(key);
    if (cached !== undefined) return cached;
    const found = zipcodes.lookupByName(city, st);
    const result: GeocodeResult | null = found.length
      ? {
          latitude: found.reduce((s, z) => s + z.latitude, 0) / found.length,
          longitude: found.reduce((s, z) => s + z.longitude, 0) / found.length,
          precision: "city",
        }
      : null;
    if (this.cityCache.size > 50_000) this.cityCache.clear();
    this.cityCache.set(key, result);
    return result;
  }

  async geocodeMany(queries: GeocodeQuery[]) {
    return queries.map((q) => this.geocodeOne(q));
  }
}
