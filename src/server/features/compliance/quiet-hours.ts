import { createRequire } from "node:module";
import ct from "countries-and-timezones";
import { getCountryCallingCode, parsePhoneNumberFromString } from "libphonenumber-js/min";
import { DateTime } from "luxon";
import { isE164, isPhoneCountry } from "../../lib/phone";
import { timeZoneAt } from "../../lib/time-zone-at";

/**
 * Quiet hours for SMS, calls and ringless voicemail: send only between 08:00 and 21:00 in the
 * recipient's local time (TCPA, 47 CFR 64.1200(c)(1); several state "mini-TCPA" laws are stricter,
 * which is why the window is not widened).
 */
export const QUIET_HOURS = { startHour: 8, endHour: 21 } as const;

/** Time zones used when a contact's zone cannot be derived: the window must hold in both. */
export const FALLBACK_ZONES = ["America/New_York", "America/Los_Angeles"] as const;

const require = createRequire(import.meta.url);
interface ZipInfo {
  latitude: number;
  longitude: number;
}
/** zipcodes (offline US ZIP data) ships no types: the part used here. */
const zipcodes = require("zipcodes") as {
  lookup(zip: string): ZipInfo | undefined;
  lookupByName(city: string, state: string): ZipInfo[];
  lookupByState(state: string): ZipInfo[];
  states: { normalize(state: string): string | undefined };
};
type AreaCodeEntry = { stateCode?: string; location?: { latitude: number; longitude: number } };
let areaCodes: Record<string, AreaCodeEntry> | null = null;
function areaCodeData(): Record<string, AreaCodeEntry> {
  areaCodes ??= require("areacodes/lib/data.json") as Record<string, AreaCodeEntry>;
  return areaCodes;
}

const formatters = new Map<string, Intl.DateTimeFormat | null>();
/** A cached hour/minute formatter for `zone` (building one costs ~100 µs), or null for an invalid zone. */
function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hour: "numeric",
        minute: "numeric",
        hourCycle: "h23",
      });
    } catch {
      f = null;
    }
    if (formatters.size > 5000) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/**
 * True when Intl knows `zone` as a time zone (IANA names such as "America/Chicago", "Etc/GMT+5").
 * The answer is the cached formatter's (formatterFor), so checking the same few names on every row
 * of an import builds each formatter once.
 */
export function isTimeZone(zone: string): boolean {
  return formatterFor(zone) !== null;
}

function validZone(tz: string | null | undefined): string | null {
  if (!tz) return null;
  return formatterFor(tz) ? tz : null;
}

export interface ZoneSource {
  timezone?: string | null;
  /** ISO 3166-1 alpha-2 code ("FR") or English name ("France", "United Kingdom") */
  country?: string | null;
  postalCode?: string | null;
  city?: string | null;
  state?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  /** E.164 */
  phone?: string | null;
  mobile?: string | null;
}

/** Lower case, no accents, punctuation or a leading "the": "Côte d'Ivoire" -> "cote d ivoire". */
function countryKey(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .replace(/^the /, "");
}

/** Common names neither the library nor Intl gives (the library says "United States of America"). */
const COUNTRY_ALIASES: Record<string, string> = {
  usa: "US",
  "united states": "US",
  america: "US",
  uk: "GB",
  "great britain": "GB",
  britain: "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  "northern ireland": "GB",
  holland: "NL",
  "south korea": "KR",
  korea: "KR",
  russia: "RU",
  turkey: "TR",
};

let countryNames: Map<string, string> | null = null;
/** English country name (the library's and Intl's) or ISO code, as a countryKey -> ISO alpha-2. */
function countryNameIndex(): Map<string, string> {
  if (countryNames) return countryNames;
  const m = new Map<string, string>(Object.entries(COUNTRY_ALIASES));
  const display = new Intl.DisplayNames(["en"], { type: "region" });
  for (const c of Object.values(ct.getAllCountries())) {
    m.set(countryKey(c.id), c.id);
    m.set(countryKey(c.name), c.id);
    const intl = display.of(c.id);
    if (intl) m.set(countryKey(intl), c.id);
  }
  countryNames = m;
  return m;
}

