import { DateTime } from "luxon";
import OpeningHours from "opening_hours";
import { timeZoneAt } from "../../lib/time-zone-at";
import { ProviderError } from "../errors";
import type { NearbyAnswer, NearbyQuery, Place, PlaceAttribute, PlaceHours, PlacesProvider } from "./index";

const METRES_PER_MILE = 1609.34;
/** elements one Overpass answer may hold before we call it full and split the circle */
const OSM_CAP = 500;

/** Business type words -> OSM tag selectors (wiki.openstreetmap.org Map features). */
const OSM_TAGS: Record<string, string[]> = {
  restaurant: ['["amenity"="restaurant"]'],
  dentist: ['["amenity"="dentist"]', '["healthcare"="dentist"]'],
  plumber: ['["craft"="plumber"]'],
  hvac: ['["craft"="hvac"]'],
  roofer: ['["craft"="roofer"]'],
  "real estate": ['["office"="estate_agent"]'],
  salon: ['["shop"="hairdresser"]', '["shop"="beauty"]'],
  "hair salon": ['["shop"="hairdresser"]'],
  "auto repair": ['["shop"="car_repair"]'],
  lawyer: ['["office"="lawyer"]'],
  "law firm": ['["office"="lawyer"]'],
  gym: ['["leisure"="fitness_centre"]'],
  chiropractor: ['["healthcare"="chiropractor"]', '["healthcare:speciality"="chiropractic"]'],
  landscaper: ['["craft"="gardener"]', '["landscape"="yes"]'],
  electrician: ['["craft"="electrician"]'],
  cafe: ['["amenity"="cafe"]'],
  bakery: ['["shop"="bakery"]'],
  florist: ['["shop"="florist"]'],
  pharmacy: ['["amenity"="pharmacy"]'],
  veterinarian: ['["amenity"="veterinary"]'],
  accountant: ['["office"="accountant"]'],
};

/** "Dentists", "law firms" -> the OSM_TAGS key, or null (then a name search). */
function tagKey(type: string): string | null {
  const t = type.trim().toLowerCase().replace(/\s+/g, " ");
  if (OSM_TAGS[t]) return t;
  const singular = t.replace(/(?:es|s)$/, "");
  if (OSM_TAGS[singular]) return singular;
  const s2 = t.replace(/s$/, "");
  if (OSM_TAGS[s2]) return s2;
  if (/hvac|heating|air condition/.test(t)) return "hvac";
  if (/roof/.test(t)) return "roofer";
  if (/real estate|realtor/.test(t)) return "real estate";
  if (/lawyer|attorney|law firm/.test(t)) return "lawyer";
  if (/landscap/.test(t)) return "landscaper";
  if (/auto|car repair|mechanic/.test(t)) return "auto repair";
  if (/chiropract/.test(t)) return "chiropractor";
  return null;
}

/** Builds the Overpass QL query for one circle (around: radius in metres). */
export function overpassQuery(q: NearbyQuery): string {
  const around = `(around:${Math.round(q.radiusMi * METRES_PER_MILE)},${q.lat.toFixed(6)},${q.lng.toFixed(6)})`;
  const key = tagKey(q.businessType);
  const selectors = key
    ? (OSM_TAGS[key] ?? []).map((s) => `nwr${s}${around};`)
    : ["shop", "amenity", "craft", "office", "healthcare"].map(
        (k) =>
          `nwr["${k}"]["name"~"${q.businessType.replace(/[^\p{L}\p{N} &'-]/gu, "").trim()}",i]${around};`,
      );
  return `[out:json][timeout:25];\n(\n  ${selectors.join("\n  ")}\n);\nout center tags ${OSM_CAP + 1};`;
}

interface OsmElement {
  type: "node" | "way" | "relation";
  id: number;
  lat?: number;
  lon?: number;
  center?: { lat: number; lon: number };
  tags?: Record<string, string>;
}

const yes = (v: string | undefined): boolean | null =>
  v === undefined ? null : v === "yes" || v === "only" || v === "designated";

/** Where a place is, for reading its opening hours: coordinates and its ISO 3166-1 country code. */
export interface HoursPlace {
  lat: number;
  lng: number;
  /** ISO 3166-1 alpha-2 (OSM `addr:country`), default "us"; names the public holidays of `PH` */
  country?: string;
}

/**
 * `now` as a Date whose local (process time zone) fields read the wall-clock time in `zone`: the
 * `opening_hours` package evaluates rules with a Date's local getters, so this makes it answer in the
 * place's time zone whatever the server's is.
 */
