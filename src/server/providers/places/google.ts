import { ProviderError } from "../errors";
import type { NearbyAnswer, NearbyQuery, Place, PlaceAttribute, PlacesProvider } from "./index";

const METRES_PER_MILE = 1609.34;

/**
 * Business types that are Google place types (Places API (New) "Table A"); anything else is searched
 * as free text. Keys are lower-case words a user types.
 */
const GOOGLE_TYPES: Record<string, string> = {
  restaurant: "restaurant",
  restaurants: "restaurant",
  dentist: "dentist",
  dentists: "dentist",
  plumber: "plumber",
  plumbers: "plumber",
  "real estate": "real_estate_agency",
  "real estate agency": "real_estate_agency",
  "real estate agents": "real_estate_agency",
  "hair salon": "hair_salon",
  salon: "beauty_salon",
  salons: "beauty_salon",
  "beauty salon": "beauty_salon",
  "auto repair": "car_repair",
  "car repair": "car_repair",
  lawyer: "lawyer",
  lawyers: "lawyer",
  "law firm": "lawyer",
  "law firms": "lawyer",
  gym: "gym",
  gyms: "gym",
  chiropractor: "chiropractor",
  chiropractors: "chiropractor",
  electrician: "electrician",
  electricians: "electrician",
  roofer: "roofing_contractor",
  roofers: "roofing_contractor",
  "roofing contractor": "roofing_contractor",
  cafe: "cafe",
  bakery: "bakery",
  florist: "florist",
  pharmacy: "pharmacy",
  veterinarian: "veterinary_care",
  "veterinary care": "veterinary_care",
  accountant: "accounting",
  accounting: "accounting",
  "insurance agency": "insurance_agency",
};

const PRICE: Record<string, number> = {
  PRICE_LEVEL_INEXPENSIVE: 1,
  PRICE_LEVEL_MODERATE: 2,
  PRICE_LEVEL_EXPENSIVE: 3,
  PRICE_LEVEL_VERY_EXPENSIVE: 4,
};

/**
 * The fields asked for (X-Goog-FieldMask). Google bills a request by the highest tier among them:
 * id/displayName/formattedAddress/location/types/businessStatus are Pro, rating/userRatingCount/
 * priceLevel/nationalPhoneNumber/websiteUri/currentOpeningHours are Enterprise. No photos, reviews or
 * atmosphere fields (Enterprise + Atmosphere) are asked for.
 */
export const GOOGLE_FIELDS = [
  "places.id",
  "places.displayName",
  "places.formattedAddress",
  "places.location",
  "places.types",
  "places.businessStatus",
  "places.rating",
  "places.userRatingCount",
  "places.priceLevel",
  "places.nationalPhoneNumber",
  "places.websiteUri",
  "places.currentOpeningHours.openNow",
];

/** Google Places (New) place as returned for GOOGLE_FIELDS. */
interface GPlace {
  id: string;
  displayName?: { text?: string };
  formattedAddress?: string;
  location?: { latitude: number; longitude: number };
  types?: string[];
  businessStatus?: Place["businessStatus"];
  rating?: number;
  userRatingCount?: number;
  priceLevel?: string;
  nationalPhoneNumber?: string;
  websiteUri?: string;
  currentOpeningHours?: { openNow?: boolean };
}

/**
 * Google Places API (New) over fetch (no SDK): `places:searchNearby` with a circle
 * `locationRestriction`, `includedTypes` and `rankPreference: DISTANCE` (max 20 places) when the
 * business type is a Google place type, else `places:searchText` with a circle `locationBias`, pages
 * followed through `pageToken` (at most 3 pages of 20) and places outside the circle dropped.
 * Errors: 429 and 5xx are retried with exponential backoff (0.5 s, 1 s, 2 s); 403 (key missing,
 * invalid, API not enabled, billing) and 400 become a ProviderError with a sentence a person can act on.
 * Source: developers.google.com/maps/documentation/places/web-service (Nearby Search (New), Text
 * Search (New), Place data fields, usage and billing). Google's terms allow keeping only the place id
 * beyond the user's session.
 */
export class GooglePlacesProvider implements PlacesProvider {
  readonly name = "google" as const;
  readonly label = "Google";
  readonly attribution = "Google Maps";
  readonly attributes = new Set<PlaceAttribute>([
    "location",
    "address",
    "types",
    "rating",
    "reviewCount",
    "priceLevel",
    "phone",
    "website",
    "openNow",
    "businessStatus",
    "crm",
  ]);
  readonly perRequestCap = 20;
  /** Nearby Search radius limit: 50,000 m */
  readonly maxRadiusMi = 50_000 / METRES_PER_MILE;
  readonly ratePerSecond: number;
  readonly concurrency = 4;
  private readonly base: string;

  constructor(
    private readonly opts: {
      apiKey: string;
      apiUrl?: string;
      ratePerSecond?: number;
      /** backoff base in ms (tests use 1) */
      backoffMs?: number;
      fetch?: typeof fetch;
    },
  ) {
    this.base = (opts.apiUrl ?? "https://places.googleapis.com").replace(/\/+$/, "");
    this.ratePerSecond = opts.ratePerSecond ?? 10;
  }