/**
 * The ISO 3166-1 alpha-2 code of a contact's `country` field: an ISO code ("fr", "GB") or an English
 * name ("France", "United Kingdom", "USA", "Côte d'Ivoire"), from countries-and-timezones' country
 * list and Intl's English region names. Null when blank or not a country it knows.
 */
export function countryCodeOf(country: string | null | undefined): string | null {
  const key = country ? countryKey(country) : "";
  return key ? (countryNameIndex().get(key) ?? null) : null;
}

/** The country of an E.164 number (libphonenumber-js; a +1 number it cannot place counts as US), or null. */
function phoneCountryOf(e164: string | null | undefined): string | null {
  if (!e164) return null;
  const p = parsePhoneNumberFromString(e164);
  if (!p) return null;
  return p.country ?? (p.countryCallingCode === "1" ? "US" : null);
}

/** True for countries of the North American Numbering Plan (+1), whose area codes tell a zone. */
function isNanp(country: string): boolean {
  return isPhoneCountry(country) && getCountryCallingCode(country) === "1";
}

/**
 * The zone of a US area code: the zone at its centre (areacodes data), checked against its state: a
 * centre that falls outside the US (the data puts 907, Anchorage, at 58.1 N 48.2 W, off Greenland,
 * which read America/Nuuk and let texts reach Alaska at night; a QA pass) gives way to the zone of
 * the state's first ZIP code (zipcodes), as a contact's state does. Null when neither tells.
 */
function areaCodeZone(entry: AreaCodeEntry | undefined): string | null {
  if (!entry) return null;
  const zone = entry.location ? timeZoneAt(entry.location.latitude, entry.location.longitude) : null;
  if (zone && ct.getTimezone(zone)?.countries.includes("US")) return zone;
  const first = entry.stateCode ? zipcodes.lookupByState(entry.stateCode)[0] : undefined;
  return first ? timeZoneAt(first.latitude, first.longitude) : null;
}

/**
 * The IANA time zones of a country (countries-and-timezones, its canonical zones that this runtime's
 * Intl knows), or [] for an unknown code.
 */
export function countryTimeZones(country: string): string[] {
  const c = ct.getCountry(country);
  return c ? [...new Set(c.timezones)].filter((z) => formatterFor(z) !== null) : [];
}

/** Where a contact's time zone(s) came from. */
export interface ResolvedZones {
  /** one zone, or every zone of the contact's country when it has several (the window must hold in all) */
  zones: string[];
  from: "contact" | "coordinates" | "postal_code" | "city_state" | "state" | "area_code" | "country";
  /** the ISO country the zones are, when they came from it */
  country?: string;
}

/**
 * The contact's IANA time zone(s), derived in this order: the contact's own `timezone`; its
 * coordinates; then its country decides: the `country` field (ISO code or English name), else the
 * country of its phone (else mobile) number (libphonenumber-js). A US contact (or, with no country,
 * a +1 number or no number at all) is placed by its US ZIP code (zipcodes, offline), city + state,
 * state, then the NANP area code of its phone (areacodes data: the area code's centre; also for the
 * other +1 countries). Otherwise the country's time zones (countries-and-timezones): one zone, or all
 * of them when it has several (quietHoursCheck then waits for the window open in every one). A
 * 5-digit postal code of another country (Paris 75001, Berlin 10115) is never read as a US ZIP.
 * Returns null when nothing tells (quietHoursCheck then uses FALLBACK_ZONES).
 */
