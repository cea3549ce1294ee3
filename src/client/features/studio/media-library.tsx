import { useNavigate } from "@tanstack/react-router";
import {
  AlertCircle,
  AudioLines,
  FileAudio,
  FileVideo,
  History,
  Loader2,
  Megaphone,
  RefreshCw,
  Trash2,
} from "lucide-react";
import { useRef, useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent } from "@/client/components/ui/card";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Skeleton } from "@/client/components/ui/skeleton";
import { errorMessage } from "@/client/lib/errors";
import { sameSlotOr } from "@/client/lib/focus-rescue";
import { formatBytes, formatDuration, formatShortDate } from "./format";
import { useInvalidateMedia, useMediaList, useMediaVersions, useStudioClient } from "./media-api";
import { MediaPlayer } from "./media-player";
import { DeleteMediaDescription, useMediaUses } from "./media-uses";
import type { Media, MediaVersion } from "./types";

/**
 * The studio's media library grid (spec section 2): type icon, name, player, size, duration (m:ss),
 * date; Refresh; Delete with confirmation (a ConfirmDialog naming the file and the campaigns using it,
 * its confirm off while one still has messages to send, DeleteMediaDescription; focus then goes to the
 * next card's Delete, else the library heading); 'Use in Campaign' opens the video campaign builder with
 * that video, or on an audio file the voicemail campaign builder with that recording. Shows processing/failed states. An edited item shows 'Versions (n)': the original and
 * every saved edit, each playable, with 'Restore' to make it current again.
 */
export function MediaLibrary() {
  const { data, isLoading, isError, refetch, isFetching } = useMediaList();
  const invalidate = useInvalidateMedia();
  const studio = useStudioClient();
  const navigate = useNavigate();
  const [deleting, setDeleting] = useState<number | null>(null);
  const [versionsOf, setVersionsOf] = useState<Media | null>(null);
  // the file whose Delete asks for confirmation, and its place in the grid (for focus afterwards)
  const [confirming, setConfirming] = useState<{ media: Media; index: number } | null>(null);
  const grid = useRef<HTMLUListElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // the campaigns using the file being confirmed (its deletion is refused while one still sends)
  const uses = useMediaUses(confirming?.media.id ?? 0, confirming !== null);

  /** Deletes `m` (already confirmed) and reloads the library. */
  async function remove(m: Media) {
    setDeleting(m.id);
    try {
      await studio.delete.mutate({ id: m.id });
      toast.success(`Deleted "${m.name}"`);
      await invalidate();
    } catch (error) {
      console.error("delete failed", error);
      toast.error(`Failed to delete: ${errorMessage(error, "Unknown error")}`);
    } finally {
      setDeleting(null);
    }
  }

  return (
    <section aria-labelledby="library-heading" className="mt-10">
      <div className="mb-4 flex items-center justify-between gap-4">
        <h2 id="library-heading" ref={heading} tabIndex={-1} className="text-xl font-semibold outline-none">
          Media Library {data ? <span className="text-muted-foreground">({data.length})</span> : null}
        </h2>
        <Button variant="outline" size="sm" onClick={() => void refetch()} loading={isFetching && !isLoading}>
          <RefreshCw className="size-4" aria-hidden /> Refresh
        </Button>
      </div>
      {isLoading && (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-72 rounded-xl" />
          ))}
        </div>
      )}
      {isError && (
        <p className="text-sm text-destructive">Failed to load media library. Please refresh the page.</p>
      )}
      {data && data.length === 0 && (
        <EmptyState
          icon={FileVideo}
          title="No media yet"
          description="Record a video or audio clip, or upload a file, and it shows up here."
        />
      )}
      {data && data.length > 0 && (
        <ul ref={grid} className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
          {data.map((m, index) => (
            <li key={m.id} className="min-w-0">
              <Card className="flex h-full min-w-0 flex-col overflow-hidden" data-testid="media-card">
                <div className="flex items-center gap-2 px-4 pt-4">
                  {m.type === "video" ? (
                    <FileVideo className="size-5 text-primary-text" aria-label="Video" />
                  ) : (
                    <FileAudio className="size-5 text-primary-text" aria-label="Audio" />
                  )}
                  <h3 className="line-clamp-2 min-w-0 flex-1 font-medium wrap-anywhere" title={m.name}>
                    {m.name}
                  </h3>
                  {m.status === "draft" && <Badge variant="warning">Draft</Badge>}
                </div>
                <div className="px-4 pt-3">
                  {m.processing_status === "ready" && m.type === "audio" && (
                    <div className="mb-2 flex aspect-[16/5] items-center justify-center rounded-[12px] bg-muted text-muted-foreground">
                      <AudioLines className="size-10" aria-hidden />
                    </div>
                  )}
                  {m.processing_status === "ready" ? (
                    <MediaPlayer
                      src={m.url}
                      type={m.type}
                      mime={m.mime_type}
                      poster={m.thumbnail_url}
                      title={m.name}
                    />
                  ) : m.processing_status === "processing" ? (
                    <div className="flex aspect-video items-center justify-center gap-2 rounded-[12px] bg-muted text-sm text-muted-foreground">
                      <Loader2 className="size-4 animate-spin" aria-hidden /> Processing...
                    </div>
                  ) : (
                    <div className="flex aspect-video flex-col items-center justify-center gap-1 rounded-[12px] bg-destructive/10 p-4 text-center text-sm text-destructive">
                      <AlertCircle className="size-5" aria-hidden />
                      <span>Processing failed</span>
                      {m.processing_error && (
                        <span className="line-clamp-2 text-xs wrap-anywhere">{m.processing_error}</span>
                      )}
                    </div>
                  )}
                </div>
                <CardContent className="mt-3 flex flex-1 flex-col gap-3 pb-4">
                  <dl className="grid grid-cols-3 gap-2 text-xs text-muted-foreground">
                    <div>
                      <dt className="sr-only">Size</dt>
                      <dd>{formatBytes(m.size)}</dd>
                    </div>
                    <div>
                      <dt className="sr-only">Duration</dt>
                      <dd>{formatDuration(m.duration)}</dd>
                    </div>
                    <div className="text-right">
                      <dt className="sr-only">Created</dt>
                      <dd>{formatShortDate(m.created_at)}</dd>
                    </div>
                  </dl>
                  <div className="mt-auto flex flex-wrap gap-2">
                    {(m.version_count ?? 1) > 1 && (
                      <Button
                        variant="outline"
                        size="sm"
                        onClick={() => setVersionsOf(m)}
                        aria-label={`Versions of ${m.name} (${m.version_count})`}
                      >
                        <History className="size-4" aria-hidden /> Versions ({m.version_count})
                      </Button>
                    )}
                    <Button
                      variant="outline"
                      size="sm"
                      onClick={() => setConfirming({ media: m, index })}
                      loading={deleting === m.id}
                      aria-label={`Delete ${m.name}`}
                      data-delete-media
                    >
                      <Trash2 className="size-4" aria-hidden /> Delete
                    </Button>
                    {m.type === "video" && (
                      <Button
                        size="sm"
                        className="flex-1"
                        disabled={m.processing_status !== "ready"}
                        onClick={() => void navigate({ to: "/campaigns/video", search: { videoId: m.id } })}
                      >
                        <Megaphone className="size-4" aria-hidden /> Use in Campaign
                      </Button>
                    )}
                    {m.type === "audio" && (
                      <Button
                        size="sm"
                        className="flex-1"
                        disabled={m.processing_status !== "ready"}
                        onClick={() => void navigate({ to: "/campaigns/voice", search: { audioId: m.id } })}
                        title="Drop this recording into voicemail with a ringless voicemail campaign"
                      >
                        <Megaphone className="size-4" aria-hidden /> Use in Campaign
                      </Button>
                    )}
                  </div>
                </CardContent>
              </Card>
            </li>
          ))}
        </ul>
      )}
      <VersionsDialog media={versionsOf} onClose={() => setVersionsOf(null)} />
      <ConfirmDialog
        open={confirming !== null}
        onOpenChange={(o) => !o && setConfirming(null)}
        title={`Delete "${confirming?.media.name ?? ""}"?`}
        description={<DeleteMediaDescription what="file" uses={uses} />}
        confirmLabel="Delete file"
        confirmDisabled={!!uses.data?.refusal}
        onConfirm={() => confirming && void remove(confirming.media)}
        focusAfterConfirm={
          confirming
            ? sameSlotOr(grid, "[data-delete-media]", confirming.index, () => heading.current)
            : undefined
        }
      />
    </section>
  );
}

