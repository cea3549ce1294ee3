import { z } from "zod";
import { recordId } from "../../lib/validate";
import { protectedProcedure, router } from "../../trpc/init";
import { getSenderProfile } from "../workspaces/workspaces.service";
import { preflightAudience } from "./campaigns.audience";
import { senderFrom } from "./campaigns.content";
import {
  campaignIdInput,
  campaignReportInput,
  createCampaignInput,
  emailTestInput,
  preflightInput,
  recipientsQuery,
  rescheduleInput,
} from "./campaigns.schemas";
import * as svc from "./campaigns.service";
import { launchVideoCampaign, type VideoCampaignInput, videoCampaignStats } from "./campaigns.video";

/** tRPC `campaigns` router: every channel's create+launch, list, report, recipients and actions. */
export const campaignsRouter = router({
  list: protectedProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).optional() }).optional())
    .query(({ ctx, input }) => svc.listCampaigns(ctx, ctx.workspaceId, input ?? {})),
  /** A campaign's report; `timeZone` (IANA, the viewer's) is where its timeline's hours and days are cut. */
  report: protectedProcedure
    .input(campaignReportInput)
    .query(({ ctx, input }) =>
      svc.getCampaignReport(ctx, ctx.workspaceId, input.id, ctx.tenant.role, input.timeZone),
    ),
  recipients: protectedProcedure
    .input(recipientsQuery)
    .query(({ ctx, input }) => svc.listRecipients(ctx, ctx.workspaceId, input)),
  create: protectedProcedure
    .input(createCampaignInput)
    .mutation(({ ctx, input }) =>
      svc.createAndLaunchCampaign(ctx, ctx.workspaceId, input, ctx.tenant.userId, ctx.tenant.workspace),
    ),
  /**
   * What launching would do: `{audienceSize, willSendNow, deferred, skipped}` (issue 14). A mutation
   * only for transport (a CSV audience is too large for a GET URL); it changes nothing.
   */
  preflight: protectedProcedure
    .input(preflightInput)
    .mutation(({ ctx, input }) => preflightAudience(ctx, ctx.workspaceId, input)),
  /**
   * Who campaigns come from, for the builders' previews and review: `myBusiness` is what
   * `{{my_business}}` renders to, `from` the exact From header of campaign emails.
   */
  sender: protectedProcedure.query(async ({ ctx }) => {
    const profile = await getSenderProfile(ctx, ctx.workspaceId);
    return { myBusiness: profile.businessName, from: senderFrom(profile.businessName, ctx.env.EMAIL_FROM) };
  }),
  sendTest: protectedProcedure
    .input(emailTestInput)
    .mutation(({ ctx, input }) => svc.sendTestEmail(ctx, ctx.tenant, input)),
  pause: protectedProcedure
    .input(campaignIdInput)
    .mutation(({ ctx, input }) => svc.pauseCampaign(ctx, ctx.workspaceId, input.id)),
  resume: protectedProcedure
    .input(campaignIdInput)
    .mutation(({ ctx, input }) => svc.resumeCampaign(ctx, ctx.workspaceId, input.id)),
  cancel: protectedProcedure
    .input(campaignIdInput)
    .mutation(({ ctx, input }) => svc.cancelCampaign(ctx, ctx.workspaceId, input.id)),
  /** a scheduled campaign's new send time (rescheduleCampaign) */
  reschedule: protectedProcedure
    .input(rescheduleInput)
    .mutation(({ ctx, input }) => svc.rescheduleCampaign(ctx, ctx.workspaceId, input)),
  resendFailed: protectedProcedure
    .input(campaignIdInput)
    .mutation(({ ctx, input }) => svc.resendFailed(ctx, ctx.workspaceId, input.id)),
  /**
   * Same input as POST /api/campaigns/video, validated by the service (its sentences); typed here for
   * the client (`VideoCampaignInput`, incl. `launchToken`), not checked twice.
   */
  launchVideoCampaign: protectedProcedure
    .input(z.custom<VideoCampaignInput>())
    .mutation(async ({ ctx, input }) => {
      const r = await launchVideoCampaign(ctx, ctx.workspaceId, input, ctx.tenant.userId);
      return {
        campaign: r.campaign,
        queued: r.queued,
        skipped: r.skipped,
        // an identical launch's answer (createAndLaunchCampaign `repeated` / `otherLaunch`)
        repeated: r.repeated ?? false,
        otherLaunch: r.otherLaunch ?? false,
      };
    }),
  videoCampaignStats: protectedProcedure
    .input(z.object({ campaignId: recordId("Campaign id") }))
    .query(async ({ ctx, input }) => videoCampaignStats(ctx, ctx.workspaceId, input.campaignId)),
});
