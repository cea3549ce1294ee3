import { AlertBanner } from "@/client/components/ui/alert-banner";
import { PlanWayOut, useUsage } from "@/client/features/billing/usage";

/** What each campaign builder needs of the plan (the server's `billing.usage` `features`). */
const CHANNEL = {
  sms: { feature: "smsVoiceCampaigns", title: "SMS campaigns" },
  voice: { feature: "smsVoiceCampaigns", title: "Voice campaigns" },
  voicemail: { feature: "smsVoiceCampaigns", title: "Ringless voicemail campaigns" },
  video: { feature: "videoCampaigns", title: "Video campaigns" },
} as const;

/**
 * The top of the SMS, voice, voicemail and video campaign builders: when the plan in force does not
 * include the channel (the server's `billing.usage` `features`; a paid plan held by an unpaid or
 * paused subscription counts as Free), says so when the builder opens, not only when Launch is
 * refused at the last step. The campaign can still be built (and its preflight read); the owner gets
 * the way out (Billing for a held plan, else /pricing). Nothing while the plan includes it.
 */
export function PlanFeatureNotice({ channel }: { channel: keyof typeof CHANNEL }) {
  const { data } = useUsage();
  const { feature, title } = CHANNEL[channel];
  if (!data || data.features[feature]) return null;
  const held = data.held_plan_name;
  return (
    <AlertBanner variant="warning" title={`${title} are not included in the ${data.plan_name} plan`}>
      {held
        ? `You can build this campaign, and launch it once your ${held} subscription is paid. `
        : "You can build this campaign, and launch it once the workspace is on a plan that includes it. "}
      <PlanWayOut data={data} />
    </AlertBanner>
  );
}
