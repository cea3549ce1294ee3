/**
 * A call's or a call campaign's talk time as the report and the campaign-finished email say it: "0s",
 * "45s", "3m 12s", "1h 02m" (`seconds` whole seconds, rounded down; hours past 24 stay hours). Pure:
 * the client's report (report-figures) and the server's email (campaigns.notify) share it.
 */
export function formatTalkTime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
