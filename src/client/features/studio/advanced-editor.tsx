import { Link } from "@tanstack/react-router";
import { Lock, Pause, Play, Scissors, Trash2, X, ZoomIn } from "lucide-react";
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import WaveSurfer from "wavesurfer.js";
import RegionsPlugin, { type Region } from "wavesurfer.js/dist/plugins/regions.esm.js";
import TimelinePlugin from "wavesurfer.js/dist/plugins/timeline.esm.js";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Label } from "@/client/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/client/components/ui/select";
import { Switch } from "@/client/components/ui/switch";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/client/components/ui/tabs";
import { useUsage } from "@/client/features/billing/usage";
import { errorMessage, isServerRefusal } from "@/client/lib/errors";
import { formatTime } from "./format";
import { useInvalidateMedia, useMediaDetail, useStudioClient, waitForRender } from "./media-api";
import { RangeField } from "./range-field";
import { RenderProgress } from "./render-progress";
import type { Media } from "./types";

/** Advanced editor speeds (spec section 9). */
export const ADVANCED_SPEEDS = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2] as const;

/** Segments between the selection's ends and the cuts (cuts strictly inside, sorted). */
export function segmentsOf(start: number, end: number, cuts: number[]) {
  const points = [start, ...cuts.filter((c) => c > start && c < end), end];
  return points.slice(0, -1).map((p, i) => ({ start: p, end: points[i + 1] }));
}

/** Shortest selection the keyboard sliders allow, in seconds (the start stays before the end). */
export const MIN_SELECTION = 0.1;

/**
 * The value a time slider's key moves to (null for keys it leaves alone): arrows by 0.1 s, Shift+arrow
 * and Page Up/Down by 1 s, both to the next tenth in that direction (a clip's 5.067 s end steps to 5.0),
 * Home/End to min/max; the result is clamped to [min, max].
 */
export function steppedTime(
  key: string,
  shift: boolean,
  value: number,
  min: number,
  max: number,
): number | null {
  const up = key === "ArrowRight" || key === "ArrowUp" || key === "PageUp";
  const down = key === "ArrowLeft" || key === "ArrowDown" || key === "PageDown";
  let next: number;
  if (key === "Home") next = min;
  else if (key === "End") next = max;
  else if (up || down) {
    const tenths = shift || key === "PageUp" || key === "PageDown" ? 10 : 1;
    next = up ? (Math.floor(value * 10 + 1e-6) + tenths) / 10 : (Math.ceil(value * 10 - 1e-6) - tenths) / 10;
  } else return null;
  return Math.min(max, Math.max(min, next));
}

/**
 * A labelled time slider over the clip (RangeField: a native range input, role slider with its min,
 * max and now, aria-valuetext as m:ss.t), moved by the keys of `steppedTime`; the pointer drags it
 * freely.
 */
function TimeSlider({
  label,
  value,
  min = 0,
  max,
  onChange,
  disabled,
}: {
  label: string;
  value: number;
  min?: number;
  max: number;
  onChange: (v: number) => void;
  disabled?: boolean;
}) {
  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    const next = steppedTime(e.key, e.shiftKey, value, min, max);
    if (next === null) return;
    e.preventDefault();
    onChange(next);
  }
  return (
    <RangeField
      label={label}
      value={value}
      min={min}
      max={max}
      step="any"
      onChange={onChange}
      format={formatTime}
      valueText={(v) => `${formatTime(v)} (${v.toFixed(1)} seconds)`}
      onKeyDown={onKeyDown}
      disabled={disabled}
    />
  );
}

/**
 * Advanced editor (spec sections 2, 5, 9): wavesurfer.js waveform timeline with zoom 1x-5x (step
 * 0.5, zoom = level x 20 px/s), Time and Selection readouts, 'Add Cut at Playhead' (only strictly
 * inside the selection), removable cuts splitting the selection into segments that can be dropped,
 * Video/Audio/Effects tabs, Cancel and Save Video ('Processing...') with render progress. The
 * selection's start and end and the playhead also have keyboard sliders (WCAG 2.1.1), kept in step
 * with the waveform's region both ways.
 */
