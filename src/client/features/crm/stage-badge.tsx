import { titleCase } from "@/client/lib/format";
import { cn } from "@/client/lib/utils";
import { STAGE_BADGE } from "./api";

/** Lifecycle stage pill; a missing stage shows as lead (spec section 4). */
export function StageBadge({ stage }: { stage: string | null }) {
  const s = (stage && stage in STAGE_BADGE ? stage : "lead") as keyof typeof STAGE_BADGE;
  return (
    <span className={cn("inline-flex rounded-full px-2.5 py-0.5 text-xs font-medium", STAGE_BADGE[s])}>
      {titleCase(s)}
    </span>
  );
}
