import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

type CampaignsOut = inferRouterOutputs<AppRouter>["campaigns"];
/** A campaign in lists and reports (tRPC `campaigns.list`; dates arrive as Date over superjson). */
export type CampaignSummary = CampaignsOut["list"][number];
/** A campaign report: summary, content, segments sent and the activity timeline (tRPC `campaigns.report`). */
export type CampaignReport = CampaignsOut["report"];
/** One row of a campaign's recipients table (tRPC `campaigns.recipients`). */
export type RecipientRow = CampaignsOut["recipients"]["recipients"][number];
export type CampaignChannel = CampaignSummary["channel"];
export type CampaignStatus = CampaignSummary["status"];

export const CHANNEL_LABELS: Record<CampaignChannel, string> = {
  email: "Email",
  sms: "SMS",
  voice: "AI call",
  voicemail: "Voicemail",
  video_email: "Video (email)",
  video_sms: "Video (SMS)",
};
