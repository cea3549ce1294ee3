import type { ReactNode } from "react";
import { cn } from "@/client/lib/utils";

/**
 * Page title row: title (the page's <h1>), optional description and actions. The row wraps: the
 * title keeps at least 18rem (or the whole row when narrower) and grows into the free space; the
 * actions sit right-aligned beside it while they fit on that line, otherwise they move to a row of
 * their own below the title and wrap button by button (a page with many actions never squeezes the
 * title or overflows sideways, at any width).
 */
export function PageHeader({
  title,
  description,
  actions,
  className,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn("mb-8 flex flex-wrap items-end justify-between gap-x-6 gap-y-4", className)}>
      <div className="min-w-[min(18rem,100%)] flex-[1_1_18rem]">
        <h1 className="text-2xl font-semibold tracking-tight break-words sm:text-3xl">{title}</h1>
        {description && (
          <p className="mt-1.5 text-sm break-words text-muted-foreground sm:text-base">{description}</p>
        )}
      </div>
      {actions && <div className="flex max-w-full min-w-0 flex-wrap items-center gap-2">{actions}</div>}
    </div>
  );
}