export function resolveTimeZones(c: ZoneSource): ResolvedZones | null {
  const own = validZone(c.timezone);
  if (own) return { zones: [own], from: "contact" };
  const geo = timeZoneAt(c.latitude, c.longitude);
  if (geo) return { zones: [geo], from: "coordinates" };
  const named = countryCodeOf(c.country);
  const phone = [c.phone, c.mobile].find(isE164) ?? null;
  // a +1 number whose area code is no US one (areacodes data) is placed by libphonenumber-js: Canada's
  // 902 or 709 counted as the US and, with no US area code to read, got the continental US's window
  // (its 21:00 in Halifax passed as allowed; a QA pass). Parsed only then: a campaign screens
  // thousands of +1 numbers
  const nanpRegion =
    !named && phone?.startsWith("+1") && !areaCodeData()[phone.slice(2, 5)] ? phoneCountryOf(phone) : null;
  const us = named
    ? named === "US"
    : !phone || (phone.startsWith("+1") && (nanpRegion === null || nanpRegion === "US"));
  const country = named ?? (us ? "US" : (nanpRegion ?? phoneCountryOf(phone)));
  if (us) {
    const zip = c.postalCode?.trim().slice(0, 5);
    if (zip && /^\d{5}$/.test(zip)) {
      const z = zipcodes.lookup(zip);
      const zone = z ? timeZoneAt(z.latitude, z.longitude) : null;
      if (zone) return { zones: [zone], from: "postal_code" };
    }
    if (c.state?.trim()) {
      const st = c.state.trim();
      const code = st.length === 2 ? st.toUpperCase() : zipcodes.states.normalize(st);
      if (c.city?.trim() && code) {
        const hits = zipcodes.lookupByName(c.city.trim(), code);
        const zone = hits[0] ? timeZoneAt(hits[0].latitude, hits[0].longitude) : null;
        if (zone) return { zones: [zone], from: "city_state" };
      }
      if (code) {
        const hits = zipcodes.lookupByState(code);
        const zone = hits[0] ? timeZoneAt(hits[0].latitude, hits[0].longitude) : null;
        if (zone) return { zones: [zone], from: "state" };
      }
    }
  }
  if (us || (named && isNanp(named))) {
    for (const p of [c.phone, c.mobile]) {
      const m = p ? /^\+1(\d{3})\d{7}$/.exec(p) : null;
      if (!m) continue;
      const zone = areaCodeZone(areaCodeData()[m[1] as string]);
      if (zone) return { zones: [zone], from: "area_code" };
    }
  }
  // the US without a place: FALLBACK_ZONES (continental US), as before countries were read
  if (!country || country === "US") return null;
  const zones = countryTimeZones(country);
  return zones.length ? { zones, from: "country", country } : null;
}

/**
 * The contact's single IANA time zone (resolveTimeZones), or null when none is known or the contact
 * is only known to be in a country with several zones. Returns `{zone, from}`.
 */
export function resolveTimeZone(c: ZoneSource): { zone: string; from: string } | null {
  const r = resolveTimeZones(c);
  return r && r.zones.length === 1 ? { zone: r.zones[0] as string, from: r.from } : null;
}

/** Minutes since local midnight at `now` in `zone`. */
export function localMinutes(now: Date, zone: string): number {
  // memo per (zone, UTC minute): a campaign batch asks the same few zones thousands of times
  const minute = Math.floor(now.getTime() / 60_000);
  if (minute !== memoMinute) {
    memo.clear();
    memoMinute = minute;
  }
  const hit = memo.get(zone);
  if (hit !== undefined) return hit;
  const v = computeLocalMinutes(now, zone);
  memo.set(zone, v);
  return v;
}
const memo = new Map<string, number>();
let memoMinute = -1;

function computeLocalMinutes(now: Date, zone: string): number {
  const f = formatterFor(zone);
  if (!f) throw new RangeError(`Invalid time zone: ${zone}`);
  const parts = f.formatToParts(now);
  const h = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const m = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  return h * 60 + m;
}

/**
 * When a message to someone in `zone` may go out: null when `now` is inside the window, otherwise
 * the next QUIET_HOURS.startHour (08:00) local, exact across daylight-saving changes (luxon: on the
 * night a zone falls back or springs forward, the minutes-ahead arithmetic gave 07:00 or 09:00).
 * @throws RangeError for a zone Intl does not know.
 */
export function nextAllowedTime(now: Date, zone: string): Date | null {
  const mins = localMinutes(now, zone);
  if (mins >= QUIET_HOURS.startHour * 60 && mins < QUIET_HOURS.endHour * 60) return null;
  return windowStarts(now, zone)[0];
}

/**
 * The next two local starts of the window (QUIET_HOURS.startHour:00) in `zone` strictly after `now`,
 * today's or tomorrow's and the day after, as instants (luxon keeps the wall-clock hour across
 * daylight-saving changes).
 */
