import { FileUp, UploadCloud, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Progress } from "@/client/components/ui/progress";
import { cn } from "@/client/lib/utils";
import { formatBytes } from "./format";
import { uploadMedia, useInvalidateMedia } from "./media-api";

const MAX_BYTES = 100 * 1024 * 1024;
const ALLOWED = [
  "video/mp4",
  "video/webm",
  "video/quicktime",
  "audio/mpeg",
  "audio/wav",
  "audio/mp3",
  "audio/webm",
  "audio/x-wav",
  "audio/wave",
  "audio/vnd.wave",
];

/**
 * Upload page (spec sections 2, 5): drag and drop or browse, preview, name, Upload with a progress
 * bar, Cancel (aborts an upload in flight), tips. Checks size and type first; the server decides the
 * type by magic bytes.
 */
export function UploadPanel() {
  const invalidate = useInvalidateMedia();
  const inputRef = useRef<HTMLInputElement>(null);
  const abortRef = useRef<AbortController | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);

  function choose(f: File | undefined) {
    setError(null);
    if (!f) return;
    if (f.size > MAX_BYTES) return setError("File too large. Maximum size is 100MB.");
    if (f.type && !ALLOWED.includes(f.type))
      return setError("Unsupported file type. Please upload MP4, WebM, MOV, MP3, or WAV files.");
    setFile(f);
    setUrl(URL.createObjectURL(f));
    setName(f.name.replace(/\.[^.]+$/, ""));
  }

  function reset() {
    abortRef.current?.abort();
    setFile(null);
    setUrl(null);
    setName("");
    setProgress(null);
    if (inputRef.current) inputRef.current.value = "";
  }

  async function upload() {
    if (!file) return;
    const isVideo = file.type ? file.type.startsWith("video") : /\.(mp4|webm|mov)$/i.test(file.name);
    const controller = new AbortController();
    abortRef.current = controller;
    setProgress(0);
    setError(null);
    try {
      await uploadMedia(
        isVideo ? "/api/videos/upload" : "/api/audio/upload",
        isVideo ? "video" : "audio",
        file,
        name.trim() || file.name,
        {
          onProgress: setProgress,
          signal: controller.signal,
        },
      );
      toast.success(`Uploaded "${name.trim() || file.name}". Processing...`);
      abortRef.current = null;
      reset();
      await invalidate();
    } catch (e) {
      if ((e as Error).name === "AbortError") toast.info("Upload cancelled");
      else setError((e as Error).message || "Upload failed");
      setProgress(null);
    }
  }

  const isVideo = file?.type.startsWith("video");
  return (
    // min-w-0 / minmax(0,1fr): a long file name is cut short (truncate) instead of widening the page
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6 lg:grid-cols-[minmax(0,1fr)_280px]">
      <div className="min-w-0 space-y-4">
        {error && <AlertBanner variant="error">{error}</AlertBanner>}
        {!file ? (
          <label
            htmlFor="media-file"
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={(e) => {
              e.preventDefault();
              setDragging(false);
              choose(e.dataTransfer.files[0]);
            }}
            className={cn(
              "flex cursor-pointer flex-col items-center justify-center gap-3 rounded-xl border-2 border-dashed border-border px-6 py-16 text-center transition focus-within:ring-2 focus-within:ring-ring",
              dragging && "border-primary bg-primary/5",
            )}
          >
            <UploadCloud className="size-10 text-primary" aria-hidden />
            <span className="font-medium">Drag and drop a video or audio file here</span>
            <span className="text-sm text-muted-foreground">
              or click to browse (MP4, WebM, MOV, MP3, WAV up to 100MB)
            </span>
            <input
              ref={inputRef}
              id="media-file"
              type="file"
              accept="video/mp4,video/webm,video/quicktime,audio/mpeg,audio/wav,audio/webm,.mp4,.webm,.mov,.mp3,.wav"
              className="sr-only"
              onChange={(e) => choose(e.target.files?.[0])}
            />
          </label>
        ) : (
          <div className="space-y-3 rounded-xl border border-border p-4">
            <div className="flex items-center gap-2 text-sm">
              <FileUp className="size-4 shrink-0 text-primary-text" aria-hidden />
              <span className="min-w-0 truncate font-medium" title={file.name}>
                {file.name}
              </span>
              <span className="shrink-0 text-muted-foreground">{formatBytes(file.size)}</span>
            </div>
            {url &&
              (isVideo ? (
                <video
                  src={url}
                  controls
                  playsInline
                  className="aspect-video w-full rounded-[12px] bg-black"
                  aria-label="File preview"
                />
              ) : (
                <audio src={url} controls className="w-full" />
              ))}
            <div className="space-y-1.5">
              <Label htmlFor="upload-name">Name</Label>
              <Input
                id="upload-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                maxLength={200}
              />
            </div>
            {progress !== null && (
              <div className="space-y-1">
                <Progress value={progress} aria-label="Upload progress" />
                <p className="text-xs text-muted-foreground">{progress}% uploaded</p>
              </div>
            )}
            <div className="flex gap-2">
              <Button onClick={() => void upload()} loading={progress !== null} data-testid="upload-submit">
                <UploadCloud className="size-4" aria-hidden /> Upload
              </Button>
              <Button variant="outline" onClick={reset}>
                <X className="size-4" aria-hidden /> Cancel
              </Button>
            </div>
          </div>
        )}
      </div>
      <aside className="space-y-2 rounded-xl bg-muted/50 p-4 text-sm">
        <h3 className="font-semibold">Tips</h3>
        <ul className="list-disc space-y-1 pl-4 text-muted-foreground">
          <li>Videos up to 100MB: MP4, WebM or MOV. Audio: MP3 or WAV.</li>
          <li>Every video is converted to an MP4 that plays on any device, Safari included.</li>
          <li>Short videos (30-90 seconds) get watched to the end most often.</li>
          <li>Good light and a quiet room matter more than the camera.</li>
        </ul>
      </aside>
    </div>
  );
}
