import { createHash } from "node:crypto";
import zipcodes from "zipcodes";
import {
  type NearbyAnswer,
  type NearbyQuery,
  PLACE_ATTRIBUTES,
  type Place,
  type PlacesProvider,
} from "./index";
import { openNowAt } from "./osm";

const MI_PER_DEG_LAT = 69.055;

interface Zip {
  zip: string;
  lat: number;
  lng: number;
  city: string;
  state: string;
}

/** US ZIP centroids (the `zipcodes` package, US Census ZCTA data) in 0.25° buckets, built once. */
let zipIndex: Map<string, Zip[]> | null = null;
function buckets(): Map<string, Zip[]> {
  if (zipIndex) return zipIndex;
  zipIndex = new Map();
  const codes = (
    zipcodes as unknown as {
      codes: Record<
        string,
        { zip: string; latitude: number; longitude: number; city: string; state: string; country: string }
      >;
    }
  ).codes;
  for (const z of Object.values(codes)) {
    if (z.country !== "US" || !/^\d{5}$/.test(z.zip)) continue;
    const k = bucketKey(z.latitude, z.longitude);
    const arr = zipIndex.get(k) ?? [];
    arr.push({ zip: z.zip, lat: z.latitude, lng: z.longitude, city: z.city, state: z.state });
    zipIndex.set(k, arr);
  }
  return zipIndex;
}
const bucketKey = (lat: number, lng: number) => `${Math.floor(lat * 4)}:${Math.floor(lng * 4)}`;

/** Deterministic pseudo-random stream from a seed string (SHA-256 blocks). */
function rng(seed: string) {
  let block = createHash("sha256").update(seed).digest();
  let i = 0;
  let n = 0;
  return () => {
    if (i + 4 > block.length) {
      block = createHash("sha256").update(block).update(String(++n)).digest();
      i = 0;
    }
    const v = block.readUInt32BE(i) / 2 ** 32;
    i += 4;
    return v;
  };
}

const SURNAMES = [
  "Miller",
  "Garcia",
  "Johnson",
  "Nguyen",
  "Patel",
  "Brooks",
  "Rivera",
  "Kowalski",
  "Okafor",
  "Lindqvist",
  "Harper",
  "Delgado",
  "Chen",
  "Whitfield",
  "Moreau",
  "Summit",
  "Lakeside",
  "Riverbend",
  "Oak Street",
  "Main Street",
  "Northside",
  "Evergreen",
  "Pioneer",
  "Cornerstone",
];
const SUFFIXES = [
  "& Sons",
  "Co.",
  "Group",
  "Pros",
  "Experts",
  "Studio",
  "Center",
  "Services",
  "Partners",
  "Works",
];
const LANGS = ["English", "Spanish", "Vietnamese", "Chinese", "Polish", "Arabic", "French", "Tagalog"];
const CERTS = [
  "EPA Certified",
  "NATE Certified",
  "ADA Member",
  "ASE Certified",
  "LEED",
  "OSHA 30",
  "ServSafe",
];
const BBB = ["A+", "A", "A-", "B+", "B", "C", "D", "F"];
const AGE = ["18-24", "25-34", "35-44", "45-54", "55-64", "65+", "families"];
const INCOME = ["low", "middle", "upper-middle", "high"];

const title = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** The business type as a display word: "hvac contractors" -> "HVAC Contractors". */
function typeWord(t: string): string {
  const w = t.trim().replace(/\s+/g, " ");
  return w.length <= 4 ? w.toUpperCase() : title(w);
}

/**
 * The local (offline, default) places provider: deterministic demo businesses around real US places.
 * Each US ZIP centroid gets 0-4 businesses of the searched type (seeded by ZIP and type, so the same
 * search always gives the same businesses), scattered within about 1.5 miles of the centroid, with every
 * attribute the filters need (ratings, hours, ownership, payments, ...). Every place carries
 * `demo: true` and the screen labels it 'Demo data'. Phones use the 555-01XX range reserved for
 * fiction; websites and emails use the reserved `.example` domain. Answers hold the 20 nearest places
 * (`rankedByDistance`, like Google with rankPreference DISTANCE) and say when more exist.
 */
export class LocalPlacesProvider implements PlacesProvider {
  readonly name = "local" as const;
  readonly label = "Demo data";
  readonly attribution = "Demo data: invented businesses around real US ZIP codes";
  readonly attributes = new Set(PLACE_ATTRIBUTES.filter((a) => a !== "dnc"));
  readonly perRequestCap: number;
  readonly maxRadiusMi = 31;
  readonly ratePerSecond = 10_000;
  readonly concurrency = 8;
  private readonly cache = new Map<string, Place[]>();

  private readonly clock: () => Date;

  constructor(opts: { perRequestCap?: number; clock?: () => Date } = {}) {
    this.perRequestCap = opts.perRequestCap ?? 20;
    this.clock = opts.clock ?? (() => new Date());
  }

