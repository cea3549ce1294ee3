import { createFileRoute, Link } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { buttonVariants } from "@/client/components/ui/button";
import { CampaignList } from "@/client/features/campaigns/campaign-report";

export const Route = createFileRoute("/_app/campaigns/")({
  component: CampaignsPage,
});

/** /campaigns: every campaign with live progress. */
function CampaignsPage() {
  return (
    <>
      <PageHeader
        title="Campaigns"
        description="Everything you have sent, with live progress."
        actions={
          <>
            <Link to="/email-campaign" className={buttonVariants({ variant: "outline" })}>
              Email
            </Link>
            <Link to="/campaigns/sms" className={buttonVariants({ variant: "outline" })}>
              SMS
            </Link>
            <Link to="/campaigns/call" className={buttonVariants({ variant: "outline" })}>
              Call
            </Link>
            <Link to="/campaigns/voice" className={buttonVariants({ variant: "outline" })}>
              Voice
            </Link>
          </>
        }
      />
      <CampaignList />
    </>
  );
}
