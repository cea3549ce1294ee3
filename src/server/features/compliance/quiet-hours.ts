import { createRequire } from "node:module";
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
  postalCode?: string | null;
  city?: string | null;
  state?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  /** E.164 */
  phone?: string | null;
  mobile?: string | null;
}

/**
 * The contact's IANA time zone, derived in this order: the contact's own `timezone`, its
 * coordinates, its US postal code (zipcodes, offline), city + state, state, then the NANP area code
 * of its phone (areacodes data: the area code's centre). Returns `{zone, from}` or null when nothing
 * gives a zone.
 */
export function resolveTimeZone(c: ZoneSource): { zone: string; from: string } | null {
  const own = validZone(c.timezone);
  if (own) return { zone: own, from: "contact" };
  const geo = timeZoneAt(c.latitude, c.longitude);
  if (geo) return { zone: geo, from: "coordinates" };
  const zip = c.postalCode?.trim().slice(0, 5);
  if (zip && /^\d{5}$/.test(zip)) {
    const z = zipcodes.lookup(zip);
    const zone = z ? timeZoneAt(z.latitude, z.longitude) : null;
    if (zone) return { zone, from: "postal_code" };
  }
  if (c.state?.trim()) {
    const st = c.state.trim();
    const code = st.length === 2 ? st.toUpperCase() : zipcodes.states.normalize(st);
    if (c.city?.trim() && code) {
      const hits = zipcodes.lookupByName(c.city.trim(), code);
      const zone = hits[0] ? timeZoneAt(hits[0].latitude, hits[0].longitude) : null;
      if (zone) return { zone, from: "city_state" };
    }
    if (code) {
      const hits = zipcodes.lookupByState(code);
      const zone = hits[0] ? timeZoneAt(hits[0].latitude, hits[0].longitude) : null;
      if (zone) return { zone, from: "state" };
    }
  }
  for (const p of [c.phone, c.mobile]) {
    const m = p ? /^\+1(\d{3})\d{7}$/.exec(p) : null;
    if (!m) continue;
    const entry = areaCodeData()[m[1]];
    const zone = entry?.location ? timeZoneAt(entry.location.latitude, entry.location.longitude) : null;
    if (zone) return { zone, from: "area_code" };
  }
  return null;
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
 * the next 08:00 local (to the minute; a DST jump may put it up to an hour off, which the send job
 * re-checks before sending).
 */
export function nextAllowedTime(now: Date, zone: string): Date | null {
  const mins = localMinutes(now, zone);
  const start = QUIET_HOURS.startHour * 60;
  const end = QUIET_HOURS.endHour * 60;
  if (mins >= start && mins < end) return null;
  const wait = (start - mins + 1440) % 1440;
  const t = new Date(now.getTime() + wait * 60_000);
  t.setUTCSeconds(0, 0);
  return t;
}

/**
 * Quiet-hours decision for a recipient: `{allowed: true}` or `{allowed: false, notBefore, zone}`.
 * An unknown zone must satisfy every zone in FALLBACK_ZONES (11:00-21:00 US Eastern).
 */
export function quietHoursCheck(
  now: Date,
  source: ZoneSource,
): { allowed: true; zone: string | null } | { allowed: false; notBefore: Date; zone: string | null } {
  const resolved = resolveTimeZone(source);
  const zones = resolved ? [resolved.zone] : [...FALLBACK_ZONES];
  let latest: Date | null = null;
  for (const z of zones) {
    const next = nextAllowedTime(now, z);
    if (next && (!latest || next > latest)) latest = next;
  }
  if (!latest) return { allowed: true, zone: resolved?.zone ?? null };
  // the later zone's window start may fall outside the other's window: re-check from there
  if (zones.length > 1) {
    const again = quietHoursCheck(latest, { ...source });
    if (!again.allowed) return { allowed: false, notBefore: again.notBefore, zone: null };
  }
  return { allowed: false, notBefore: latest, zone: resolved?.zone ?? null };
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
 * `now` is inside the window. Unknown zone: the window must hold in every FALLBACK_ZONES zone, and
 * the sentence says so in US Eastern time. Source: 47 CFR 64.1200(c)(1).
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
  const east = FALLBACK_ZONES[0];
  const names = FALLBACK_ZONES.map((z) => ZONE_NAMES[z] ?? z).join(" and ");
  return `This contact's time zone is unknown (set their time zone, address or a US phone number to tell it), so texts and calls may go out only while it is between ${window} in both ${names} time. It is ${clock(localMinutes(now, east))} ${ZONE_NAMES[east]} time now; sending opens at ${clock(localMinutes(q.notBefore, east))} ${ZONE_NAMES[east]} time, ${inWait}.`;
}
