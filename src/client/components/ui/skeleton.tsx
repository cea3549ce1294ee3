import type * as React from "react";
import { cn } from "@/client/lib/utils";

/** Pulsing placeholder block for loading content; size it with className (e.g. "h-6 w-24"). */
export function Skeleton({ className, ...props }: React.ComponentProps<"div">) {
  return <div aria-hidden className={cn("animate-pulse rounded-md bg-muted", className)} {...props} />;
}
