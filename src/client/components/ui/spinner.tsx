import { LoaderCircle } from "lucide-react";
import { cn } from "@/client/lib/utils";

const sizes = { sm: "size-4", md: "size-6", lg: "size-10" } as const;

/** Spinning loader icon. Props: size (sm|md|lg), label (screen-reader text, default "Loading"), className. */
export function Spinner({
  size = "md",
  label = "Loading",
  className,
}: {
  size?: keyof typeof sizes;
  label?: string;
  className?: string;
}) {
  return (
    <LoaderCircle
      role="status"
      aria-label={label}
      className={cn("animate-spin text-primary-text", sizes[size], className)}
    />
  );
}

/** Full-viewport centred spinner with visible text (used while the session is checked). */
export function FullScreenSpinner({ label = "Loading..." }: { label?: string }) {
  return (
    <div className="flex min-h-dvh flex-col items-center justify-center gap-4 bg-background text-muted-foreground">
      <Spinner size="lg" label={label} />
      <p className="text-sm font-medium" aria-live="polite">
        {label}
      </p>
    </div>
  );
}