function wallClock(now: Date, zone: string): Date {
  const w = DateTime.fromJSDate(now).setZone(zone);
  return new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond);
}

/**
 * An opening_hours value parsed for `where` (its coordinates and country's public holidays, `PH`;
 * without `where`, no holidays) and `now` as the wall-clock time in the place's time zone (the
 * process's zone when `where` is not given or its zone is unknown).
 * @throws the `opening_hours` package's error for a value it cannot parse.
 */
function openingHoursAt(value: string, now: Date, where?: HoursPlace): { oh: OpeningHours; local: Date } {
  const zone = where ? timeZoneAt(where.lat, where.lng) : null;
  const oh = new OpeningHours(
    value,
    where
      ? {
          lat: where.lat,
          lon: where.lng,
          address: { country_code: (where.country ?? "us").toLowerCase(), state: "" },
        }
      : null,
  );
  return { oh, local: zone ? wallClock(now, zone) : now };
}

/**
 * Opening-hours facts from an OSM opening_hours value, parsed by the `opening_hours` package (the OSM
 * wiki's reference implementation) and evaluated in the place's own time zone (IANA zone of its
 * coordinates; the process's zone when `where` is not given) with its country's public holidays (`PH`,
 * from `where.country`, default US). `openNow` is at `now`; the weekly facts (weekends, late, early,
 * 24/7) read the seven days from the start of the place's local day. A value the package cannot parse
 * keeps its text with `openNow: null`.
 */
export function hoursFrom(
  value: string | undefined,
  now = new Date(),
  where?: HoursPlace,
): PlaceHours | undefined {
  if (!value) return undefined;
  try {
    const { oh, local } = openingHoursAt(value, now, where);
    const weekStart = new Date(local);
    weekStart.setHours(0, 0, 0, 0);
    const weekEnd = new Date(weekStart.getTime() + 7 * 86_400_000);
    const iv = oh.getOpenIntervals(weekStart, weekEnd);
    const days = new Set<number>();
    let late = false;
    let early = false;
    for (const [from, to] of iv) {
      for (let t = from.getTime(); t < to.getTime(); t += 3_600_000) days.add(new Date(t).getDay());
      if (to.getHours() >= 21 || to.getDate() !== from.getDate() || to.getHours() === 0) late = true;
      if (from.getHours() < 7) early = true;
    }
    const total = iv.reduce((s, [a, b]) => s + (b.getTime() - a.getTime()), 0);
    return {
      openNow: oh.getState(local),
      openWeekends: days.has(0) || days.has(6),
      openSundays: days.has(0),
      open24Hours: total >= 7 * 86_400_000 - 60_000,
      openLate: late,
      openEarly: early,
      seasonal: /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/.test(value),
      hasHolidayHours: /\bPH\b|\bSH\b/.test(value),
      text: value,
    };
  } catch {
    return { openNow: null, text: value };
  }
}

/**
 * Whether an opening_hours value says open at `now` in the place's time zone (see hoursFrom); null
 * when the value cannot be parsed. Cheaper than hoursFrom (no weekly facts).
 */
export function openNowAt(value: string, now: Date, where: HoursPlace): boolean | null {
  try {
    const { oh, local } = openingHoursAt(value, now, where);
    return oh.getState(local);
  } catch {
    return null;
  }
}

