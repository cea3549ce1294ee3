import { describe, expect, it } from "vitest";
import { purgeGoogleContentJob } from "../../src/server/features/leads/leads.jobs";
import { deliverWebhookJob } from "../../src/server/features/webhooks/webhooks.jobs";
import type { JobOptions } from "../../src/server/jobs/define";
import { DEFAULT_RETRY_DELAY_MAX_S, queueRetryOptions } from "../../src/server/jobs/worker";

/**
 * The shortest and longest time from a job's first attempt to its last (seconds, the attempts' own
 * time left out), from the queue options startBoss gives it and pg-boss's backoff, copied from
 * pg-boss failJobs (node_modules/pg-boss/dist/plans.js): after the attempt with retry count n,
 * `LEAST(retry_delay_max, GREATEST(retry_delay, 1) * (2^LEAST(16, n+1)/2 + 2^LEAST(16, n+1)/2 * random()))`.
 */
function retrySpan(o: JobOptions) {
  const q = queueRetryOptions(o);
  const cap = ("retryDelayMax" in q ? q.retryDelayMax : undefined) ?? Number.POSITIVE_INFINITY;
  let min = 0;
  let max = 0;
  for (let n = 0; n < q.retryLimit; n++) {
    if (!q.retryBackoff) {
      min += q.retryDelay;
      max += q.retryDelay;
      continue;
    }
    const half = (Math.max(q.retryDelay, 1) * 2 ** Math.min(16, n + 1)) / 2;
    min += Math.min(cap, half); // random() = 0
    max += Math.min(cap, half * 2); // random() -> 1
  }
  return { min, max };
}

const HOUR = 3600;

describe("retry schedules as pg-boss runs them", () => {
  it("webhook deliveries retry over about a day (issue 15), not ~45 minutes under the 300 s default cap", () => {
    const span = retrySpan(deliverWebhookJob.options!);
    expect(span.min).toBeGreaterThanOrEqual(20 * HOUR);
    expect(span.max).toBeLessThanOrEqual(36 * HOUR);
    // the figures the contract's docstring and the README state
    expect(span).toEqual({ min: 81_880, max: 125_040 });
    // what the schedule was without a cap of its own
    const uncapped = retrySpan({ ...deliverWebhookJob.options, retryDelayMax: undefined });
    expect(uncapped.max).toBeLessThan(1 * HOUR);
  });

  it("the Google content purge backs off from 5 minutes to at most 1 hour (2.25 to 3.2 hours in all)", () => {
    expect(retrySpan(purgeGoogleContentJob.options!)).toEqual({ min: 8100, max: 11_400 });
    const o = queueRetryOptions(purgeGoogleContentJob.options!);
    // backoff that can grow: the first wait is below the cap
    expect(o.retryDelay).toBeLessThan(o.retryDelayMax!);
  });

  it("fills in the defaults: backoff capped at 300 s, no cap without backoff (pg-boss refuses one)", () => {
    expect(queueRetryOptions({})).toEqual({
      retryLimit: 2,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: DEFAULT_RETRY_DELAY_MAX_S,
      expireInSeconds: 900,
    });
    expect(queueRetryOptions({ retryBackoff: false, retryDelayMax: 60 })).not.toHaveProperty("retryDelayMax");
  });
});