  async searchNearby(q: NearbyQuery): Promise<NearbyAnswer> {
    const type = GOOGLE_TYPES[q.businessType.trim().toLowerCase().replace(/\s+/g, " ")];
    const radius = Math.min(50_000, q.radiusMi * METRES_PER_MILE);
    const circle = { center: { latitude: q.lat, longitude: q.lng }, radius };
    if (type) {
      const body = await this.post(
        "/v1/places:searchNearby",
        {
          includedTypes: [type],
          maxResultCount: 20,
          rankPreference: "DISTANCE",
          locationRestriction: { circle },
        },
        GOOGLE_FIELDS,
        q.signal,
      );
      const places = ((body.places ?? []) as GPlace[]).map(toPlace);
      return { places, calls: 1, full: places.length >= 20, rankedByDistance: true };
    }
    const places: Place[] = [];
    let pageToken: string | undefined;
    let calls = 0;
    do {
      const body = await this.post(
        "/v1/places:searchText",
        {
          textQuery: q.businessType.trim(),
          pageSize: 20,
          locationBias: { circle },
          ...(pageToken ? { pageToken } : {}),
        },
        [...GOOGLE_FIELDS, "nextPageToken"],
        q.signal,
      );
      calls++;
      for (const g of (body.places ?? []) as GPlace[]) {
        const p = toPlace(g);
        if (miles(q.lat, q.lng, p.lat, p.lng) <= q.radiusMi) places.push(p);
      }
      pageToken =
        typeof body.nextPageToken === "string" && body.nextPageToken ? body.nextPageToken : undefined;
    } while (pageToken && calls < 3);
    return { places, calls, full: !!pageToken, rankedByDistance: false };
  }

  private async post(
    path: string,
    payload: unknown,
    fields: string[],
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const f = this.opts.fetch ?? fetch;
    const backoff = this.opts.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await f(`${this.base}${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "X-Goog-Api-Key": this.opts.apiKey,
            "X-Goog-FieldMask": fields.join(","),
          },
          body: JSON.stringify(payload),
          signal: signal ?? AbortSignal.timeout(15_000),
        });
      } catch (e) {
        if (attempt < 3) {
          await sleep(backoff * 2 ** attempt);
          continue;
        }
        throw new ProviderError(`Google Places could not be reached: ${(e as Error).message}`, {
          transient: true,
        });
      }
      const text = await res.text();
      let body: Record<string, unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      if (res.ok) return body;
      const err = (body.error ?? {}) as { message?: string; status?: string };
      if ((res.status === 429 || res.status >= 500) && attempt < 3) {
        await sleep(backoff * 2 ** attempt);
        continue;
      }
      if (res.status === 403)
        throw new ProviderError(
          `Google Places refused the API key (${err.status ?? "PERMISSION_DENIED"}): ${err.message ?? "forbidden"}. Check GOOGLE_PLACES_API_KEY, that the Places API (New) is enabled for it and that billing is on.`,
          { transient: false, httpStatus: 403, vendorCode: err.status },
        );
      if (res.status === 429)
        throw new ProviderError(
          "Google Places quota is exhausted (429 RESOURCE_EXHAUSTED) after 3 retries. Try again later or raise the quota.",
          { transient: true, httpStatus: 429, vendorCode: err.status },
        );
      throw new ProviderError(
        `Google Places answered ${res.status}${err.status ? ` ${err.status}` : ""}: ${err.message ?? "no details"}`,
        { transient: res.status >= 500, httpStatus: res.status, vendorCode: err.status },
      );
    }
  }
}

function toPlace(g: GPlace): Place {
  const addr = g.formattedAddress ?? undefined;
  const zip = addr?.match(/\b([A-Z]{2}) (\d{5})(?:-\d{4})?\b/);
  const city = addr?.split(",").map((s) => s.trim());
  return {
    placeId: g.id,
    name: g.displayName?.text ?? "(no name)",
    lat: g.location?.latitude ?? 0,
    lng: g.location?.longitude ?? 0,
    address: addr,
    city: city && city.length >= 3 ? city[city.length - 3] : undefined,
    state: zip?.[1],
    postalCode: zip?.[2],
    types: g.types ?? [],
    rating: g.rating ?? null,
    reviewCount: g.userRatingCount ?? 0,
    priceLevel: g.priceLevel ? (PRICE[g.priceLevel] ?? null) : null,
    phone: g.nationalPhoneNumber ?? null,
    website: g.websiteUri ?? null,
    hours: { openNow: g.currentOpeningHours?.openNow ?? null },
    businessStatus: g.businessStatus,
    attribution: "Google Maps",
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function miles(lat1: number, lng1: number, lat2: number, lng2: number) {
  const toR = Math.PI / 180;
  const h =
    Math.sin(((lat2 - lat1) * toR) / 2) ** 2 +
    Math.cos(lat1 * toR) * Math.cos(lat2 * toR) * Math.sin(((lng2 - lng1) * toR) / 2) ** 2;
  return 2 * 3958.7613 * Math.asin(Math.min(1, Math.sqrt(h)));
}
