import { Link } from "@tanstack/react-router";
import { ArrowLeft, Crown, Download, Layers, Lock, Palette, Save, Sparkles } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button, buttonVariants } from "@/client/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { useUsage } from "@/client/features/billing/usage";
import { errorMessage } from "@/client/lib/errors";
import { cn } from "@/client/lib/utils";
import { formatTime } from "./format";
import { useInvalidateMedia, useStudioClient, waitForRender } from "./media-api";
import { RangeField } from "./range-field";
import { RenderProgress } from "./render-progress";
import type { Media } from "./types";

/** Simple editor speeds (spec section 9). */
export const SIMPLE_SPEEDS = [0.5, 1, 2] as const;

/** Effects library presets (premium): picture settings sent with the advanced endpoint. */
const PRESETS = [
  { id: "none", label: "Original", brightness: 100, contrast: 100, saturation: 100, blur: 0 },
  { id: "warm", label: "Warm & bright", brightness: 115, contrast: 105, saturation: 125, blur: 0 },
  { id: "bw", label: "Black & white", brightness: 100, contrast: 115, saturation: 0, blur: 0 },
  { id: "soft", label: "Soft focus", brightness: 108, contrast: 95, saturation: 105, blur: 1.5 },
] as const;

/**
 * Simple editor (spec sections 2, 5, 6, 8, 9): trim start/end (0-100 % of the duration), volume
 * 0-200 %, fades 0-5 s (step 0.1, default 0.5), speeds 0.5/1/2; Save Draft (status 'draft') and
 * Export Video (quality 'source'), Back to Media, Upgrade to Pro. Free users see locked color grading,
 * effects library and multi-track editing plus an upgrade banner; clicking opens the upgrade modal
 * (View Pricing, Maybe Later). Premium users get color grading and the effects library.
 */
