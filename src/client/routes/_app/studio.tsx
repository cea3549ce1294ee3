import { createFileRoute, useNavigate } from "@tanstack/react-router";
import { Bot, Film, Mic, UploadCloud, Video } from "lucide-react";
import { PageHeader } from "@/client/components/layout/page-header";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/client/components/ui/tabs";
import { AiAvatarPanel } from "@/client/features/studio/ai-avatar-panel";
import { AudioRecorder } from "@/client/features/studio/audio-recorder";
import { useInvalidateMedia } from "@/client/features/studio/media-api";
import { MediaLibrary } from "@/client/features/studio/media-library";
import { STUDIO_TABS, type StudioTab } from "@/client/features/studio/types";
import { UploadPanel } from "@/client/features/studio/upload-panel";
import { VideoEditorTab } from "@/client/features/studio/video-editor";
import { VideoRecorder } from "@/client/features/studio/video-recorder";

export { STUDIO_TABS, type StudioTab };

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
      ...(search.draftId !== undefined && Number.isInteger(draftId) && draftId > 0 ? { draftId } : {}),
    };
  },
  component: StudioPage,
});

const TABS = [
  { value: "record-video", label: "Record Video", icon: Video },
  { value: "record-audio", label: "Record Audio", icon: Mic },
  { value: "upload", label: "Upload", icon: UploadCloud },
  { value: "ai-avatar", label: "AI Avatar", icon: Bot },
  { value: "editor", label: "Video Editor", icon: Film },
] as const;

/** /studio (spec section 2): five tabs (tab and draftId search params) above the media library grid. */
function StudioPage() {
  const { tab, draftId } = Route.useSearch();
  const navigate = useNavigate({ from: "/studio" });
  const invalidate = useInvalidateMedia();
  const active = tab === "library" || !tab ? "record-video" : tab;

  return (
    <>
      <PageHeader
        title="Complete Recording & Editing Studio"
        description="Record, upload, generate and edit videos and audio for your campaigns."
      />
      <Tabs value={active} onValueChange={(v) => void navigate({ search: { tab: v as StudioTab } })}>
        <TabsList className="h-auto flex-wrap">
          {TABS.map(({ value, label, icon: Icon }) => (
            <TabsTrigger key={value} value={value} className="py-1.5">
              <Icon className="size-4" aria-hidden /> {label}
            </TabsTrigger>
          ))}
        </TabsList>
        <TabsContent value="record-video">{active === "record-video" && <VideoRecorder />}</TabsContent>
        <TabsContent value="record-audio">{active === "record-audio" && <AudioRecorder />}</TabsContent>
        <TabsContent value="upload">
          <UploadPanel />
        </TabsContent>
        <TabsContent value="ai-avatar">
          <AiAvatarPanel onCreated={() => void invalidate()} />
        </TabsContent>
        <TabsContent value="editor">
          {active === "editor" && <VideoEditorTab draftId={draftId} />}
        </TabsContent>
      </Tabs>
      <div
        id="library"
        ref={(el) => {
          if (el && tab === "library") el.scrollIntoView();
        }}
      >
        <MediaLibrary />
      </div>
    </>
  );
}