function windowStarts(now: Date, zone: string): [Date, Date] {
  // memo per (zone, UTC minute), as localMinutes': a campaign batch asks the same few zones thousands
  // of times, and luxon costs ~40 µs a call. The answer is the same for every instant of one minute
  // (starts fall on whole minutes; from 08:00:00 on, through 08:00:59, the next start is the next
  // day's), so it is computed from the minute's first instant
  const minute = Math.floor(now.getTime() / 60_000);
  if (minute !== startsMinute) {
    startsMemo.clear();
    startsMinute = minute;
  }
  let starts = startsMemo.get(zone);
  if (!starts) {
    const local = DateTime.fromMillis(minute * 60_000, { zone });
    let start = local.set({ hour: QUIET_HOURS.startHour, minute: 0, second: 0, millisecond: 0 });
    if (start <= local) start = start.plus({ days: 1 });
    starts = [start.toMillis(), start.plus({ days: 1 }).toMillis()];
    startsMemo.set(zone, starts);
  }
  return [new Date(starts[0]), new Date(starts[1])];
}
const startsMemo = new Map<string, [number, number]>();
let startsMinute = -1;

/** True when `at` is inside the window (QUIET_HOURS) in `zone`. */
function insideWindow(at: Date, zone: string): boolean {
  const mins = computeLocalMinutes(at, zone);
  return mins >= QUIET_HOURS.startHour * 60 && mins < QUIET_HOURS.endHour * 60;
}

/**
 * The first time from `now` (to the minute) when the window is open in every one of `zones`: `now`
 * itself (returns null), else the earliest of the zones' next 08:00 starts (within two days) at which
 * all of them are inside it; undefined when the zones never share an hour of the window.
 */
function sharedWindow(now: Date, zones: string[]): Date | null | undefined {
  if (
    zones.every(
      (z) =>
        localMinutes(now, z) >= QUIET_HOURS.startHour * 60 && localMinutes(now, z) < QUIET_HOURS.endHour * 60,
    )
  )
    return null;
  // the shared window, when there is one, opens when the last of its zones reaches 08:00
  const starts = zones.flatMap((z) => windowStarts(now, z).map((t) => t.getTime()));
  for (const at of [...new Set(starts)].sort((a, b) => a - b)) {
    const t = new Date(at);
    if (zones.every((z) => insideWindow(t, z))) return t;
  }
  return undefined;
}

/**
 * The zone a country's messages keep when its zones never share an hour of the window (in
 * countries-and-timezones' data only Antarctica; Russia, from Kaliningrad to Kamchatka, still shares
 * 09:00-12:00 Moscow time): the zone of the median UTC offset now, the middle of the country, so the
 * others are as few hours off as can be. Sending to such a contact is never blocked for good.
 */
function middleZone(now: Date, zones: string[]): string {
  const byOffset = [...zones].sort((a, b) => utcOffsetMinutes(now, a) - utcOffsetMinutes(now, b));
  return byOffset[Math.floor((byOffset.length - 1) / 2)] as string;
}

/** The UTC offset of `zone` at `now`, in minutes (east positive). */
function utcOffsetMinutes(now: Date, zone: string): number {
  const utc = now.getUTCHours() * 60 + now.getUTCMinutes();
  const d = (computeLocalMinutes(now, zone) - utc + 1440) % 1440;
  return d > 720 ? d - 1440 : d;
}

/**
 * Quiet-hours decision for a recipient: `{allowed: true, zone, country, localMinutes}` or `{allowed:
 * false, notBefore, zone, country, localMinutes}`; `zone` is the one zone it was judged in (null when
 * several), `country` the ISO country whose zones were used (resolveTimeZones), `localMinutes` the
 * local time now (minutes since midnight) when every zone judged shows the same (one zone, or a
 * country whose zones agree now, as Argentina's all keep UTC-3), else null. Several zones (a country that has several,
 * or an unknown zone: every FALLBACK_ZONES zone, 11:00-21:00 US Eastern) must all be inside the window;
 * a country whose zones never are together is judged in its middle zone (middleZone).
 */
