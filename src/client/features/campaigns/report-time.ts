// Times on the campaign report (campaign-report.tsx), always in the viewer's time zone: the
// recipients table's Sent cell and the "Activity over time" chart's labels.

/** A report timeline's bucket size, as tRPC `campaigns.report` answers it (`bucket`). */
export type TimelineBucket = "minute" | "hour" | "day" | "week";

/** The viewer's IANA time zone ("Asia/Kolkata"), sent with the report query so its hours and days are theirs. */
export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The calendar day of `d` in `timeZone` ("2025-03-10"), for "is it the same day" comparisons. */
function dayKey(d: Date, timeZone?: string): string {
  return d.toLocaleDateString("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
}

/** The year of `d` in `timeZone`. */
function yearOf(d: Date, timeZone?: string): string {
  return d.toLocaleDateString("en-US", { timeZone, year: "numeric" });
}

/**
 * A recipient's Sent time in the recipients table: the time alone when it is today ("8:42 AM"), the
 * date and time otherwise ("Nov 28, 8:42 AM"; "Nov 28, 2024, 8:42 AM" in another year), with `full`,
 * the date, time to the second and zone ("Friday, November 28, 2025 at 8:42:39 AM GMT+5:30") for the
 * tooltip and screen readers. In the viewer's zone (or `timeZone`); `now` is when "today" is.
 */
export function sentAtLabel(
  at: string | Date,
  now: Date = new Date(),
  timeZone?: string,
): { short: string; full: string } {
  const d = new Date(at);
  const time: Intl.DateTimeFormatOptions = { timeZone, hour: "numeric", minute: "2-digit" };
  const short =
    dayKey(d, timeZone) === dayKey(now, timeZone)
      ? d.toLocaleTimeString("en-US", time)
      : d.toLocaleString("en-US", {
          ...time,
          month: "short",
          day: "numeric",
          year: yearOf(d, timeZone) === yearOf(now, timeZone) ? undefined : "numeric",
        });
  const full = d.toLocaleString("en-US", {
    timeZone,
    dateStyle: "full",
    timeStyle: "long",
  });
  return { short, full };
}

/**
 * The "Activity over time" chart's labels for buckets starting at `starts` (ISO, in order) of size
 * `bucket`, cut in `timeZone` (the zone the server used: the viewer's). `tick` is the axis label: the
 * time for minutes and hours ("9:00 AM"), with the date once the buckets cross a day ("Mar 10, 9:00 AM");
 * the date for days and weeks ("Mar 10", with the year when they cross a year). `full` is the bucket's
 * whole interval for the tooltip: "Mon, Mar 10, 2025, 9:00 AM – 10:00 AM GMT+5:30", "Monday, March 10,
 * 2025", "Week of Mon, Mar 10, 2025".
 */
export function timelineLabels(
  starts: string[],
  bucket: TimelineBucket,
  timeZone?: string,
): { tick: string; full: string }[] {
  const dates = starts.map((s) => new Date(s));
  const first = dates[0];
  const last = dates[dates.length - 1];
  const manyDays = !!first && !!last && dayKey(first, timeZone) !== dayKey(last, timeZone);
  const manyYears = !!first && !!last && yearOf(first, timeZone) !== yearOf(last, timeZone);
  const time: Intl.DateTimeFormatOptions = { timeZone, hour: "numeric", minute: "2-digit" };
  const day: Intl.DateTimeFormatOptions = { timeZone, month: "short", day: "numeric" };
  return dates.map((d) => {
    if (bucket === "day" || bucket === "week") {
      const tick = d.toLocaleDateString("en-US", { ...day, year: manyYears ? "numeric" : undefined });
      const full =
        bucket === "day"
          ? d.toLocaleDateString("en-US", { timeZone, dateStyle: "full" })
          : `Week of ${d.toLocaleDateString("en-US", { ...day, weekday: "short", year: "numeric" })}`;
      return { tick, full };
    }
    const tick = manyDays
      ? d.toLocaleString("en-US", { ...time, ...day })
      : d.toLocaleTimeString("en-US", time);
    const from = d.toLocaleString("en-US", { ...time, ...day, weekday: "short", year: "numeric" });
    const end = new Date(d.getTime() + (bucket === "hour" ? 3_600_000 : 60_000));
    const to = end.toLocaleTimeString("en-US", { ...time, timeZoneName: "short" });
    return { tick, full: `${from} – ${to}` };
  });
}
