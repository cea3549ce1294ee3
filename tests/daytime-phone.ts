/**
 * Phone numbers in places where it is now day or night, for tests of the texts and calls that keep
 * quiet hours (08:00-21:00 where the number is) but take only a number, no time zone: the public demo.
 * The places keep no daylight saving time, so their UTC offsets are fixed.
 */

/** A place, its UTC offset in hours and an E.164 number there ending in 4 digits of `n`. */
const PLACES = [
  { offset: -10, phone: (n: string) => `+1808555${n}` }, // Hawaii (+1 808 555 nnnn)
  { offset: -3, phone: (n: string) => `+549115555${n}` }, // Buenos Aires (+54 9 11 5555 nnnn)
  { offset: 5.5, phone: (n: string) => `+9198765${n}0` }, // India (+91 98765 nnnn0)
  { offset: 9, phone: (n: string) => `+8190555${n}` }, // Japan (+81 90 555n nnn)
];

function localHour(offset: number, at = new Date()): number {
  return (((at.getUTCHours() + at.getUTCMinutes() / 60 + offset) % 24) + 24) % 24;
}

function pick(test: (hour: number) => boolean, n: number): string {
  const place = PLACES.find((p) => test(localHour(p.offset)));
  if (!place) throw new Error("no place with that time of day now: extend PLACES");
  return place.phone(String(Math.abs(Math.trunc(n)) % 10_000).padStart(4, "0"));
}

/** An E.164 number where it is now well inside the day (09:00-20:00); `n` makes it unique (0-9999). */
export function daytimePhone(n = 0): string {
  return pick((h) => h >= 9 && h < 20, n);
}

/** An E.164 number where it is now well inside the night (22:00-07:00); `n` makes it unique (0-9999). */
export function nighttimePhone(n = 0): string {
  return pick((h) => h >= 22 || h < 7, n);
}
