import type { LucideIcon } from "lucide-react";
import { Minus, Sparkles, TrendingDown, TrendingUp } from "lucide-react";
import { Card } from "@/client/components/ui/card";
import { Skeleton } from "@/client/components/ui/skeleton";
import { cn } from "@/client/lib/utils";
import { type DashboardStat, describeChange } from "./stats";

const toneStyles = {
  up: { icon: TrendingUp, className: "text-success" },
  down: { icon: TrendingDown, className: "text-destructive" },
  flat: { icon: Minus, className: "text-muted-foreground" },
  new: { icon: Sparkles, className: "text-primary-text" },
} as const;

/** One dashboard figure with its month-over-month change. `stat` undefined = loading; `failed` = unavailable. */
export function StatCard({
  title,
  icon: Icon,
  stat,
  format,
  failed,
}: {
  title: string;
  icon: LucideIcon;
  stat: DashboardStat | undefined;
  format: (value: number) => string;
  failed?: boolean;
}) {
  const change = stat ? describeChange(stat) : null;
  const tone = change ? toneStyles[change.tone] : null;
  return (
    <Card className="p-5" data-testid="stat-card">
      <div className="flex items-start justify-between gap-3">
        <h3 className="text-sm font-medium text-muted-foreground">{title}</h3>
        <span className="flex size-9 items-center justify-center rounded-lg bg-accent text-accent-foreground">
          <Icon className="size-4" aria-hidden />
        </span>
      </div>
      {stat && change && tone ? (
        <>
          <p className="mt-2 text-3xl font-semibold tracking-tight tabular-nums">{format(stat.value)}</p>
          <p className={cn("mt-1 flex items-center gap-1 text-xs font-medium", tone.className)}>
            <tone.icon className="size-3.5" aria-hidden />
            {change.text}
          </p>
        </>
      ) : failed ? (
        <>
          <p className="mt-2 text-3xl font-semibold tracking-tight text-muted-foreground">&ndash;</p>
          <p className="mt-1 text-xs text-muted-foreground">Not available right now</p>
        </>
      ) : (
        <>
          <Skeleton className="mt-3 h-8 w-20" />
          <Skeleton className="mt-2 h-3.5 w-32" />
        </>
      )}
    </Card>
  );
}
