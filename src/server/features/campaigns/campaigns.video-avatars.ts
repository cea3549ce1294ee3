import type { z } from "zod";
import type { AppContext } from "../../context";
import type { AVATAR_PROVIDERS } from "../../db/schema";
import { defineHandler, type JobDeps } from "../../jobs/define";
import { AppError } from "../../lib/errors";
import { uuidFromKey } from "../../lib/ids";
import { MY_BUSINESS_TAG, mergeFor, renderMergeTags } from "../../lib/merge-tags";
import { createAvatarVideo, getAvatarVideo } from "../avatar/avatar.service";
import { releaseCampaignUsage } from "../billing/billing.service";
import { getContactsByIds } from "../crm/crm.service";
import { getSenderProfile } from "../workspaces/workspaces.service";
import { launchOf } from "./campaigns.delivery";
import { enqueueDue } from "./campaigns.engine";
import { renderRecipientAvatarJob, watchCampaignJob } from "./campaigns.jobs";
import { selectCampaign } from "./campaigns.queries";
import {
  holdQueuedRecipients,
  insertLandingPage,
  releaseQueuedRecipient,
  selectRecipientWithVideoCampaign,
  skipQueuedRecipient,
  startScheduledCampaign,
} from "./campaigns.video.queries";

/**
 * How long a personalised recipient's message is held for its avatar video (the campaign engine does
 * not claim a queued row before its `not_before`); the render job releases it as soon as the video is
 * ready. 24 hours, milliseconds.
 */
export const AVATAR_HOLD_MS = 24 * 60 * 60 * 1000;
/** A render that found the user's in-progress cap full tries again after this many seconds. */
export const RENDER_RETRY_SECONDS = 10;

type RenderData = z.output<typeof renderRecipientAvatarJob.schema>;

async function again(deps: JobDeps, data: RenderData, delaySeconds: number) {
  const next = { ...data, round: data.round + 1 };
  await deps.jobs.send(renderRecipientAvatarJob, next, {
    id: uuidFromKey(`avatar-campaign:${data.recipientId}:${next.round}`),
    startAfter: new Date(Date.now() + delaySeconds * 1000),
  });
}

/** Skips a held recipient whose avatar video failed (it never gets a message without its video). */
async function skipRecipient(deps: JobDeps, recipientId: number, campaignId: number, reason: string) {
  if (await skipQueuedRecipient(deps.db, recipientId, reason)) {
    // never sent: its video message unit goes back to the plan's meter
    const campaign = await selectCampaign(deps.db, campaignId);
    if (campaign) await releaseCampaignUsage(deps, launchOf(campaign), 1);
  }
  await deps.jobs.send(watchCampaignJob, { campaignId });
}

/**
 * Renders one recipient's personalised avatar video of a video campaign and then releases that
 * recipient's message. Throttled per user: when the avatar feature's in-progress cap
 * (MAX_IN_PROGRESS_PER_USER) is full the job re-queues itself after RENDER_RETRY_SECONDS instead of
 * failing. Once the video is in the library the recipient's landing page row is created with it
 * (so `/v/{token}` plays this recipient's own video), the hold (`not_before`) is cleared and the
 * send job enqueued; a failed video skips the recipient with the reason.
 */
