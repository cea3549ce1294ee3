import { cn } from "@/client/lib/utils";

/** Pitchwise mark + wordmark. Props: className, markClassName, hideText (mark only). */
export function Logo({
  className,
  markClassName,
  hideText = false,
}: {
  className?: string;
  markClassName?: string;
  hideText?: boolean;
}) {
  return (
    <span className={cn("inline-flex items-center gap-2.5 font-semibold tracking-tight", className)}>
      <span
        aria-hidden
        className={cn(
          "flex size-8 items-center justify-center rounded-lg bg-primary text-primary-foreground shadow-sm",
          markClassName,
        )}
      >
        <svg viewBox="0 0 24 24" className="size-4.5" fill="none">
          <path
            d="M7 4h6.5a5.5 5.5 0 0 1 0 11H10v5H7zM10 7v5h3.5a2.5 2.5 0 0 0 0-5z"
            fill="currentColor"
            fillRule="evenodd"
          />
        </svg>
      </span>
      {!hideText && <span className="text-lg">Pitchwise</span>}
    </span>
  );
}
