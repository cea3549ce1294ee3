import { useQuery } from "@tanstack/react-query";
import { createFileRoute, Link } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { CampaignReport } from "@/client/features/campaigns/campaign-report";
import { viewerTimeZone } from "@/client/features/campaigns/report-time";
import { useTRPC } from "@/client/trpc";

export const Route = createFileRoute("/_app/campaigns/$id")({
  component: CampaignReportPage,
});

/** /campaigns/:id: the campaign report. */
function CampaignReportPage() {
  const { id } = Route.useParams();
  const n = Number(id);
  const trpc = useTRPC();
  const { data } = useQuery({
    // the same query (and input) as the report below: one request for both
    ...trpc.campaigns.report.queryOptions({ id: n, timeZone: viewerTimeZone() }),
    enabled: Number.isInteger(n) && n > 0,
  });
  return (
    <>
      <PageHeader
        title={data?.campaign.name ?? "Campaign report"}
        description={<Link to="/campaigns">All campaigns</Link>}
      />
      {Number.isInteger(n) && n > 0 ? <CampaignReport id={n} /> : <p>Campaign not found</p>}
    </>
  );
}
