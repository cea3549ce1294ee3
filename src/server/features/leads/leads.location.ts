import zipcodes from "zipcodes";
import { AppError } from "../../lib/errors";
import { stateCode } from "../../providers/geocoder/local";
import type { LatLng } from "./leads.geo";

/** A resolved search location: its centre and how it reads back ("Saginaw, MI" / "48601 (Saginaw, MI)"). */
export interface ResolvedLocation extends LatLng {
  label: string;
}

let cityIndex: Map<string, Map<string, { lat: number; lng: number; n: number }>> | null = null;
/** city name (lower case) -> state -> centroid of its ZIP codes, from the `zipcodes` package (US only). */
function cities() {
  if (cityIndex) return cityIndex;
  cityIndex = new Map();
  const codes = (
    zipcodes as unknown as {
      codes: Record<
        string,
        { latitude: number; longitude: number; city: string; state: string; country: string }
      >;
    }
  ).codes;
  for (const z of Object.values(codes)) {
    if (z.country !== "US") continue;
    const k = z.city.toLowerCase();
    const byState = cityIndex.get(k) ?? new Map();
    const c = byState.get(z.state) ?? { lat: 0, lng: 0, n: 0 };
    c.lat += z.latitude;
    c.lng += z.longitude;
    c.n++;
    byState.set(z.state, c);
    cityIndex.set(k, byState);
  }
  return cityIndex;
}

const notFound = (text: string) =>
  new AppError(
    "UNPROCESSABLE",
    `We could not find "${text}". Enter a US city and state (for example "Austin, TX"), a 5-digit ZIP code, or coordinates ("30.27, -97.74").`,
  );

/**
 * Location text -> search centre, offline (US ZIP centroids from the `zipcodes` package, US Census
 * ZCTA data). Accepts a 5-digit ZIP ("48601", "48601-1234"), "City, ST", "City, State", "City ST",
 * a city alone (the state where that city has the most ZIP codes), or "lat, lng" in decimal degrees.
 * @throws AppError UNPROCESSABLE (422) naming the text when nothing matches.
 */
export function resolveLocation(raw: string): ResolvedLocation {
  const text = raw.trim().replace(/\s+/g, " ");
  const coords = text.match(/^(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)$/);
  if (coords) {
    const lat = Number(coords[1]);
    const lng = Number(coords[2]);
    if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180) return { lat, lng, label: `${lat}, ${lng}` };
    throw notFound(text);
  }
  const zip = text.match(/^(\d{5})(?:-\d{4})?$/)?.[1] ?? text.match(/\b(\d{5})(?:-\d{4})?$/)?.[1];
  if (zip) {
    const z = zipcodes.lookup(zip);
    if (z && z.country === "US")
      return { lat: z.latitude, lng: z.longitude, label: `${zip} (${z.city}, ${z.state})` };
    if (/^\d{5}(?:-\d{4})?$/.test(text)) throw notFound(text);
  }
  const cleaned = text
    .replace(/\b\d{5}(?:-\d{4})?$/, "")
    .replace(/,?\s*(usa|us|united states)$/i, "")
    .trim();
  let city = cleaned;
  let state: string | null = null;
  const comma = cleaned
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (comma.length >= 2) {
    city = comma[0] as string;
    state = stateCode(comma[1]);
    if (!state) throw notFound(text);
  } else {
    const m = cleaned.match(/^(.+?)\s+([A-Za-z]{2})$/);
    if (m && stateCode(m[2])) {
      city = m[1] as string;
      state = stateCode(m[2]);
    }
  }
  const byState = cities().get(city.toLowerCase());
  if (!byState) throw notFound(text);
  let pick: [string, { lat: number; lng: number; n: number }] | undefined;
  if (state) {
    const c = byState.get(state);
    if (c) pick = [state, c];
  } else {
    pick = [...byState.entries()].sort((a, b) => b[1].n - a[1].n)[0];
  }
  if (!pick) throw notFound(text);
  const [st, c] = pick;
  const name = city.replace(/\b\w/g, (ch) => ch.toUpperCase());
  return { lat: c.lat / c.n, lng: c.lng / c.n, label: `${name}, ${st}` };
}