export const renderRecipientAvatarHandler = defineHandler(renderRecipientAvatarJob, {
  handler: async (data, deps) => {
    const row = await selectRecipientWithVideoCampaign(deps.db, data.recipientId, data.videoCampaignId);
    if (row?.r.status !== "queued") return; // cancelled, skipped or already released
    const { r, vc } = row;
    if (!data.avatarVideoId) {
      let created: Awaited<ReturnType<typeof createAvatarVideo>>;
      try {
        created = await createAvatarVideo(deps, r.workspaceId, data.provider, {
          script: data.script,
          title: data.title,
        });
      } catch (error) {
        if (error instanceof AppError && error.code === "TOO_MANY_REQUESTS") {
          await again(deps, data, RENDER_RETRY_SECONDS);
          return;
        }
        if (error instanceof AppError) {
          await skipRecipient(deps, r.id, r.campaignId, `avatar video failed: ${error.message}`);
          return;
        }
        throw error;
      }
      data = { ...data, avatarVideoId: created.videoId };
    }
    const video = await getAvatarVideo(deps, r.workspaceId, data.avatarVideoId as string);
    if (!video || video.status === "error") {
      await skipRecipient(
        deps,
        r.id,
        r.campaignId,
        `avatar video failed: ${video?.error ?? "video deleted"}`,
      );
      return;
    }
    if (video.status !== "completed" || !video.mediaId) {
      await again(deps, data, deps.env.AVATAR_POLL_INTERVAL_SECONDS);
      return;
    }
    const [contact] = r.contactId === null ? [] : await getContactsByIds(deps, r.workspaceId, [r.contactId]);
    const sender = await getSenderProfile(deps, r.workspaceId);
    await insertLandingPage(
      deps.db,
      {
        workspaceId: r.workspaceId,
        token: r.token,
        mediaId: video.mediaId,
        campaignId: String(r.campaignId),
        contactId: r.contactId,
        recipientName: contact
          ? [contact.firstName, contact.lastName].filter(Boolean).join(" ") || null
          : null,
        recipientEmail: contact?.email ?? null,
        recipientPhone: contact?.phone ?? null,
        message: mergeFor(vc.message, contact ?? {}, sender.businessName),
        ctaLabel: vc.ctaLabel,
        ctaUrl: vc.ctaUrl,
      },
      "media",
    );
    if (!(await releaseQueuedRecipient(deps.db, r.id))) return;
    const campaign = await selectCampaign(deps.db, r.campaignId);
    if (!campaign) return;
    await enqueueDue(deps, campaign, [r.id]);
    await deps.jobs.send(watchCampaignJob, { campaignId: campaign.id });
  },
});

/**
 * Holds every queued recipient of a just-launched personalised campaign (`not_before` AVATAR_HOLD_MS
 * ahead), starts the campaign (`scheduled` -> `sending`) and queues one render job per recipient with
 * the script merged for that contact (the campaigns merge-tag renderer: `{{name|there}}`, any field).
 * Returns how many renders were queued.
 */
export async function queueRecipientAvatars(
  ctx: Pick<AppContext, "db" | "jobs">,
  input: {
    campaignId: number;
    videoCampaignId: number;
    campaignName: string;
    provider: (typeof AVATAR_PROVIDERS)[number];
    script: string;
    /** the workspace's sender name, for `{{my_business}}` */
    myBusiness?: string;
  },
): Promise<number> {
  const hold = new Date(Date.now() + AVATAR_HOLD_MS);
  const held = await holdQueuedRecipients(ctx.db, input.campaignId, hold);
  await startScheduledCampaign(ctx.db, input.campaignId);
  if (held.length === 0) return 0;
  const rows = await getContactsByIds(
    ctx,
    held[0].workspaceId,
    held.flatMap((h) => (h.contactId === null ? [] : [h.contactId])),
  );
  const byId = new Map(rows.map((c) => [c.id, c]));
  const jobs = held
    .sort((a, b) => a.id - b.id)
    .map((h) => {
      const contact = (h.contactId === null ? undefined : byId.get(h.contactId)) ?? {};
      const who = renderMergeTags("{{name|}}", contact) || "recipient";
      return {
        data: {
          videoCampaignId: input.videoCampaignId,
          recipientId: h.id,
          provider: input.provider,
          script: renderMergeTags(input.script, contact, {
            extra: { [MY_BUSINESS_TAG]: input.myBusiness ?? "" },
          }).slice(0, 5000),
          title: `${input.campaignName}: ${who}`.slice(0, 200),
          round: 0,
        },
        options: { id: uuidFromKey(`avatar-campaign:${h.id}:0`) },
      };
    });
  await ctx.jobs.sendMany(renderRecipientAvatarJob, jobs);
  return jobs.length;
}
