import { createFileRoute } from "@tanstack/react-router";
import { PageHeader } from "@/client/components/layout/page-header";
import { VoiceCampaignBuilder } from "@/client/features/campaigns/voice-builder";

export interface VoiceCampaignSearch {
  /** preselects a recording (the media library's 'Use in Campaign' on an audio file) */
  audioId?: number;
}

export const Route = createFileRoute("/_app/campaigns/voice")({
  validateSearch: (search: Record<string, unknown>): VoiceCampaignSearch => {
    const id = Number(search.audioId);
    return Number.isInteger(id) && id > 0 ? { audioId: id } : {};
  },
  component: VoiceCampaignPage,
});

/** /campaigns/voice: ringless voicemail campaign builder (4 steps). */
function VoiceCampaignPage() {
  const { audioId } = Route.useSearch();
  return (
    <>
      <PageHeader
        title="Voicemail Campaign"
        description="Drop a recording or a text-to-speech message straight into voicemail, without ringing."
      />
      <VoiceCampaignBuilder kind="voicemail" initialAudioId={audioId} />
    </>
  );
}
