import { describe, expect, it } from "vitest";
import { formatRelativeTime } from "../../src/client/lib/format";
import {
  type DeliverySchedule,
  describeSchedule,
  logRefetchMs,
  PENDING_REFETCH_MS,
  WAITING_REFETCH_MS,
} from "../../src/client/routes/_app/-components/settings/delivery-schedule";

const now = Date.parse("2026-03-01T12:00:00Z");
const iso = (ms: number) => new Date(now + ms).toISOString();

describe("formatRelativeTime", () => {
  it("says how far a time is in the largest fitting unit, rounded", () => {
    expect(formatRelativeTime(iso(45_000), now)).toBe("in 45 seconds");
    expect(formatRelativeTime(iso(1_000), now)).toBe("in 1 second");
    expect(formatRelativeTime(iso(59_600), now)).toBe("in 1 minute");
    expect(formatRelativeTime(iso(4 * 60_000 + 10_000), now)).toBe("in 4 minutes");
    expect(formatRelativeTime(iso(2 * 3600_000 - 60_000), now)).toBe("in 2 hours");
    expect(formatRelativeTime(iso(30 * 3600_000), now)).toBe("in 1 day");
    expect(formatRelativeTime(iso(-3 * 60_000), now)).toBe("3 minutes ago");
    expect(formatRelativeTime(iso(200), now)).toBe("now");
  });
});

describe("describeSchedule", () => {
  const base = { status: "pending", attempt: 1, max_attempts: 12 } as const;
  it("a delivery waiting for a retry: its attempt of the most, and when the next one is, the full time for a tooltip", () => {
    const next = iso(4 * 60_000);
    const s = describeSchedule({ ...base, next_attempt_at: next }, now);
    expect(s).toMatchObject({ text: "Attempt 1 of 12 · Next attempt in 4 minutes", nextAt: next });
    expect(s?.nextTitle).toMatch(/Mar 1, 2026/);
    expect(describeSchedule({ ...base, attempt: 3, next_attempt_at: iso(-5_000) }, now)?.text).toBe(
      "Attempt 3 of 12 · Next attempt due now",
    );
  });
  it("a failed delivery gave up after its attempts", () => {
    expect(describeSchedule({ ...base, status: "failed", attempt: 12, next_attempt_at: null }, now)).toEqual({
      text: "Gave up after 12 attempts",
    });
    expect(
      describeSchedule({ ...base, status: "failed", attempt: 1, next_attempt_at: null }, now)?.text,
    ).toBe("Gave up after 1 attempt");
  });
  it("an attempt in progress, a first attempt queued for later, and nothing to say", () => {
    expect(describeSchedule({ ...base, attempt: 2, next_attempt_at: null }, now)?.text).toBe(
      "Attempt 2 of 12",
    );
    expect(describeSchedule({ ...base, attempt: 0, next_attempt_at: iso(120_000) }, now)?.text).toBe(
      "Next attempt in 2 minutes",
    );
    expect(describeSchedule({ ...base, attempt: 0, next_attempt_at: iso(0) }, now)).toBeNull();
    expect(describeSchedule({ ...base, attempt: 0, next_attempt_at: null }, now)).toBeNull();
    expect(describeSchedule({ ...base, status: "succeeded", next_attempt_at: null }, now)).toBeNull();
  });
});

describe("logRefetchMs", () => {
  const d = (status: DeliverySchedule["status"], next: number | null): DeliverySchedule => ({
    status,
    attempt: 1,
    max_attempts: 12,
    next_attempt_at: next === null ? null : iso(next),
  });
  it("stops with nothing pending, follows a queued or due delivery closely, waits for a later retry", () => {
    expect(logRefetchMs([d("succeeded", null), d("failed", null)], now)).toBe(false);
    expect(logRefetchMs([d("pending", null)], now)).toBe(PENDING_REFETCH_MS);
    expect(logRefetchMs([d("pending", -1000)], now)).toBe(PENDING_REFETCH_MS);
    expect(logRefetchMs([d("pending", 30_000), d("pending", 3600_000)], now)).toBe(30_000);
    expect(logRefetchMs([d("pending", 12 * 3600_000)], now)).toBe(WAITING_REFETCH_MS);
    expect(logRefetchMs([d("pending", 12 * 3600_000), d("pending", null)], now)).toBe(PENDING_REFETCH_MS);
  });
});
