import { type AnyJobDefinition, defineHandler } from "../../jobs/define";
import { simulateCallStatuses } from "./campaigns.call-outcomes";
import { fanOut, processRecipients, watchCampaign } from "./campaigns.engine";
import { simulateEngagement } from "./campaigns.events";
import {
  fanOutJob,
  notifyCampaignCompletedJob,
  sendMessageJob,
  simulateEngagementJob,
  watchCampaignJob,
} from "./campaigns.jobs";
import { notifyCampaignCompleted } from "./campaigns.notify";
import { beginScheduledCampaign, selectCampaign } from "./campaigns.queries";
import { renderRecipientAvatarHandler } from "./campaigns.video-avatars";

/**
 * Starts (or restarts after resume / resend-failed) a campaign: a scheduled campaign whose time came
 * becomes `sending`; then one send job per due recipient is enqueued and the watchdog armed.
 */
const fanOutHandler = defineHandler(fanOutJob, {
  handler: async ({ campaignId }, deps) => {
    let c = await selectCampaign(deps.db, campaignId);
    if (!c) return;
    if (c.status === "scheduled") {
      if (c.scheduledAt && c.scheduledAt.getTime() > Date.now() + 1000) return; // rescheduled later; that job will run
      // compare-and-set: a pause or cancel that got there first wins; a second fan-out of the same
      // time (launch, then pause and resume before it) finds it sending: its fan-out re-enqueues
      // the same deterministic job ids, which changes nothing
      if (await beginScheduledCampaign(deps.db, campaignId)) c.status = "sending";
      else c = await selectCampaign(deps.db, campaignId);
    }
    if (c?.status !== "sending") return;
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
const sendMessageHandler = defineHandler(sendMessageJob, {
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
const watchCampaignHandler = defineHandler(watchCampaignJob, {
  handler: async ({ campaignId }, deps) => {
    await watchCampaign(deps, campaignId);
  },
});

/**
 * Local providers only: simulates delivery, opens, clicks and replies for a completed campaign; a
 * voice campaign's calls first end as the local voice provider acted them out (busy, no answer,
 * failed, a machine or a person: simulateCallStatuses, through the Twilio status webhook's handler).
 */
const simulateEngagementHandler = defineHandler(simulateEngagementJob, {
  handler: async ({ campaignId }, deps) => {
    await simulateCallStatuses(deps, campaignId);
    await simulateEngagement(deps, campaignId);
  },
});

/** The campaign-finished email to whoever launched it (campaigns.notify). */
const notifyCompletedHandler = defineHandler(notifyCampaignCompletedJob, {
  handler: async ({ campaignId }, deps) => {
    await notifyCampaignCompleted(deps, campaignId);
  },
});

/** The campaigns feature's job handlers (worker registry). */
export const campaignsHandlers: AnyJobDefinition[] = [
  fanOutHandler,
  sendMessageHandler,
  watchCampaignHandler,
  simulateEngagementHandler,
  renderRecipientAvatarHandler,
  notifyCompletedHandler,
];