/** Maps one Overpass element to a Place (attributes only from tags that exist). */
export function osmToPlace(e: OsmElement, now = new Date()): Place | null {
  const t = e.tags ?? {};
  const lat = e.lat ?? e.center?.lat;
  const lng = e.lon ?? e.center?.lon;
  if (!t.name || lat === undefined || lng === undefined) return null;
  const street = [t["addr:housenumber"], t["addr:street"]].filter(Boolean).join(" ");
  const address =
    [street, t["addr:city"], [t["addr:state"], t["addr:postcode"]].filter(Boolean).join(" ")]
      .filter(Boolean)
      .join(", ") || undefined;
  const start = t.start_date?.match(/^(\d{4})/)?.[1];
  const pay = (k: string) => yes(t[`payment:${k}`]);
  return {
    placeId: `${e.type}/${e.id}`,
    name: t.name,
    lat,
    lng,
    address: street ? address : undefined,
    city: t["addr:city"],
    state: t["addr:state"],
    postalCode: t["addr:postcode"]?.slice(0, 5),
    types: ["shop", "amenity", "craft", "office", "healthcare", "leisure"]
      .filter((k) => t[k])
      .map((k) => `${k}=${t[k]}`),
    phone: t.phone ?? t["contact:phone"] ?? null,
    website: t.website ?? t["contact:website"] ?? null,
    email: t.email ?? t["contact:email"] ?? null,
    socials: {
      facebook: t["contact:facebook"],
      instagram: t["contact:instagram"],
      linkedin: t["contact:linkedin"],
      twitter: t["contact:twitter"],
      youtube: t["contact:youtube"],
    },
    hours: hoursFrom(t.opening_hours, now, { lat, lng, country: t["addr:country"] }) ?? { openNow: null },
    brand: t.brand ?? null,
    yearsInBusiness: start ? Math.max(0, now.getFullYear() - Number(start)) : null,
    services: {
      delivery: yes(t.delivery) ?? undefined,
      takeout: yes(t.takeaway) ?? undefined,
      dineIn: t.amenity === "restaurant" || t.amenity === "cafe" ? t.indoor_seating !== "no" : undefined,
      reservations: yes(t.reservation) ?? undefined,
    },
    accessibility: { wheelchair: t.wheelchair === undefined ? null : t.wheelchair === "yes" },
    healthSafety: {
      smokeFree: t.smoking === undefined ? null : t.smoking === "no",
      petFriendly: yes(t.dog),
      safetyCertified: null,
    },
    payments: {
      creditCards: pay("credit_cards"),
      debitCards: pay("debit_cards"),
      cash: pay("cash"),
      contactless: pay("contactless"),
      mobile: pay("apple_pay") ?? pay("google_pay"),
      crypto: pay("cryptocurrencies") ?? pay("bitcoin"),
      checks: pay("cheque"),
    },
    attribution: "© OpenStreetMap contributors (ODbL)",
  };
}

/**
 * OpenStreetMap through the Overpass API (OVERPASS_URL; free, no key; use a self-hosted instance for
 * production volumes: the public one allows about 2 concurrent queries per IP). One `around:` query
 * per circle with the business type mapped to shop/amenity/craft/office/healthcare tags (a
 * case-insensitive name match for other types); `out center tags` gives ways and relations a centre.
 * Data © OpenStreetMap contributors, ODbL: the screen shows the attribution.
 */
export class OsmPlacesProvider implements PlacesProvider {
  readonly name = "osm" as const;
  readonly label = "OpenStreetMap";
  readonly attribution = "© OpenStreetMap contributors (ODbL)";
  readonly attributes = new Set<PlaceAttribute>([
    "location",
    "address",
    "types",
    "phone",
    "website",
    "email",
    "webPresence",
    "openNow",
    "openingHours",
    "brand",
    "yearsInBusiness",
    "services",
    "accessibility",
    "healthSafety",
    "payments",
    "crm",
  ]);
  readonly perRequestCap = OSM_CAP;
  readonly maxRadiusMi = 10;
  readonly ratePerSecond: number;
  readonly concurrency = 2;

  constructor(private readonly opts: { url: string; ratePerSecond?: number; backoffMs?: number }) {
    this.ratePerSecond = opts.ratePerSecond ?? 1;
  }

  async searchNearby(q: NearbyQuery): Promise<NearbyAnswer> {
    const body = new URLSearchParams({ data: overpassQuery(q) }).toString();
    const backoff = this.opts.backoffMs ?? 1000;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.opts.url, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "user-agent": "Pitchwise lead search",
          },
          body,
          signal: q.signal ?? AbortSignal.timeout(30_000),
        });
      } catch (e) {
        if (attempt < 2) {
          await new Promise((r) => setTimeout(r, backoff * 2 ** attempt));
          continue;
        }
        throw new ProviderError(`The Overpass API could not be reached: ${(e as Error).message}`, {
          transient: true,
        });
      }
      if ((res.status === 429 || res.status === 504) && attempt < 2) {
        await new Promise((r) => setTimeout(r, backoff * 2 ** attempt));
        continue;
      }
      if (!res.ok)
        throw new ProviderError(
          `The Overpass API answered ${res.status}${res.status === 429 ? " (too many requests: use a self-hosted OVERPASS_URL)" : ""}`,
          { transient: res.status === 429 || res.status >= 500, httpStatus: res.status },
        );
      const json = (await res.json()) as { elements?: OsmElement[]; remark?: string };
      if (json.remark && /runtime error|timed out/i.test(json.remark))
        throw new ProviderError(`The Overpass API could not finish the query: ${json.remark}`, {
          transient: true,
        });
      const elements = json.elements ?? [];
      const now = new Date();
      const places = elements.map((e) => osmToPlace(e, now)).filter((p): p is Place => p !== null);
      return {
        places: places.slice(0, OSM_CAP),
        calls: 1,
        full: elements.length > OSM_CAP,
        rankedByDistance: false,
      };
    }
  }
}
