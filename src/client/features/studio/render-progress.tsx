import { Progress } from "@/client/components/ui/progress";

/** Render progress bar (percent parsed from ffmpeg's -progress output on the server). */
export function RenderProgress({ value, label = "Rendering" }: { value: number | null; label?: string }) {
  if (value === null) return null;
  return (
    <div className="space-y-1" role="status">
      <Progress value={value} aria-label={`${label} progress`} />
      <p className="text-xs text-muted-foreground">
        {label}... {Math.round(value)}%
      </p>
    </div>
  );
}
