import { createFileRoute } from "@tanstack/react-router";
import { Clapperboard } from "lucide-react";
import { ComingSoonPage } from "@/client/components/layout/coming-soon";

/** Tabs of /studio: the five studio tabs plus "library" (spec section 2). */
export const STUDIO_TABS = [
  "record-video",
  "record-audio",
  "upload",
  "ai-avatar",
  "editor",
  "library",
] as const;
export type StudioTab = (typeof STUDIO_TABS)[number];

export interface StudioSearch {
  tab?: StudioTab;
  /** media id of a draft to open in the editor */
  draftId?: number;
}

export const Route = createFileRoute("/_app/studio")({
  validateSearch: (search: Record<string, unknown>): StudioSearch => {
    const tab = STUDIO_TABS.find((t) => t === search.tab);
    const draftId = Number(search.draftId);
    return {
      ...(tab ? { tab } : {}),
      ...(search.draftId !== undefined && Number.isFinite(draftId) ? { draftId } : {}),
    };
  },
  component: StudioPage,
});

function StudioPage() {
  return (
    <ComingSoonPage
      title="Complete Recording & Editing Studio"
      icon={Clapperboard}
      description="Record video and audio, upload media, generate AI avatar videos and edit them, all in one place."
    />
  );
}