  async searchNearby(q: NearbyQuery): Promise<NearbyAnswer> {
    const type = q.businessType.trim().toLowerCase().replace(/\s+/g, " ");
    const dLat = q.radiusMi / MI_PER_DEG_LAT + 0.05;
    const dLng = q.radiusMi / (MI_PER_DEG_LAT * Math.max(0.2, Math.cos((q.lat * Math.PI) / 180))) + 0.05;
    const idx = buckets();
    const hits: { p: Place; d: number }[] = [];
    for (let a = Math.floor((q.lat - dLat) * 4); a <= Math.floor((q.lat + dLat) * 4); a++) {
      for (let b = Math.floor((q.lng - dLng) * 4); b <= Math.floor((q.lng + dLng) * 4); b++) {
        for (const z of idx.get(`${a}:${b}`) ?? []) {
          for (const p of this.placesOf(z, type)) {
            const d = miles(q.lat, q.lng, p.lat, p.lng);
            if (d <= q.radiusMi) hits.push({ p, d });
          }
        }
      }
    }
    hits.sort((x, y) => x.d - y.d || (x.p.placeId < y.p.placeId ? -1 : 1));
    const now = this.clock();
    return {
      places: hits.slice(0, this.perRequestCap).map((h) => withOpenNow(h.p, now)),
      calls: 1,
      full: hits.length > this.perRequestCap,
      rankedByDistance: true,
    };
  }

