import { z } from "zod";
import { AVATAR_PROVIDERS } from "../../db/schema";
import { defineJob } from "../../jobs/contract";

/** Job contracts of the campaigns feature (what callers enqueue); the work is in campaigns.handlers.ts. */

/**
 * Starts (or restarts after resume / resend-failed) a campaign: a scheduled campaign whose time came
 * becomes `sending`; then one send job per due recipient is enqueued and the watchdog armed.
 */
export const fanOutJob = defineJob({
  name: "campaigns.fan-out",
  schema: z.object({ campaignId: z.number().int().positive() }),
  // a launch waits on it: fetched within 0.5 s
  options: { retryLimit: 5, expireInSeconds: 300, pollingIntervalSeconds: 0.5 },
});

/**
 * Sends to campaign recipients by row id: `recipientIds` (up to SEND_CHUNK = 500 per job from
 * fan-out) or the older single `recipientId`. The rows' status machine decides what is sent, so a
 * duplicate or stale job sends nothing twice.
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
});

/** Watchdog pass of a sending campaign (completion, lost-job recovery); re-schedules itself. */
export const watchCampaignJob = defineJob({
  name: "campaigns.watch",
  schema: z.object({ campaignId: z.number().int().positive() }),
  options: { retryLimit: 10, retryDelay: 2, expireInSeconds: 60, localConcurrency: 1 },
});

/** Local providers only: simulates delivery, opens, clicks and replies for a completed campaign. */
export const simulateEngagementJob = defineJob({
  name: "campaigns.simulate-engagement",
  schema: z.object({ campaignId: z.number().int().positive() }),
  options: { retryLimit: 2 },
});

/**
 * Renders one recipient's personalised avatar video of a video campaign, then releases that
 * recipient's held message. The queue keeps the name it had when video campaigns lived in studio/
 * (jobs already queued under it still run).
 */
export const renderRecipientAvatarJob = defineJob({
  name: "studio.render-recipient-avatar",
  schema: z.object({
    videoCampaignId: z.number().int().positive(),
    recipientId: z.number().int().positive(),
    provider: z.enum(AVATAR_PROVIDERS),
    script: z.string().min(1).max(5000),
    title: z.string().max(200),
    /** set once the avatar video exists: the job then waits for it */
    avatarVideoId: z.string().uuid().optional(),
    /** re-queues so far (part of the job id) */
    round: z.number().int().min(0).default(0),
  }),
  options: { retryLimit: 3, retryDelay: 5, expireInSeconds: 900 },
});

/**
 * Emails the person who launched a campaign (or, once they have left the workspace, its owner) that
 * it finished, with its results, unless they turned Campaign Notifications off (Settings >
 * Preferences, spec: campaignNotifications, default on). Enqueued once per completion (job id per
 * campaign and send round) by the watchdog's completion.
 */
export const notifyCampaignCompletedJob = defineJob({
  name: "campaigns.notify-completed",
  schema: z.object({ campaignId: z.number().int().positive() }),
  options: { retryLimit: 3 },
});