export function quietHoursCheck(
  now: Date,
  source: ZoneSource,
):
  | { allowed: true; zone: string | null; country?: string; localMinutes: number | null }
  | { allowed: false; notBefore: Date; zone: string | null; country?: string; localMinutes: number | null } {
  const resolved = resolveTimeZones(source);
  let zones = resolved ? resolved.zones : [...FALLBACK_ZONES];
  const country = resolved?.country;
  let next = zones.length === 1 ? nextAllowedTime(now, zones[0] as string) : sharedWindow(now, zones);
  if (next === undefined) {
    zones = [middleZone(now, zones)];
    next = nextAllowedTime(now, zones[0] as string);
  }
  const zone = zones.length === 1 ? (zones[0] as string) : null;
  const times = new Set(zones.map((z) => localMinutes(now, z)));
  const local = times.size === 1 ? ([...times][0] as number) : null;
  if (!next) return { allowed: true, zone, country, localMinutes: local };
  return { allowed: false, notBefore: next, zone, country, localMinutes: local };
}

/** The English name of an ISO country code ("RU" -> "Russia"), else the code. */
export function countryName(code: string): string {
  return new Intl.DisplayNames(["en"], { type: "region" }).of(code) ?? code;
}

/** "4:12 AM" (12-hour clock, no leading zero) of minutes since midnight. */
export function clock12(minutes: number): string {
  const h = Math.floor(minutes / 60) % 24;
  return `${h % 12 || 12}:${pad(minutes % 60)} ${h < 12 ? "AM" : "PM"}`;
}

/** "8 AM" / "9 PM" of a whole hour. */
export function hour12(hour: number): string {
  return `${hour % 12 || 12} ${hour % 24 < 12 ? "AM" : "PM"}`;
}

const pad = (n: number) => String(n).padStart(2, "0");
const clock = (minutes: number) => `${pad(Math.floor(minutes / 60) % 24)}:${pad(minutes % 60)}`;
const ZONE_NAMES: Record<string, string> = {
  "America/New_York": "US Eastern",
  "America/Los_Angeles": "US Pacific",
};

/**
 * Why a text or call to this contact may not go out at `now` (quiet hours, QUIET_HOURS), as a
 * sentence for the sender that says the contact's local time and when sending opens, or null when
 * `now` is inside the window. A contact known only to be in a country with several zones: the window
 * must hold in all of them, and the sentence names the country. Unknown zone: the window must hold in
 * every FALLBACK_ZONES zone, and the sentence says so in US Eastern time. Source: 47 CFR 64.1200(c)(1).
 */
export function quietHoursRefusal(now: Date, source: ZoneSource): string | null {
  const q = quietHoursCheck(now, source);
  if (q.allowed) return null;
  const wait = Math.max(1, Math.ceil((q.notBefore.getTime() - now.getTime()) / 60_000));
  const inWait = `in ${wait >= 60 ? `${Math.floor(wait / 60)} h ` : ""}${wait % 60} min`;
  const window = `${clock(QUIET_HOURS.startHour * 60)} and ${clock(QUIET_HOURS.endHour * 60)}`;
  if (q.zone) {
    return `It is ${clock(localMinutes(now, q.zone))} for this contact (${q.zone}): texts and calls may go out only between ${window} their time. Sending opens at ${clock(localMinutes(q.notBefore, q.zone))} their time, ${inWait}.`;
  }
  if (q.country) {
    const name = countryName(q.country);
    return `This contact's exact time zone is unknown and ${name} has several, so texts and calls may go out only while it is between ${window} in all of them (set their time zone or address to tell it). Sending opens ${inWait}.`;
  }
  const east = FALLBACK_ZONES[0];
  const names = FALLBACK_ZONES.map((z) => ZONE_NAMES[z] ?? z).join(" and ");
  return `This contact's time zone is unknown (set their time zone, address or a US phone number to tell it), so texts and calls may go out only while it is between ${window} in both ${names} time. It is ${clock(localMinutes(now, east))} ${ZONE_NAMES[east]} time now; sending opens at ${clock(localMinutes(q.notBefore, east))} ${ZONE_NAMES[east]} time, ${inWait}.`;
}
