import zipcodes from "zipcodes";
import { AppError } from "../../lib/errors";
import { stateCode } from "../../providers/geocoder/local";
import { distanceMi, type LatLng } from "./leads.geo";

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
    if (!usablePoint(z)) continue;
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

/** How far (miles) coordinates may lie from the nearest US ZIP code centroid: beyond, open water or abroad. */
export const MAX_MILES_FROM_US_ZIP = 50;

/** Pacific territories east of the antimeridian (positive longitudes). */
const EAST_TERRITORIES = new Set(["GU", "MP", "PW", "FM", "MH"]);

/**
 * Whether a `zipcodes` entry has a place on the map: military APO/FPO codes (states AA, AE, AP) carry
 * 0, 0 or a foreign city, and a few entries have a positive longitude outside the Pacific territories.
 */
function usablePoint(z: { latitude: number; longitude: number; state: string; country: string }) {
  if (z.country !== "US" || !Number.isFinite(z.latitude) || !Number.isFinite(z.longitude)) return false;
  if (z.state === "AA" || z.state === "AE" || z.state === "AP") return false;
  if (z.latitude === 0 && z.longitude === 0) return false;
  return z.longitude < 0 || EAST_TERRITORIES.has(z.state);
}

let zipPoints: Float64Array | null = null;
/** Every US ZIP centroid as [lat, lng, lat, lng, ...] (the `zipcodes` package). */
function usZipPoints(): Float64Array {
  if (zipPoints) return zipPoints;
  const codes = Object.values(
    (
      zipcodes as unknown as {
        codes: Record<string, { latitude: number; longitude: number; state: string; country: string }>;
      }
    ).codes,
  ).filter(usablePoint);
  zipPoints = new Float64Array(codes.length * 2);
  codes.forEach((z, i) => {
    (zipPoints as Float64Array)[i * 2] = z.latitude;
    (zipPoints as Float64Array)[i * 2 + 1] = z.longitude;
  });
  return zipPoints;
}

/** Great-circle miles from (lat, lng) to the nearest US ZIP code centroid. */
function milesToNearestUsZip(lat: number, lng: number): number {
  const pts = usZipPoints();
  const at = { lat, lng };
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < pts.length; i += 2) {
    const la = pts[i] as number;
    // cheap reject: a degree of latitude is about 69 miles
    if (Math.abs(la - lat) * 69 > best) continue;
    const d = distanceMi(at, { lat: la, lng: pts[i + 1] as number });
    if (d < best) best = d;
  }
  return best;
}

const notFound = (text: string) =>
  new AppError(
    "UNPROCESSABLE",
    `We could not find "${text}". Enter a US city and state (for example "Austin, TX"), a 5-digit ZIP code, or coordinates ("30.27, -97.74").`,
  );

/**
 * Location text -> search centre, offline (US ZIP centroids from the `zipcodes` package, US Census
 * ZCTA data). Accepts a 5-digit ZIP ("48601", "48601-1234"), "City, ST", "City, State", "City ST",
 * a city alone (the state where that city has the most ZIP codes), or "lat, lng" in decimal degrees
 * within MAX_MILES_FROM_US_ZIP miles of a US ZIP code (farther is open water or outside the US, where
 * a search would cost a search and find nothing).
 * @throws AppError UNPROCESSABLE (422) naming the text when nothing matches or the coordinates are out
 *   of range or not near the US.
 */
export function resolveLocation(raw: string): ResolvedLocation {
  const text = raw.trim().replace(/\s+/g, " ");
  const coords = text.match(/^(-?\d{1,2}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)$/);
  if (coords) {
    const lat = Number(coords[1]);
    const lng = Number(coords[2]);
    if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180))
      throw new AppError(
        "UNPROCESSABLE",
        `"${text}" are not valid coordinates: latitude goes from -90 to 90 and longitude from -180 to 180 (for example "30.27, -97.74").`,
      );
    if (milesToNearestUsZip(lat, lng) > MAX_MILES_FROM_US_ZIP)
      throw new AppError(
        "UNPROCESSABLE",
        `"${text}" is not near any US ZIP code (open water or outside the United States). Lead search covers US locations: enter coordinates on US land, a US city and state, or a 5-digit ZIP code.`,
      );
    return { lat, lng, label: `${lat}, ${lng}` };
  }
  const zip = text.match(/^(\d{5})(?:-\d{4})?$/)?.[1] ?? text.match(/\b(\d{5})(?:-\d{4})?$/)?.[1];
  if (zip) {
    const z = zipcodes.lookup(zip);
    if (z && z.country === "US" && !usablePoint(z))
      throw new AppError(
        "UNPROCESSABLE",
        `ZIP code ${zip} has no place on the map (a military APO/FPO code or one without coordinates). Enter a US city and state or another ZIP code.`,
      );
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