  /** The demo businesses of one ZIP for one business type (memoised). */
  private placesOf(z: Zip, type: string): Place[] {
    const key = `${z.zip}|${type}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const r = rng(key);
    const count = Math.floor(r() * 5); // 0-4
    const out: Place[] = [];
    for (let i = 0; i < count; i++) out.push(this.invent(z, type, i, r));
    if (this.cache.size > 200_000) this.cache.clear();
    this.cache.set(key, out);
    return out;
  }

  private invent(z: Zip, type: string, i: number, r: () => number): Place {
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
    const chance = (p: number) => r() < p;
    const ang = r() * 2 * Math.PI;
    const dist = Math.sqrt(r()) * 1.5;
    const lat = z.lat + (dist * Math.cos(ang)) / MI_PER_DEG_LAT;
    const lng = z.lng + (dist * Math.sin(ang)) / (MI_PER_DEG_LAT * Math.cos((z.lat * Math.PI) / 180));
    const name = `${pick(SURNAMES)} ${typeWord(type)}${chance(0.4) ? ` ${pick(SUFFIXES)}` : ""}`;
    const hasSite = chance(0.7);
    const domain = `${slug(name)}-${z.zip}.example`;
    const rating = chance(0.9) ? Math.round((2.5 + r() * 2.5) * 10) / 10 : null;
    const reviewCount = rating === null ? 0 : Math.floor(r() ** 2 * 600);
    const reviewAges = Array.from({ length: Math.min(reviewCount, Math.floor(r() * 12)) }, () =>
      Math.floor(r() * 365),
    ).sort((a, b) => a - b);
    const status = chance(0.92) ? "OPERATIONAL" : chance(0.6) ? "CLOSED_TEMPORARILY" : "CLOSED_PERMANENTLY";
    const openHour = 6 + Math.floor(r() * 4);
    const closeHour = 16 + Math.floor(r() * 8);
    const weekends = chance(0.55);
    const h24 = chance(0.05);
    const years = Math.floor(r() ** 2 * 60);
    const employees = 1 + Math.floor(r() ** 3 * 250);
    const street = `${100 + Math.floor(r() * 9800)} ${pick(["Main", "Oak", "Maple", "Washington", "Lake", "Hill", "Park", "Cedar", "Elm", "Pine"])} ${pick(["St", "Ave", "Rd", "Blvd", "Dr"])}`;
    const tri = (p: number) => (chance(0.15) ? null : chance(p));
    return {
      placeId: `demo:${z.zip}:${slug(type)}:${i}`,
      name,
      lat,
      lng,
      address: `${street}, ${z.city}, ${z.state} ${z.zip}`,
      city: z.city,
      state: z.state,
      postalCode: z.zip,
      types: [slug(type).replace(/-/g, "_"), "point_of_interest", "establishment"],
      rating,
      reviewCount,
      reviewAgesDays: reviewAges,
      ownerRespondsToReviews: chance(0.4),
      noNegativeReviews: rating !== null && rating >= 4.5 && chance(0.5),
      fiveStarShare: rating === null ? 0 : Math.max(0, Math.min(1, (rating - 2.5) / 2.5 - 0.1 + r() * 0.2)),
      priceLevel: chance(0.8) ? 1 + Math.floor(r() * 4) : null,
      photoCount: Math.floor(r() * 80),
      phone: chance(0.85)
        ? `(${pick(["212", "312", "415", "512", "617", "713", "989", "303", "404", "206"])}) 555-01${String(Math.floor(r() * 100)).padStart(2, "0")}`
        : null,
      website: hasSite ? `https://www.${domain}` : null,
      email: hasSite && chance(0.5) ? `info@${domain}` : null,
      socials: {
        facebook: chance(0.5) ? `https://facebook.com/${slug(name)}` : undefined,
        instagram: chance(0.35) ? `https://instagram.com/${slug(name).replace(/-/g, "")}` : undefined,
        linkedin: chance(0.2) ? `https://linkedin.com/company/${slug(name)}` : undefined,
        twitter: chance(0.15) ? `https://x.com/${slug(name).replace(/-/g, "").slice(0, 15)}` : undefined,
        youtube: chance(0.08) ? `https://youtube.com/@${slug(name).replace(/-/g, "")}` : undefined,
      },
      hasContactForm: hasSite && chance(0.6),
      hours: {
        openNow: status === "OPERATIONAL" ? chance(0.6) : false,
        openWeekends: h24 || weekends,
        openSundays: h24 || (weekends && chance(0.5)),
        open24Hours: h24,
        openLate: h24 || closeHour >= 21,
        openEarly: h24 || openHour < 7,
        seasonal: chance(0.05),
        hasHolidayHours: chance(0.3),
        text: h24
          ? "24/7"
          : `Mo-Fr ${String(openHour).padStart(2, "0")}:00-${closeHour}:00${weekends ? `; Sa ${String(openHour + 1).padStart(2, "0")}:00-${closeHour - 2}:00` : ""}`,
      },
      businessStatus: status,
      recentlyOpened: years === 0,
      hoursUpdatedRecently: chance(0.3),
      brand: chance(0.12) ? `${pick(SURNAMES)} ${typeWord(type)} (chain)` : null,
      ownership: {
        franchise: chance(0.1),
        homeBased: chance(0.15),
        womenOwned: chance(0.3),
        veteranOwned: chance(0.1),
        minorityOwned: chance(0.25),
        familyOwned: chance(0.4),
      },
      employees,
      locationsCount: chance(0.85) ? 1 : 2 + Math.floor(r() * 20),
      yearsInBusiness: years,
      credentials: {
        licensed: chance(0.7),
        insured: chance(0.65),
        bonded: chance(0.3),
        bbbAccredited: chance(0.25),
        certifications: chance(0.4) ? [pick(CERTS)] : [],
        awards: chance(0.15),
        press: chance(0.1),
      },
      bbbRating: chance(0.6) ? pick(BBB) : null,
      listing: { verified: chance(0.6), claimed: chance(0.7) },
      services: {
        delivery: chance(0.3),
        takeout: chance(0.3),
        dineIn: chance(0.25),
        reservations: chance(0.25),
        onlineBooking: chance(0.4),
        freeEstimates: chance(0.4),
        emergency: chance(0.2),
        mobileService: chance(0.25),
        financing: chance(0.2),
      },
      languages: ["English", ...(chance(0.35) ? [pick(LANGS.slice(1))] : [])],
      serviceAreas: [z.city, ...(chance(0.5) ? [`${z.state} statewide`] : [])],
      demographics: { ageGroup: pick(AGE), income: pick(INCOME) },
      accessibility: { wheelchair: tri(0.7) },
      healthSafety: { smokeFree: tri(0.9), petFriendly: tri(0.3), safetyCertified: tri(0.2) },
      inspectionPassed: tri(0.85),
      payments: {
        creditCards: tri(0.9),
        debitCards: tri(0.85),
        cash: tri(0.8),
        contactless: tri(0.6),
        mobile: tri(0.5),
        crypto: tri(0.05),
        checks: tri(0.3),
      },
      environmental: {
        ecoFriendly: tri(0.25),
        recycling: tri(0.35),
        evCharging: tri(0.08),
        greenCertified: tri(0.1),
        organic: tri(0.15),
        solar: tri(0.07),
      },
      demo: true,
      attribution: "Demo data",
    };
  }
}

/**
 * The place with `hours.openNow` read from its own opening hours text at `now`, in its time zone (the
 * opening_hours package, as for OpenStreetMap): a demo business is never "Open now" outside the hours
 * it shows. A business not operating is closed.
 */
function withOpenNow(p: Place, now: Date): Place {
  if (!p.hours) return p;
  const open =
    p.businessStatus && p.businessStatus !== "OPERATIONAL"
      ? false
      : p.hours.text
        ? openNowAt(p.hours.text, now, { lat: p.lat, lng: p.lng })
        : p.hours.openNow;
  return { ...p, hours: { ...p.hours, openNow: open } };
}

function miles(lat1: number, lng1: number, lat2: number, lng2: number) {
  const toR = Math.PI / 180;
  const dφ = (lat2 - lat1) * toR;
  const dλ = (lng2 - lng1) * toR;
  const h = Math.sin(dφ / 2) ** 2 + Math.cos(lat1 * toR) * Math.cos(lat2 * toR) * Math.sin(dλ / 2) ** 2;
  return 2 * 3958.7613 * Math.asin(Math.min(1, Math.sqrt(h)));
}
