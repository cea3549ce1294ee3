/** Display helpers shared by pages. */

/** Capitalises each word: "past_due" -> "Past Due". */
export function titleCase(value: string): string {
  return value
    .replace(/[_-]+/g, " ")
    .trim()
    .replace(/\b\w/g, (ch) => ch.toUpperCase());
}

/**
 * Plan label (spec sections 3 and 9): a missing plan shows as "Starter" (spec: 'shown as Starter if
 * missing'); every stored plan, "free" included, as its capitalised name ("free" -> "Free", the name
 * /pricing and the server's messages use).
 */
export function planLabel(plan: string | null | undefined): string {
  if (!plan) return "Starter";
  return titleCase(plan);
}

/** Subscription status label: missing -> "Trial" (spec section 9), otherwise capitalised. */
export function statusLabel(status: string | null | undefined): string {
  return status ? titleCase(status) : "Trial";
}

/** A date as e.g. "Jan 5, 2025", or `fallback` ("N/A") when missing or invalid. */
export function formatDate(value: string | number | Date | null | undefined, fallback = "N/A"): string {
  if (value === null || value === undefined || value === "") return fallback;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return fallback;
  return date.toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" });
}

/**
 * A moment as date and minute in the viewer's time zone, the zone named: "Nov 30, 2026, 4:00 PM PST".
 * For moments that are not midnight where the viewer is, such as a Free plan's usage reset (midnight
 * UTC at the start of a month: 4 PM the day before in California, where a date alone read "today").
 */
export function formatMoment(value: string | number | Date | null | undefined, fallback = "N/A"): string {
  if (value === null || value === undefined || value === "") return fallback;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return fallback;
  return date.toLocaleString("en-US", {
    month: "short",
    day: "numeric",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });
}

/** An integer with thousands separators: 12345 -> "12,345". */
export function formatNumber(value: number): string {
  return new Intl.NumberFormat("en-US").format(value);
}

const pluralRules = new Intl.PluralRules("en-US");

/**
 * A count with its noun in the right number (Intl.PluralRules, en-US): `plural(1, "contact")` ->
 * "1 contact", `plural(1200, "contact")` -> "1,200 contacts". `many` overrides the "+s" plural
 * (`plural(2, "business", "businesses")`). Issue 14: no "1 contacts".
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${pluralRules.select(count) === "one" ? one : many}`;
}

/** A date and time with its time zone, e.g. "Nov 29, 2026, 1:15:03 AM UTC" (the viewer's zone); `fallback` when invalid. */
export function formatDateTime(value: string | number | Date | null | undefined, fallback = "N/A"): string {
  if (value === null || value === undefined || value === "") return fallback;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return fallback;
  return date.toLocaleString("en-US", { dateStyle: "medium", timeStyle: "long" });
}

const relativeTime = new Intl.RelativeTimeFormat("en-US", { numeric: "always" });
const RELATIVE_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", Number.POSITIVE_INFINITY],
];

/**
 * How far `at` is from `now` in words (Intl.RelativeTimeFormat, en-US, long style), in the largest
 * unit that keeps the number under the next one and rounded: "in 45 seconds", "in 4 minutes",
 * "in 2 hours", "3 minutes ago", "in 1 day". Under half a second either way: "now".
 */
export function formatRelativeTime(at: string | number | Date, now: number | Date = Date.now()): string {
  let value = (new Date(at).getTime() - new Date(now).getTime()) / 1000;
  if (Math.abs(value) < 0.5) return "now";
  for (const [unit, next] of RELATIVE_UNITS) {
    if (Math.abs(Math.round(value)) < next) return relativeTime.format(Math.round(value), unit);
    value /= next;
  }
  return relativeTime.format(Math.round(value), "day");
}
