import { createFileRoute } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { VideoCampaignBuilder } from "@/client/features/studio/video-campaign-builder";

export interface VideoCampaignSearch {
  /** preselects a video (the library's 'Use in Campaign') */
  videoId?: number;
}

export const Route = createFileRoute("/_app/campaigns/video")({
  validateSearch: (search: Record<string, unknown>): VideoCampaignSearch => {
    const id = Number(search.videoId);
    return Number.isInteger(id) && id > 0 ? { videoId: id } : {};
  },
  component: VideoCampaignPage,
});

/** /campaigns/video (spec section 2): the 4-step video campaign builder. */
function VideoCampaignPage() {
  const { videoId } = Route.useSearch();
  return (
    <>
      <PageHeader
        title="Video Campaign"
        description="Send a personal video page to every contact by email or SMS."
      />
      <VideoCampaignBuilder initialVideoId={videoId} />
    </>
  );
}
