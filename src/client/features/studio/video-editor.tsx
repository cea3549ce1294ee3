import { useNavigate } from "@tanstack/react-router";
import { ArrowLeft, Film, Loader2, Pencil, Play, Trash2 } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card } from "@/client/components/ui/card";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Skeleton } from "@/client/components/ui/skeleton";
import { errorMessage, isServerRefusal } from "@/client/lib/errors";
import { cn } from "@/client/lib/utils";
import { AdvancedEditor } from "./advanced-editor";
import { formatDuration } from "./format";
import { useInvalidateMedia, useMediaList, useStudioClient } from "./media-api";
import { DeleteMediaDescription, useMediaUses } from "./media-uses";
import { SimpleEditor } from "./simple-editor";
import type { Media } from "./types";

/**
 * The studio's editor tab (spec sections 2, 4, 8): with `draftId` it opens that draft and rewrites
 * the address to /studio?tab=editor; otherwise a grid of videos (Draft badge, Edit Video, play
 * overlay) or 'No videos available'. The editor view has a Basic/Advanced toggle and Delete Video.
 */
export function VideoEditorTab({ draftId }: { draftId?: number }) {
  const navigate = useNavigate();
  const invalidate = useInvalidateMedia();
  const studio = useStudioClient();
  const { data, isLoading, isError } = useMediaList();
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [mode, setMode] = useState<"basic" | "advanced">("advanced");
  const [notFound, setNotFound] = useState(false);
  const [deleting, setDeleting] = useState(false);
  // the video whose Delete Video asks for confirmation
  const [confirming, setConfirming] = useState<Media | null>(null);
  // the campaigns using it (its deletion is refused while one still has messages to send)
  const uses = useMediaUses(confirming?.id ?? 0, confirming !== null);
  // after a confirmed delete focus goes to the Video Editor tab panel (the selector shown again),
  // found from the editor view's root as the dialog opens
  const root = useRef<HTMLDivElement>(null);
  const panel = useRef<HTMLElement | null>(null);

  useEffect(() => {
    if (draftId === undefined || !data) return;
    if (data.some((m) => m.id === draftId && m.type === "video")) {
      setSelectedId(draftId);
      setNotFound(false);
    } else setNotFound(true);
    void navigate({ to: "/studio", search: { tab: "editor" }, replace: true });
  }, [draftId, data, navigate]);

  const videos = (data ?? []).filter((m) => m.type === "video");
  const selected = videos.find((m) => m.id === selectedId) ?? null;

  /** Deletes `m` (already confirmed), then shows the selector again and reloads the list (spec section 4). */
  async function remove(m: Media) {
    setDeleting(true);
    try {
      await studio.delete.mutate({ id: m.id });
      toast.success("Video deleted successfully!");
      setSelectedId(null);
      await invalidate();
    } catch (error) {
      if (isServerRefusal(error)) toast.error(`Failed to delete: ${errorMessage(error, "Unknown error")}`);
      else toast.error(`Error deleting video: ${error instanceof Error ? error.message : "Unknown error"}`);
    } finally {
      setDeleting(false);
    }
  }

  if (isError)
    return <AlertBanner variant="error">Failed to load media library. Please refresh the page.</AlertBanner>;
  if (isLoading) return <Skeleton className="h-64 w-full rounded-xl" />;

  if (selected) {
    return (
      <div className="space-y-4" ref={root}>
        <div className="flex flex-wrap items-center gap-3">
          <Button variant="ghost" size="sm" onClick={() => setSelectedId(null)}>
            <ArrowLeft className="size-4" aria-hidden /> All videos
          </Button>
          <h2 className="min-w-0 flex-1 truncate text-lg font-semibold">{selected.name}</h2>
          {selected.status === "draft" && <Badge variant="warning">Draft</Badge>}
          <div className="inline-flex rounded-lg bg-muted p-1" role="group" aria-label="Editor mode">
            {(["basic", "advanced"] as const).map((m) => (
              <button
                key={m}
                type="button"
                aria-pressed={mode === m}
                onClick={() => setMode(m)}
                className={cn(
                  "rounded-md px-3 py-1 text-sm font-medium capitalize",
                  mode === m ? "bg-card shadow-xs" : "text-muted-foreground",
                )}
              >
                {m}
              </button>
            ))}
          </div>
          <Button
            variant="destructive"
            size="sm"
            onClick={() => {
              panel.current = root.current?.closest<HTMLElement>("[role=tabpanel]") ?? null;
              setConfirming(selected);
            }}
            loading={deleting}
          >
            <Trash2 className="size-4" aria-hidden /> Delete Video
          </Button>
        </div>
        <ConfirmDialog
          open={confirming !== null}
          onOpenChange={(o) => !o && setConfirming(null)}
          title={`Delete "${confirming?.name ?? ""}"?`}
          description={<DeleteMediaDescription what="video" uses={uses} />}
          confirmLabel="Delete video"
          confirmDisabled={!!uses.data?.refusal}
          onConfirm={() => confirming && void remove(confirming)}
          focusAfterConfirm={() => panel.current}
        />
        {selected.processing_status === "processing" ? (
          <div className="flex items-center gap-2 rounded-xl bg-muted p-8 text-sm text-muted-foreground">
            <Loader2 className="size-4 animate-spin" aria-hidden /> Preparing your video for editing...
          </div>
        ) : selected.processing_status === "failed" ? (
          <AlertBanner variant="error">
            Failed to load video. Please try again. {selected.processing_error}
          </AlertBanner>
        ) : mode === "advanced" ? (
          <AdvancedEditor
            key={`${selected.id}-${selected.version}`}
            media={selected}
            onDone={() => setSelectedId(null)}
          />
        ) : (
          <SimpleEditor
            key={`${selected.id}-${selected.version}`}
            media={selected}
            onDone={() => setSelectedId(null)}
          />
        )}
      </div>
    );
  }

  return (
    <div className="space-y-4">
      {notFound && (
        <AlertBanner variant="error" onDismiss={() => setNotFound(false)}>
          Draft video not found. It may have been deleted.
        </AlertBanner>
      )}
      {videos.length === 0 ? (
        <EmptyState
          icon={Film}
          title="No videos available"
          description="Record or upload a video first, then edit it here."
        />
      ) : (
        <ul className="grid gap-4 [grid-template-columns:repeat(auto-fill,minmax(300px,1fr))]">
          {videos.map((m) => (
            <li key={m.id}>
              <Card className="overflow-hidden">
                <button
                  type="button"
                  className="group relative block aspect-video w-full bg-black"
                  onClick={() => setSelectedId(m.id)}
                >
                  {/* the name is this text and the visible badges after it ("... editor Draft 0:05") */}
                  <span className="sr-only">Open {m.name} in the editor</span>
                  {m.thumbnail_url && (
                    <img src={m.thumbnail_url} alt="" className="size-full object-cover opacity-90" />
                  )}
                  <span className="absolute inset-0 flex items-center justify-center">
                    <span className="flex size-14 items-center justify-center rounded-full bg-black/60 text-white transition group-hover:scale-110">
                      {m.processing_status === "processing" ? (
                        <Loader2 className="size-6 animate-spin" />
                      ) : (
                        <Play className="size-6 fill-current" />
                      )}
                    </span>
                  </span>
                  {m.status === "draft" && (
                    <Badge variant="warning" className="absolute top-2 left-2">
                      Draft
                    </Badge>
                  )}
                  <span className="absolute right-2 bottom-2 rounded bg-black/70 px-1.5 text-xs text-white">
                    {formatDuration(m.duration)}
                  </span>
                </button>
                <div className="flex items-center gap-2 p-3">
                  <span className="min-w-0 flex-1 truncate text-sm font-medium">{m.name}</span>
                  <Button size="sm" onClick={() => setSelectedId(m.id)}>
                    <Pencil className="size-4" aria-hidden /> Edit Video
                  </Button>
                </div>
              </Card>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
