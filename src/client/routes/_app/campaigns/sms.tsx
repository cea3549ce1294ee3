import { createFileRoute, useLocation } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { parseAudienceHandOff } from "@/client/features/campaigns/audience";
import { SmsCampaignBuilder } from "@/client/features/campaigns/sms-builder";

export const Route = createFileRoute("/_app/campaigns/sms")({
  component: SmsCampaignPage,
});

/**
 * /campaigns/sms (spec section 2): the 4-step SMS campaign builder. A history entry that carries an
 * audience hand-off (Business Search's "Start a campaign": router state `campaignAudience`, validated
 * by parseAudienceHandOff) opens the builder with those contacts selected; the entry keeps it, so a
 * reload or Back shows the same selection, and the sidebar's plain link opens an empty builder (the
 * builder is keyed by the hand-off, so it is never carried into another one).
 */
function SmsCampaignPage() {
  const raw = useLocation({ select: (l) => l.state.campaignAudience });
  const key = JSON.stringify(raw ?? null);
  // validated on every render (a shell that renders when the entry's hand-off changes)
  const handOff = parseAudienceHandOff(raw);
  return (
    <>
      <PageHeader
        title="SMS Campaign"
        description="Write a text message with merge tags, pick your contacts and launch."
      />
      <SmsCampaignBuilder key={key} handOff={handOff} />
    </>
  );
}