/** The versions of one item: original first, the current one marked, each playable and restorable. */
function VersionsDialog({ media, onClose }: { media: Media | null; onClose: () => void }) {
  const versions = useMediaVersions(media?.id ?? 0, media !== null);
  const studio = useStudioClient();
  const invalidate = useInvalidateMedia();
  const [restoring, setRestoring] = useState<MediaVersion["id"] | null>(null);
  const [playing, setPlaying] = useState<MediaVersion["id"] | null>(null);

  async function restore(v: MediaVersion) {
    if (!media) return;
    setRestoring(v.id);
    try {
      await studio.restoreVersion.mutate({ id: media.id, version: v.id });
      toast.success(`${v.label} is the current version of "${media.name}"`);
      await invalidate();
    } catch (error) {
      toast.error(`Could not restore: ${errorMessage(error, "Unknown error")}`);
    } finally {
      setRestoring(null);
    }
  }

  return (
    <Dialog open={media !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-xl">
        <DialogHeader>
          <DialogTitle>Versions of {media?.name}</DialogTitle>
          <DialogDescription>
            Editing never overwrites: each save is a new version. Restore any of them; nothing is deleted.
          </DialogDescription>
        </DialogHeader>
        {versions.isLoading && <Skeleton className="h-32 w-full rounded-lg" />}
        {versions.isError && (
          <p role="alert" className="text-sm text-destructive">
            {errorMessage(versions.error, "Could not load the versions. Please try again.")}
          </p>
        )}
        {versions.data && media && (
          <ol className="space-y-3" data-testid="media-versions">
            {versions.data.map((v) => (
              <li key={String(v.id)} className="rounded-lg border border-border p-3">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{v.label}</span>
                  {v.current && <Badge variant="success">Current</Badge>}
                  <span className="text-xs text-muted-foreground">
                    {formatDuration(v.duration)} &middot; {formatShortDate(v.created_at)}
                  </span>
                  <span className="ml-auto flex gap-2">
                    <Button
                      variant="ghost"
                      size="sm"
                      aria-pressed={playing === v.id}
                      onClick={() => setPlaying(playing === v.id ? null : v.id)}
                    >
                      {playing === v.id ? "Hide" : "Preview"}
                    </Button>
                    {!v.current && (
                      <Button
                        size="sm"
                        variant="outline"
                        loading={restoring === v.id}
                        onClick={() => void restore(v)}
                      >
                        Restore
                      </Button>
                    )}
                  </span>
                </div>
                {playing === v.id && (
                  <div className="mt-3">
                    <MediaPlayer
                      src={v.url}
                      type={media.type}
                      mime={media.type === "video" ? "video/mp4" : "audio/mpeg"}
                      title={`${media.name} (${v.label})`}
                    />
                  </div>
                )}
              </li>
            ))}
          </ol>
        )}
      </DialogContent>
    </Dialog>
  );
}
