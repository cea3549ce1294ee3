import { describe, expect, it } from "vitest";
import { formatRelativeTime } from "../../src/client/lib/format";
import {
  type DeliverySchedule,
  describeDelivery,
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

describe("describeDelivery", () => {
  const entry = {
    status: "pending",
    attempt: 0,
    max_attempts: 12,
    next_attempt_at: null,
    attempts: 0,
    response_code: null,
    duration_ms: null,
    last_error: null,
  } as const;
  /** The entry's words as the log shows them, and the attempt counts in them. */
  const words = (d: Parameters<typeof describeDelivery>[0]) => {
    const s = describeDelivery(d, now);
    const text = [s.label, s.result, s.schedule?.text ?? ""].join(" | ");
    return { text, counts: text.match(/\bAttempt \d+ of \d+|\b\d+ attempts?\b/g) ?? [] };
  };

  it("a retry waiting after a failed attempt: Retrying, its failure, and its attempt counted once", () => {
    const w = words({
      ...entry,
      attempt: 1,
      attempts: 1,
      next_attempt_at: iso(52_000),
      response_code: 500,
      duration_ms: 34,
      last_error: "HTTP 500: down",
    });
    expect(w.text).toBe(
      "Retrying | Last failed: HTTP 500: down | Attempt 1 of 12 · Next attempt in 52 seconds",
    );
    expect(w.counts).toEqual(["Attempt 1 of 12"]);
  });

  it("a resent delivery's retry counts its own job's attempt, not the attempts recorded before", () => {
    const w = words({
      ...entry,
      attempt: 2,
      attempts: 14,
      next_attempt_at: iso(4 * 60_000),
      last_error: "HTTP 503: busy",
    });
    expect(w.counts).toEqual(["Attempt 2 of 12"]);
  });

  it("queued, sending and sending again after a failure", () => {
    expect(words(entry).text).toBe("Queued | No attempt yet | ");
    expect(words({ ...entry, attempts: 3, last_error: "HTTP 500: down" })).toEqual({
      text: "Queued | Resent | ",
      counts: [],
    });
    expect(words({ ...entry, attempt: 1 })).toEqual({
      text: "Sending |  | Attempt 1 of 12",
      counts: ["Attempt 1 of 12"],
    });
    // a resend's first attempt running: the earlier run's failure is not this job's
    expect(words({ ...entry, attempt: 1, attempts: 12, last_error: "HTTP 500: down" }).text).toBe(
      "Sending |  | Attempt 1 of 12",
    );
    expect(words({ ...entry, attempt: 3, attempts: 2, last_error: "timeout" })).toEqual({
      text: "Sending | Last failed: timeout | Attempt 3 of 12",
      counts: ["Attempt 3 of 12"],
    });
  });

  it("delivered says its attempts only when it took more than one; failed counts the schedule's once", () => {
    const ok = { ...entry, status: "succeeded", attempt: 1, response_code: 200, duration_ms: 34 } as const;
    expect(words({ ...ok, attempts: 1 })).toEqual({ text: "Delivered | 200 · 34 ms | ", counts: [] });
    expect(words({ ...ok, attempts: 2 }).counts).toEqual(["2 attempts"]);
    const gaveUp = words({
      ...entry,
      status: "failed",
      attempt: 12,
      attempts: 2,
      response_code: 500,
      duration_ms: 41,
      last_error: "HTTP 500: down",
    });
    expect(gaveUp).toEqual({
      text: "Failed | 500 · 41 ms | Gave up after 12 attempts",
      counts: ["12 attempts"],
    });
    expect(
      words({ ...entry, status: "failed", attempt: 1, attempts: 1, last_error: "endpoint is disabled" }).text,
    ).toBe("Failed | endpoint is disabled | Gave up after 1 attempt");
    expect(describeDelivery({ ...ok, attempts: 1 }, now).tone).toBe("default");
    expect(describeDelivery({ ...entry, status: "failed", attempt: 1 }, now).tone).toBe("destructive");
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