export function SimpleEditor({ media, onDone }: { media: Media; onDone: () => void }) {
  // the premium editor as the server grants it (billing.plans `premiumEditor` of the plan in force:
  // a held, unpaid subscription grants nothing), never decided here; spec section 6's
  // subscription_tier says the same for a live plan
  const usage = useUsage();
  const premium = usage.data?.features.premiumEditor === true;
  const invalidate = useInvalidateMedia();
  const studio = useStudioClient();
  const duration = media.duration ?? 0;
  const [startPct, setStartPct] = useState(0);
  const [endPct, setEndPct] = useState(100);
  const [volume, setVolume] = useState(100);
  const [fadeIn, setFadeIn] = useState(0.5);
  const [fadeOut, setFadeOut] = useState(0.5);
  const [speed, setSpeed] = useState(1);
  const [preset, setPreset] = useState<(typeof PRESETS)[number]>(PRESETS[0]);
  const [grade, setGrade] = useState({ brightness: 100, contrast: 100, saturation: 100 });
  const [busy, setBusy] = useState<"draft" | "export" | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const start = (startPct / 100) * duration;
  const end = (endPct / 100) * duration;
  const graded =
    premium &&
    (preset.id !== "none" || grade.brightness !== 100 || grade.contrast !== 100 || grade.saturation !== 100);

  async function run(kind: "draft" | "export") {
    setBusy(kind);
    setProgress(0);
    try {
      if (end - start < 0.1) throw new Error("End time must be after start time");
      const base = {
        mediaId: media.id,
        startTime: Number(start.toFixed(3)),
        endTime: Number(end.toFixed(3)),
        volume: volume / 100,
        speed,
      };
      const edit = graded
        ? await studio.advanced.mutate({
            ...base,
            effects: {
              brightness: Math.round((grade.brightness * preset.brightness) / 100),
              contrast: Math.round((grade.contrast * preset.contrast) / 100),
              saturation: Math.min(200, Math.round((grade.saturation * preset.saturation) / 100)),
              blur: preset.blur,
              fadeIn,
              fadeOut,
            },
            quality: "source",
          })
        : await studio.trim.mutate({
            ...base,
            fadeIn,
            fadeOut,
            ...(kind === "draft" ? { status: "draft" } : { quality: "source" }),
          });
      const final =
        edit.status === "done" || edit.status === "failed"
          ? edit
          : await waitForRender(studio.edit, edit.id, setProgress);
      if (final.status === "failed") throw new Error(final.error ?? "Unknown error");
      toast.success(kind === "draft" ? "Draft saved successfully!" : "Video exported successfully!", {
        description: "Saved as a new version; the original stays in the library.",
      });
      await invalidate();
      onDone();
    } catch (error) {
      const msg =
        error instanceof Error ? errorMessage(error, error.message || "Unknown error") : "Unknown error";
      toast.error(kind === "draft" ? `Save failed: ${msg}` : `Export failed: ${msg}`);
    } finally {
      setBusy(null);
      setProgress(null);
    }
  }

  const locked = [
    { id: "grading", label: "Color grading", icon: Palette },
    { id: "effects", label: "Effects library", icon: Sparkles },
    { id: "multitrack", label: "Multi-track editing", icon: Layers },
  ];
  const filter = premium
    ? `brightness(${(grade.brightness * preset.brightness) / 100}%) contrast(${(grade.contrast * preset.contrast) / 100}%) saturate(${(grade.saturation * preset.saturation) / 100}%) blur(${preset.blur}px)`
    : undefined;

  return (
    <div className="space-y-5">
      {usage.data && !premium && (
        <AlertBanner variant="info" title="Free Tier">
          Trim, volume, speed and fades are free. Upgrade to unlock color grading, the effects library and
          multi-track editing.
        </AlertBanner>
      )}
      {premium && (
        <Badge variant="success" className="rounded-md whitespace-normal">
          <Crown aria-hidden /> Premium editor: 4K export, priority rendering, keyframe animation
        </Badge>
      )}
      <div className="grid gap-6 lg:grid-cols-[260px_1fr]">
        <aside className="space-y-4" aria-label="Tools">
          <h3 className="text-sm font-semibold">Tools</h3>
          <RangeField
            label="Trim start"
            value={startPct}
            min={0}
            max={100}
            step={0.5}
            onChange={(v) => setStartPct(Math.min(v, endPct - 1))}
            format={(v) => `${formatTime((v / 100) * duration)}`}
          />
          <RangeField
            label="Trim end"
            value={endPct}
            min={0}
            max={100}
            step={0.5}
            onChange={(v) => setEndPct(Math.max(v, startPct + 1))}
            format={(v) => `${formatTime((v / 100) * duration)}`}
          />
          <RangeField
            label="Volume"
            value={volume}
            min={0}
            max={200}
            onChange={setVolume}
            format={(v) => `${v}%`}
          />
          <RangeField
            label="Fade in"
            value={fadeIn}
            min={0}
            max={5}
            step={0.1}
            onChange={setFadeIn}
            format={(v) => `${v.toFixed(1)}s`}
          />
          <RangeField
            label="Fade out"
            value={fadeOut}
            min={0}
            max={5}
            step={0.1}
            onChange={setFadeOut}
            format={(v) => `${v.toFixed(1)}s`}
          />
          <fieldset className="space-y-1.5">
            <legend className="text-sm font-medium">Speed</legend>
            <div className="flex gap-2">
              {SIMPLE_SPEEDS.map((s) => (
                <Button
                  key={s}
                  size="sm"
                  variant={speed === s ? "default" : "outline"}
                  aria-pressed={speed === s}
                  onClick={() => setSpeed(s)}
                >
                  {s}x
                </Button>
              ))}
            </div>
          </fieldset>
          <div className="space-y-2 border-t border-border pt-4">
            {locked.map(({ id, label, icon: Icon }) =>
              premium && id !== "multitrack" ? null : (
                <button
                  key={id}
                  type="button"
                  onClick={() =>
                    premium
                      ? toast.info("Multi-track editing: use the Advanced mode to cut and combine segments.")
                      : setUpgradeOpen(true)
                  }
                  className="flex w-full items-center gap-2 rounded-md border border-border px-3 py-2 text-left text-sm hover:bg-accent"
                >
                  <Icon className="size-4" aria-hidden /> {label}
                  {!premium && (
                    <Lock className="ml-auto size-3.5 text-muted-foreground" aria-label="Locked" />
                  )}
                </button>
              ),
            )}
            {premium && (
              <div className="space-y-3">
                <p className="text-sm font-medium">Effects library</p>
                <div className="grid grid-cols-2 gap-2">
                  {PRESETS.map((p) => (
                    <Button
                      key={p.id}
                      size="sm"
                      variant={preset.id === p.id ? "default" : "outline"}
                      onClick={() => setPreset(p)}
                    >
                      {p.label}
                    </Button>
                  ))}
                </div>
                <p className="text-sm font-medium">Color grading</p>
                <RangeField
                  label="Brightness"
                  value={grade.brightness}
                  min={50}
                  max={150}
                  onChange={(v) => setGrade((g) => ({ ...g, brightness: v }))}
                  format={(v) => `${v}%`}
                />
                <RangeField
                  label="Contrast"
                  value={grade.contrast}
                  min={50}
                  max={150}
                  onChange={(v) => setGrade((g) => ({ ...g, contrast: v }))}
                  format={(v) => `${v}%`}
                />
                <RangeField
                  label="Saturation"
                  value={grade.saturation}
                  min={0}
                  max={150}
                  onChange={(v) => setGrade((g) => ({ ...g, saturation: v }))}
                  format={(v) => `${v}%`}
                />
              </div>
            )}
          </div>
        </aside>
        <div className="space-y-3">
          <div className="overflow-hidden rounded-[12px] bg-black">
            <video
              src={media.url}
              controls
              playsInline
              className="mx-auto aspect-video max-h-[420px] w-full"
              style={{ filter }}
              poster={media.thumbnail_url ?? undefined}
            />
          </div>
          <div className="relative h-10 rounded-md bg-muted" role="img" aria-label="Timeline">
            <div
              className="absolute inset-y-0 rounded-md bg-primary/30 ring-2 ring-primary"
              style={{ left: `${startPct}%`, width: `${endPct - startPct}%` }}
            />
            <div className="absolute inset-0 flex items-center justify-between px-2 text-xs font-medium tabular-nums text-foreground">
              <span>{formatTime(start)}</span>
              <span>Output {formatTime((end - start) / speed)}</span>
              <span>{formatTime(end)}</span>
            </div>
          </div>
          <RenderProgress value={progress} label={busy === "draft" ? "Saving" : "Exporting"} />
        </div>
      </div>
      <footer className="flex flex-wrap items-center gap-2 border-t border-border pt-4">
        <Button variant="ghost" onClick={onDone} disabled={busy !== null}>
          <ArrowLeft className="size-4" aria-hidden /> Back to Media
        </Button>
        {!premium && (
          <Button variant="outline" onClick={() => setUpgradeOpen(true)}>
            <Crown className="size-4" aria-hidden /> Upgrade to Pro
          </Button>
        )}
        <div className="ml-auto flex gap-2">
          <Button
            variant="outline"
            onClick={() => void run("draft")}
            disabled={busy !== null}
            loading={busy === "draft"}
          >
            <Save className="size-4" aria-hidden /> Save Draft
          </Button>
          <Button onClick={() => void run("export")} disabled={busy !== null}>
            <Download className="size-4" aria-hidden /> {busy === "export" ? "Exporting..." : "Export Video"}
          </Button>
        </div>
      </footer>
      <Dialog open={upgradeOpen} onOpenChange={setUpgradeOpen}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Upgrade to Pro</DialogTitle>
            <DialogDescription>
              Color grading, the effects library and multi-track editing come with the premium editor, plus 4K
              export and priority rendering.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setUpgradeOpen(false)}>
              Maybe Later
            </Button>
            <Link to="/pricing" className={cn(buttonVariants())}>
              View Pricing
            </Link>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  );
}
