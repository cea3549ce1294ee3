import { describe, expect, it } from "vitest";
import { scheduleNote } from "../../src/client/features/campaigns/campaign-report";

// A campaign launched with scheduledAt (REST, tRPC, /api/v1) is "scheduled" until that time. The
// campaign list and report showed the status "scheduled" with Pause and Cancel, but not when it
// sends: the owner could not check the time (or its time zone) they scheduled.

describe("scheduleNote", () => {
  const at = new Date("2026-12-01T15:00:00.000Z");
  const when = at.toLocaleString([], {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });

  it("says when a scheduled campaign sends, in the viewer's time with its zone", () => {
    expect(scheduleNote({ status: "scheduled", scheduledAt: at })).toBe(`sends ${when}`);
    expect(scheduleNote({ status: "scheduled", scheduledAt: at.toISOString() })).toBe(`sends ${when}`);
  });

  it("says when a paused campaign whose time is still ahead sends once resumed", () => {
    // resumeCampaign puts such a campaign back on its schedule; the pause's reason says "as scheduled"
    const before = at.getTime() - 3600_000;
    expect(scheduleNote({ status: "paused", scheduledAt: at }, before)).toBe(`sends ${when} once resumed`);
    // its time has passed: resuming sends it at once, there is no time to name
    expect(scheduleNote({ status: "paused", scheduledAt: at }, at.getTime() + 1)).toBe("");
    expect(scheduleNote({ status: "paused", scheduledAt: null }, before)).toBe("");
  });

  it("says nothing for a campaign that is not waiting for its time", () => {
    expect(scheduleNote({ status: "sending", scheduledAt: at })).toBe("");
    expect(scheduleNote({ status: "completed", scheduledAt: at })).toBe("");
    expect(scheduleNote({ status: "scheduled", scheduledAt: null })).toBe("");
  });
});