export function AdvancedEditor({ media, onDone }: { media: Media; onDone: () => void }) {
  const invalidate = useInvalidateMedia();
  const studio = useStudioClient();
  const { data: detail } = useMediaDetail(media.id);
  // colour grading and blur need the premium editor: the server's answer for the workspace's plan
  // (billing.usage features), which also refuses them on save (studio applyAdvanced)
  const grading = useUsage().data?.features.premiumEditor === true;
  const videoRef = useRef<HTMLVideoElement>(null);
  const waveRef = useRef<HTMLDivElement>(null);
  const wsRef = useRef<WaveSurfer | null>(null);
  const regionRef = useRef<Region | null>(null);
  const duration = media.duration ?? 0;
  const [ready, setReady] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [playing, setPlaying] = useState(false);
  const [time, setTime] = useState(0);
  const [selection, setSelection] = useState({ start: 0, end: duration });
  const [cuts, setCuts] = useState<number[]>([]);
  const [dropped, setDropped] = useState<Set<number>>(new Set());
  const [zoom, setZoom] = useState(1);
  const [brightness, setBrightness] = useState(100);
  const [contrast, setContrast] = useState(100);
  const [saturation, setSaturation] = useState(100);
  const [blur, setBlur] = useState(0);
  const [volume, setVolume] = useState(100);
  const [speed, setSpeed] = useState(1);
  const [fadeIn, setFadeIn] = useState(false);
  const [fadeOut, setFadeOut] = useState(false);
  const [saving, setSaving] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const peaks = detail?.peaks;
  const peaksReady = detail !== undefined;

  useEffect(() => {
    const video = videoRef.current;
    const container = waveRef.current;
    if (!video || !container || !peaksReady) return;
    const regions = RegionsPlugin.create();
    const ws = WaveSurfer.create({
      container,
      media: video,
      height: 128,
      waveColor: "rgb(148 163 184)",
      progressColor: "rgb(99 102 241)",
      cursorColor: "rgb(239 68 68)",
      normalize: true,
      ...(peaks ? { peaks: peaks.channels, duration: peaks.durationSeconds || duration } : {}),
      plugins: [regions, TimelinePlugin.create({ height: 18 })],
    });
    wsRef.current = ws;
    const makeRegion = () => {
      regions.clearRegions();
      regionRef.current = regions.addRegion({
        start: 0,
        end: duration,
        drag: true,
        resize: true,
        color: "rgba(99, 102, 241, 0.18)",
      });
      setReady(true);
    };
    ws.on("ready", makeRegion);
    ws.on("decode", () => {
      if (!regionRef.current) makeRegion();
    });
    ws.on("timeupdate", (t) => setTime(t));
    ws.on("play", () => setPlaying(true));
    ws.on("pause", () => setPlaying(false));
    ws.on("error", () => setLoadError("Failed to load video. Please try again."));
    regions.on("region-updated", (r) => {
      if (r === regionRef.current) setSelection({ start: r.start, end: r.end });
    });
    return () => {
      regionRef.current = null;
      ws.destroy();
      wsRef.current = null;
    };
  }, [peaksReady, peaks, duration]);

  useEffect(() => {
    if (ready) wsRef.current?.zoom(zoom * 20);
  }, [zoom, ready]);

  useEffect(() => {
    if (videoRef.current) videoRef.current.playbackRate = speed;
  }, [speed]);
  useEffect(() => {
    if (videoRef.current) videoRef.current.volume = Math.min(1, volume / 100);
  }, [volume]);

  const segments = useMemo(() => segmentsOf(selection.start, selection.end, cuts), [selection, cuts]);
  const canCut =
    time > selection.start && time < selection.end && !cuts.some((c) => Math.abs(c - time) < 0.05);
  const keptCount = segments.length - [...dropped].filter((i) => i < segments.length).length;

  /**
   * Moves one end of the selection from a slider: kept inside the clip and at least MIN_SELECTION
   * from the other end, drawn on the waveform's region, then read back from it (as a drag is).
   */
  function moveSelection(side: "start" | "end", value: number) {
    const next =
      side === "start"
        ? { start: Math.max(0, Math.min(value, selection.end - MIN_SELECTION)), end: selection.end }
        : {
            start: selection.start,
            end: Math.min(duration, Math.max(value, selection.start + MIN_SELECTION)),
          };
    const region = regionRef.current;
    if (region) {
      region.setOptions(next);
      setSelection({ start: region.start, end: region.end });
    } else setSelection(next);
  }
  /** Moves the playhead from its slider (the video and the waveform follow). */
  function seek(value: number) {
    const t = Math.max(0, Math.min(duration, value));
    wsRef.current?.setTime(t);
    setTime(t);
  }

  function addCut() {
    if (!canCut) return;
    setCuts((c) => [...c, time].sort((a, b) => a - b));
    setDropped(new Set());
  }
  function removeCut(t: number) {
    setCuts((c) => c.filter((x) => x !== t));
    setDropped(new Set());
  }
  function toggleSegment(i: number) {
    setDropped((d) => {
      const next = new Set(d);
      if (next.has(i)) next.delete(i);
      else next.add(i);
      return next;
    });
  }

  async function save() {
    if (!media.id) return;
    setSaving(true);
    setProgress(0);
    try {
      const edit = await studio.advanced.mutate({
        mediaId: media.id,
        startTime: Number(selection.start.toFixed(3)),
        endTime: Number(selection.end.toFixed(3)),
        volume: volume / 100,
        speed,
        effects: { brightness, contrast, saturation, blur, fadeIn, fadeOut },
        cuts: cuts.filter((c) => c > selection.start && c < selection.end).map((c) => Number(c.toFixed(3))),
        removedSegments: [...dropped].filter((i) => i < segments.length),
        quality: "source",
      });
      const final =
        edit.status === "done" || edit.status === "failed"
          ? edit
          : await waitForRender(studio.edit, edit.id, setProgress);
      if (final.status === "failed") throw new Error(final.error ?? "Unknown error");
      toast.success("Video saved successfully!", {
        description: "Saved as a new version; the original stays in the library.",
      });
      await invalidate();
      onDone();
    } catch (error) {
      // spec section 8: a server refusal vs a thrown error (network, render failure)
      if (isServerRefusal(error)) toast.error(`Failed to save: ${errorMessage(error, "Unknown error")}`);
      else toast.error(`Error saving video: ${error instanceof Error ? error.message : "Unknown error"}`);
    } finally {
      setSaving(false);
      setProgress(null);
    }
  }

  const filter = `brightness(${brightness}%) contrast(${contrast}%) saturate(${saturation}%) blur(${blur}px)`;
  return (
    <div className="space-y-5">
      {loadError && <AlertBanner variant="error">{loadError}</AlertBanner>}
      <div className="overflow-hidden rounded-[12px] bg-black">
        <video
          ref={videoRef}
          src={media.url}
          playsInline
          preload="auto"
          className="mx-auto aspect-video max-h-[420px] w-full"
          style={{ filter }}
          data-testid="editor-video"
        />
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button
          variant="outline"
          size="icon"
          onClick={() => void wsRef.current?.playPause()}
          aria-label={playing ? "Pause" : "Play"}
          disabled={!ready}
        >
          {playing ? <Pause className="size-4" /> : <Play className="size-4" />}
        </Button>
        <p className="font-mono text-sm tabular-nums" data-testid="time-readout">
          Time: {formatTime(time)} / {formatTime(duration)}
        </p>
        <p className="font-mono text-sm tabular-nums" data-testid="selection-readout">
          Selection: {(selection.end - selection.start).toFixed(1)}s ({formatTime(selection.start)} -{" "}
          {formatTime(selection.end)})
        </p>
        <div className="ml-auto flex min-w-52 items-center gap-2">
          <ZoomIn className="size-4 text-muted-foreground" aria-hidden />
          <div className="flex-1">
            <RangeField
              label="Zoom"
              value={zoom}
              min={1}
              max={5}
              step={0.5}
              onChange={setZoom}
              format={(v) => `${v}x`}
            />
          </div>
        </div>
      </div>
      <div className="overflow-x-auto rounded-lg border border-border bg-card p-2">
        <div ref={waveRef} role="img" aria-label="Waveform timeline" data-testid="waveform" />
        {!peaksReady && <p className="p-4 text-sm text-muted-foreground">Loading waveform...</p>}
        {peaksReady && !peaks && <p className="p-2 text-xs text-muted-foreground">No waveform data</p>}
      </div>
      <fieldset className="grid gap-4 sm:grid-cols-3" data-testid="selection-controls">
        <legend className="sr-only">Selection and playhead</legend>
        <TimeSlider
          label="Selection start"
          value={selection.start}
          max={duration}
          onChange={(v) => moveSelection("start", v)}
          disabled={!ready}
        />
        <TimeSlider
          label="Selection end"
          value={selection.end}
          max={duration}
          onChange={(v) => moveSelection("end", v)}
          disabled={!ready}
        />
        <TimeSlider
          label="Playhead"
          value={Math.min(time, duration)}
          max={duration}
          onChange={seek}
          disabled={!ready}
        />
      </fieldset>
      <div className="grid gap-6 lg:grid-cols-2">
        <div className="space-y-3">
          <div className="flex items-center gap-2">
            <Button
              variant="secondary"
              onClick={addCut}
              disabled={!canCut}
              title="Place the playhead inside the selection"
            >
              <Scissors className="size-4" aria-hidden /> Add Cut at Playhead
            </Button>
            <span className="text-xs text-muted-foreground">
              Drag the highlighted region or use the Selection start and end sliders (arrows 0.1 s,
              Shift+arrows 1 s) to change the selection.
            </span>
          </div>
          <div>
            <h3 className="mb-1 text-sm font-semibold">Cuts ({cuts.length})</h3>
            {cuts.length === 0 ? (
              <p className="text-sm text-muted-foreground">No cuts yet.</p>
            ) : (
              <ul className="flex flex-wrap gap-2">
                {cuts.map((c) => (
                  <li
                    key={c}
                    className="flex items-center gap-1 rounded-full bg-muted px-3 py-1 text-sm tabular-nums"
                  >
                    {formatTime(c)}
                    <button
                      type="button"
                      onClick={() => removeCut(c)}
                      className="rounded-full p-0.5 hover:bg-accent"
                      aria-label={`Remove cut at ${formatTime(c)}`}
                    >
                      <X className="size-3" />
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
          {segments.length > 1 && (
            <div>
              <h3 className="mb-1 text-sm font-semibold">
                Segments (kept {keptCount} of {segments.length})
              </h3>
              <ul className="space-y-1">
                {segments.map((s, i) => (
                  <li
                    key={`${s.start}-${s.end}`}
                    className="flex items-center justify-between rounded-md border border-border px-3 py-1.5 text-sm"
                  >
                    <span className={dropped.has(i) ? "text-muted-foreground line-through" : ""}>
                      {i + 1}. {formatTime(s.start)} - {formatTime(s.end)}
                    </span>
                    <Button
                      variant="ghost"
                      size="sm"
                      onClick={() => toggleSegment(i)}
                      disabled={!dropped.has(i) && keptCount <= 1}
                    >
                      {dropped.has(i) ? (
                        "Keep"
                      ) : (
                        <>
                          <Trash2 className="size-3" aria-hidden /> Drop
                        </>
                      )}
                    </Button>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
        <Tabs defaultValue="video">
          <TabsList>
            <TabsTrigger value="video">Video</TabsTrigger>
            <TabsTrigger value="audio">Audio</TabsTrigger>
            <TabsTrigger value="effects">Effects</TabsTrigger>
          </TabsList>
          <TabsContent value="video" className="space-y-4">
            {!grading && (
              <AlertBanner variant="info" title="Premium editor">
                <Lock aria-hidden className="mr-1 inline size-3.5" />
                Colour grading and blur are part of the premium editor, not included in your plan. Cuts,
                volume, speed and fades stay free.{" "}
                <Link to="/pricing" className="font-medium underline">
                  View pricing
                </Link>
              </AlertBanner>
            )}
            <RangeField
              label="Brightness"
              disabled={!grading}
              value={brightness}
              min={0}
              max={200}
              onChange={setBrightness}
              format={(v) => `${v}%`}
            />
            <RangeField
              label="Contrast"
              disabled={!grading}
              value={contrast}
              min={0}
              max={200}
              onChange={setContrast}
              format={(v) => `${v}%`}
            />
            <RangeField
              label="Saturation"
              disabled={!grading}
              value={saturation}
              min={0}
              max={200}
              onChange={setSaturation}
              format={(v) => `${v}%`}
            />
            <RangeField
              label="Blur"
              disabled={!grading}
              value={blur}
              min={0}
              max={10}
              step={0.5}
              onChange={setBlur}
              format={(v) => `${v}px`}
            />
          </TabsContent>
          <TabsContent value="audio" className="space-y-4">
            <RangeField
              label="Volume"
              value={volume}
              min={0}
              max={200}
              onChange={setVolume}
              format={(v) => `${v}%`}
            />
            <div className="space-y-1.5">
              <Label htmlFor="adv-speed">Speed</Label>
              <Select value={String(speed)} onValueChange={(v) => setSpeed(Number(v))}>
                <SelectTrigger id="adv-speed">
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  {ADVANCED_SPEEDS.map((s) => (
                    <SelectItem key={s} value={String(s)}>
                      {s}x
                    </SelectItem>
                  ))}
                </SelectContent>
              </Select>
            </div>
          </TabsContent>
          <TabsContent value="effects" className="space-y-4">
            <div className="flex items-center justify-between">
              <Label htmlFor="fade-in">Fade in (1 second)</Label>
              <Switch id="fade-in" checked={fadeIn} onCheckedChange={setFadeIn} />
            </div>
            <div className="flex items-center justify-between">
              <Label htmlFor="fade-out">Fade out (1 second)</Label>
              <Switch id="fade-out" checked={fadeOut} onCheckedChange={setFadeOut} />
            </div>
          </TabsContent>
        </Tabs>
      </div>
      <RenderProgress value={progress} />
      <div className="flex justify-end gap-2 border-t border-border pt-4">
        <Button variant="outline" onClick={onDone} disabled={saving}>
          Cancel
        </Button>
        <Button onClick={() => void save()} disabled={saving || !ready}>
          {saving ? "Processing..." : "Save Video"}
        </Button>
      </div>
    </div>
  );
}
