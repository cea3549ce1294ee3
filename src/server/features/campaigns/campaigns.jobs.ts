import { eq } from "drizzle-orm";
import { z } from "zod";
import { campaigns } from "../../db/schema";
import { defineJob } from "../../jobs/define";
import { fanOut, processRecipients, watchCampaign } from "./campaigns.engine";
import { simulateEngagement } from "./campaigns.events";

/**
 * Starts (or restarts after resume / resend-failed) a campaign: a scheduled campaign whose time came
 * becomes `sending`; then one send job per due recipient is enqueued and the watchdog armed.
 */
export const fanOutJob = defineJob({
  name: "campaigns.fan-out",
  schema: z.object({ campaignId: z.number().int().positive() }),
  options: { retryLimit: 5, expireInSeconds: 300 },
  handler: async ({ campaignId }, deps) => {
    const [c] = await deps.db.select().from(campaigns).where(eq(campaigns.id, campaignId));
    if (!c) return;
    if (c.status === "scheduled") {
      if (c.scheduledAt && c.scheduledAt.getTime() > Date.now() + 1000) return; // rescheduled later; that job will run
      await deps.db
        .update(campaigns)
        .set({ status: "sending", startedAt: new Date(), updatedAt: new Date() })
        .where(eq(campaigns.id, campaignId));
      c.status = "sending";
    }
    if (c.status !== "sending") return;
    await fanOut(deps, c);
    await watchCampaign(deps, campaignId);
  },
});

/**
 * Sends to campaign recipients: `recipientIds` (fan-out puts up to SEND_CHUNK = 500 in one job; the
 * idempotency key is each recipient row, unique per campaign, contact and channel, and its status
 * machine decides what is sent, so a duplicate or stale job sends nothing twice). `recipientId` is
 * the single-recipient form of older jobs. Under pg-boss the jobs of one fetch (2) are handled in
 * one call (`batchHandler`), in chunks of 500.
 */
export const sendMessageJob = defineJob({
  name: "campaigns.send-message",
  schema: z
    .object({
      recipientId: z.number().int().positive().optional(),
      recipientIds: z.array(z.number().int().positive()).max(5000).optional(),
    })
    .refine((d) => d.recipientId !== undefined || (d.recipientIds?.length ?? 0) > 0, {
      message: "recipientId or recipientIds is required",
    }),
  options: {
    retryLimit: 5,
    expireInSeconds: 120,
    // a job holds up to 500 recipients: 2 jobs per fetch, 2 fetch loops keep 4 chunks in flight
    // while one fetch stays far below expireInSeconds even at a low throttle (voice: 50/s)
    batchSize: 2,
    localConcurrency: 2,
    pollingIntervalSeconds: 0.5,
  },
  handler: async (data, deps) => {
    await processRecipients(deps, recipientIdsOf(data));
  },
  batchHandler: async (items, deps) => {
    await processRecipients(
      deps,
      items.flatMap((i) => recipientIdsOf(i.data)),
    );
  },
});

function recipientIdsOf(d: { recipientId?: number; recipientIds?: number[] }): number[] {
  return [...(d.recipientIds ?? []), ...(d.recipientId !== undefined ? [d.recipientId] : [])];
}

/** Watchdog pass of a sending campaign (completion, lost-job recovery); re-schedules itself. */
export const watchCampaignJob = defineJob({
  name: "campaigns.watch",
  schema: z.object({ campaignId: z.number().int().positive() }),
  options: { retryLimit: 10, retryDelay: 2, expireInSeconds: 60, localConcurrency: 1 },
  handler: async ({ campaignId }, deps) => {
    await watchCampaign(deps, campaignId);
  },
});

/** Local providers only: simulates delivery, opens, clicks and replies for a completed campaign. */
export const simulateEngagementJob = defineJob({
  name: "campaigns.simulate-engagement",
  schema: z.object({ campaignId: z.number().int().positive() }),
  options: { retryLimit: 2 },
  handler: async ({ campaignId }, deps) => {
    await simulateEngagement(deps, campaignId);
  },
});

/** pg-boss jobs of the campaigns feature. */
export const campaignsJobs = [fanOutJob, sendMessageJob, watchCampaignJob, simulateEngagementJob];
