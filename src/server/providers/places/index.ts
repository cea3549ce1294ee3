/**
 * Places providers for the business lead search (issue 13): `local` (offline demo businesses, the
 * default), `osm` (OpenStreetMap through the Overpass API) and `google` (Places API (New) over fetch).
 * Chosen by PLACES_PROVIDER. Code reaches them through `ctx.providers.places`.
 */

/**
 * Attributes a place can carry. Each search filter names the attribute it needs; each provider
 * declares the attributes it supplies (`PlacesProvider.attributes`). A filter whose attribute the
 * active provider does not supply is refused with a 422 (never ignored, never faked).
 */
export const PLACE_ATTRIBUTES = [
  "location",
  "address",
  "types",
  "rating",
  "reviewCount",
  "reviewDetails",
  "priceLevel",
  "photos",
  "phone",
  "website",
  "email",
  "webPresence",
  "openNow",
  "openingHours",
  "businessStatus",
  "brand",
  "ownership",
  "employees",
  "yearsInBusiness",
  "credentials",
  "bbbRating",
  "listingStatus",
  "services",
  "languages",
  "serviceAreas",
  "demographics",
  "accessibility",
  "healthSafety",
  "inspections",
  "payments",
  "environmental",
  "crm",
  "dnc",
] as const;
export type PlaceAttribute = (typeof PLACE_ATTRIBUTES)[number];

/** Opening-hours facts derived from a provider's hours. */
export interface PlaceHours {
  /** open at the time of the search; null when unknown */
  openNow: boolean | null;
  openWeekends?: boolean;
  open24Hours?: boolean;
  /** open after 21:00 on some day */
  openLate?: boolean;
  /** open before 07:00 on some day */
  openEarly?: boolean;
  openSundays?: boolean;
  seasonal?: boolean;
  hasHolidayHours?: boolean;
  /** the provider's text, e.g. an OSM opening_hours value or Google weekday descriptions */
  text?: string;
}

/**
 * One business as a provider returns it. Only `placeId`, `name`, `lat`, `lng` are always present;
 * every other field is present only when the provider supplies its attribute (undefined otherwise,
 * never guessed). Booleans of a supplied attribute are true/false.
 */
export interface Place {
  /** provider-scoped stable id (Google place id, OSM "node/123", local "demo:...") */
  placeId: string;
  name: string;
  lat: number;
  lng: number;
  address?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  types?: string[];
  rating?: number | null;
  reviewCount?: number | null;
  /** reviews in the last N days: [{ageDays}] newest first (local demo only) */
  reviewAgesDays?: number[];
  ownerRespondsToReviews?: boolean;
  noNegativeReviews?: boolean;
  fiveStarShare?: number;
  priceLevel?: number | null;
  photoCount?: number;
  phone?: string | null;
  website?: string | null;
  email?: string | null;
  socials?: { facebook?: string; instagram?: string; linkedin?: string; twitter?: string; youtube?: string };
  hasContactForm?: boolean;
  hours?: PlaceHours;
  /** OPERATIONAL | CLOSED_TEMPORARILY | CLOSED_PERMANENTLY (Google's enum) */
  businessStatus?: "OPERATIONAL" | "CLOSED_TEMPORARILY" | "CLOSED_PERMANENTLY";
  recentlyOpened?: boolean;
  hoursUpdatedRecently?: boolean;
  brand?: string | null;
  ownership?: {
    franchise: boolean;
    homeBased: boolean;
    womenOwned: boolean;
    veteranOwned: boolean;
    minorityOwned: boolean;
    familyOwned: boolean;
  };
  employees?: number;
  /** number of locations of the business (1 = single location) */
  locationsCount?: number;
  yearsInBusiness?: number | null;
  credentials?: {
    licensed: boolean;
    insured: boolean;
    bonded: boolean;
    bbbAccredited: boolean;
    certifications: string[];
    awards: boolean;
    press: boolean;
  };
  bbbRating?: string | null;
  listing?: { verified: boolean; claimed: boolean };
  services?: {
    delivery?: boolean;
    takeout?: boolean;
    dineIn?: boolean;
    reservations?: boolean;
    onlineBooking?: boolean;
    freeEstimates?: boolean;
    emergency?: boolean;
    mobileService?: boolean;
    financing?: boolean;
  };
  languages?: string[];
  serviceAreas?: string[];
  demographics?: { ageGroup: string; income: string };
  accessibility?: { wheelchair: boolean | null };
  healthSafety?: { smokeFree: boolean | null; petFriendly: boolean | null; safetyCertified: boolean | null };
  inspectionPassed?: boolean | null;
  payments?: {
    creditCards: boolean | null;
    debitCards: boolean | null;
    cash: boolean | null;
    contactless: boolean | null;
    mobile: boolean | null;
    crypto: boolean | null;
    checks: boolean | null;
  };
  environmental?: {
    ecoFriendly: boolean | null;
    recycling: boolean | null;
    evCharging: boolean | null;
    greenCertified: boolean | null;
    organic: boolean | null;
    solar: boolean | null;
  };
  /** true for the local provider's invented businesses: shown as 'Demo data' */
  demo?: boolean;
  /** provider attribution to show with the result (e.g. '© OpenStreetMap contributors') */
  attribution?: string;
}

/** One provider request: a circle (miles) and what to look for. */
export interface NearbyQuery {
  lat: number;
  lng: number;
  radiusMi: number;
  /** the user's business type text, e.g. "dentist", "HVAC contractors" */
  businessType: string;
  signal?: AbortSignal;
}

export interface NearbyAnswer {
  places: Place[];
  /** HTTP calls this answer cost (a paged text search costs one per page) */
  calls: number;
  /** the answer hit the provider's per-request cap: more places may exist in the circle */
  full: boolean;
  /**
   * the places are the ones nearest the circle's centre (Google `rankPreference: DISTANCE`), so even a
   * full answer is complete up to the distance of its farthest place
   */
  rankedByDistance: boolean;
}

export interface PlacesProvider {
  readonly name: "local" | "osm" | "google";
  /** human label shown in the summary, e.g. 'Demo data', 'OpenStreetMap', 'Google' */
  readonly label: string;
  /** attribution text the screen must show with results */
  readonly attribution: string;
  /** the attributes this provider supplies (filters needing others are refused) */
  readonly attributes: ReadonlySet<PlaceAttribute>;
  /** most places one request can return (Google Nearby Search: 20) */
  readonly perRequestCap: number;
  /** largest circle one request may ask for, miles (Google: 50,000 m) */
  readonly maxRadiusMi: number;
  /** requests per second this provider should receive from one search */
  readonly ratePerSecond: number;
  /** parallel requests per search */
  readonly concurrency: number;
  /**
   * Places within the circle matching the business type. Throws ProviderError (transient for 429/5xx,
   * permanent with a readable message for key or quota problems).
   */
  searchNearby(q: NearbyQuery): Promise<NearbyAnswer>;
}
