import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAndLaunchCampaign } from "../../src/server/features/campaigns/campaigns.service";
import { campaignRecipientRows, createTestApp, signUp, type TestApp, trpcCall } from "../helpers";

// The campaign report's "Activity over time" (campaigns.queries selectReportTimeline): every bucket
// from the first event to the last, empty ones as zeros; minutes, hours, days or weeks by the span;
// hours and days cut in the viewer's zone (tRPC campaigns.report `timeZone`), so a half-hour zone's
// hours start on its own hour; an unknown zone is refused.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => {
  await t?.close();
});

type Events = { sent?: string; opened?: string; clicked?: string };

/** An email campaign to `events.length` addresses whose rows' event times are then set to `events` (the rest null). */
async function campaignWith(events: Events[]) {
  const u = await signUp(t.app);
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  const launched = await createAndLaunchCampaign(t.ctx, u.user.id, {
    name: "Timeline",
    channel: "email",
    content: { subject: "Hi", body: "Hello" },
    recipients: { csv: events.map((_, i) => ({ email: `tl${i}-${stamp}@example.com` })) },
  });
  const rows = await campaignRecipientRows(t, launched.campaign.id);
  expect(rows).toHaveLength(events.length);
  for (const [i, r] of rows.entries()) {
    const e = events[i] as Events;
    await t.sql`update campaign_recipients set sent_at = ${e.sent ?? null}, opened_at = ${e.opened ?? null},
      clicked_at = ${e.clicked ?? null}, delivered_at = null, replied_at = null, failed_at = null
      where id = ${r.id}`;
  }
  return { u, id: launched.campaign.id };
}

type Bucket = { t: string; sent: number; opened: number; clicked: number };
async function report(u: Awaited<ReturnType<typeof signUp>>, id: number, timeZone?: string) {
  const r = await trpcCall(u.client, "campaigns.report", { id, timeZone }, "query");
  return r as {
    status: number;
    error?: unknown;
    data: { bucket: string; timeZone: string; timeline: Bucket[] };
  };
}
const sum = (b: Bucket[], k: "sent" | "opened" | "clicked") => b.reduce((n, x) => n + x[k], 0);
const HOUR = 3_600_000;

describe("campaign report timeline", () => {
  it("hours over a day in Asia/Kolkata: buckets start on the viewer's hour (:30 UTC), every hour drawn", async () => {
    // 10:10 and 21:40 IST on Mar 10, an open at 06:30 IST on Mar 11: 20 h 20 min of activity
    const { u, id } = await campaignWith([
      { sent: "2025-03-10T04:40:00Z", opened: "2025-03-11T01:00:00Z" },
      { sent: "2025-03-10T16:10:00Z" },
    ]);
    const { status, data, error } = await report(u, id, "Asia/Kolkata");
    expect(status, JSON.stringify(error)).toBe(200);
    expect(data.bucket).toBe("hour");
    expect(data.timeZone).toBe("Asia/Kolkata");
    const ts = data.timeline.map((b) => new Date(b.t).getTime());
    expect(data.timeline[0]?.t).toBe("2025-03-10T04:30:00.000Z"); // 10:00 IST
    expect(data.timeline.at(-1)?.t).toBe("2025-03-11T00:30:00.000Z"); // 06:00 IST
    expect(ts.slice(1).map((x, i) => x - (ts[i] as number))).toEqual(Array(ts.length - 1).fill(HOUR));
    expect(data.timeline).toHaveLength(21);
    expect(data.timeline.filter((b) => b.sent + b.opened === 0)).toHaveLength(18);
    expect([sum(data.timeline, "sent"), sum(data.timeline, "opened")]).toEqual([2, 1]);
    // the bucket of the 21:40 IST send is the 21:00 IST hour (15:30 UTC), not 16:00 UTC
    expect(data.timeline.find((b) => b.sent === 1 && b.t !== data.timeline[0]?.t)?.t).toBe(
      "2025-03-10T15:30:00.000Z",
    );
  });

  it("days past 3 days, at the viewer's midnights across a daylight-saving change; zeros between", async () => {
    // Mar 1 15:00 EST to Mar 10 11:00 EDT in New York (clocks went forward on Mar 9)
    const { u, id } = await campaignWith([
      { sent: "2025-03-01T20:00:00Z", opened: "2025-03-10T15:00:00Z" },
      { sent: "2025-03-01T20:05:00Z", clicked: "2025-03-04T12:00:00Z", opened: "2025-03-04T12:00:00Z" },
    ]);
    const { data } = await report(u, id, "America/New_York");
    expect(data.bucket).toBe("day");
    expect(data.timeline.map((b) => b.t)).toEqual([
      ...["01", "02", "03", "04", "05", "06", "07", "08", "09"].map((d) => `2025-03-${d}T05:00:00.000Z`),
      "2025-03-10T04:00:00.000Z",
    ]);
    expect(data.timeline.map((b) => b.sent + b.opened + b.clicked)).toEqual([2, 0, 0, 2, 0, 0, 0, 0, 0, 1]);
  });

  it("minutes for a short span (UTC without a zone), every minute drawn", async () => {
    const { u, id } = await campaignWith([{ sent: "2025-05-05T10:00:10Z", opened: "2025-05-05T10:05:50Z" }]);
    const { data } = await report(u, id);
    expect(data.bucket).toBe("minute");
    expect(data.timeZone).toBe("UTC");
    expect(data.timeline.map((b) => b.t.slice(11, 16))).toEqual([
      "10:00",
      "10:01",
      "10:02",
      "10:03",
      "10:04",
      "10:05",
    ]);
  });

  it("weeks for years of activity, at most 500 buckets", async () => {
    const { u, id } = await campaignWith([{ sent: "2019-01-01T10:00:00Z", opened: "2025-01-01T10:00:00Z" }]);
    const { data } = await report(u, id, "Europe/Paris");
    expect(data.bucket).toBe("week");
    expect(data.timeline.length).toBeGreaterThan(300);
    expect(data.timeline.length).toBeLessThanOrEqual(500);
    expect([sum(data.timeline, "sent"), sum(data.timeline, "opened")]).toEqual([1, 1]);
  });

  it("a zone that is not an IANA name is refused", async () => {
    const { u, id } = await campaignWith([{ sent: "2025-05-05T10:00:10Z" }]);
    for (const tz of ["+05:30", "Mars/Base", "UTC'; select 1 --"]) {
      const r = await report(u, id, tz);
      expect(r.status, tz).toBe(400);
    }
  });
});
