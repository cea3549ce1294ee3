import { Label as LabelPrimitive } from "radix-ui";
import type * as React from "react";
import { cn } from "@/client/lib/utils";

/** Form label (Radix Label). Use htmlFor with the control's id so getByLabel() finds the control. */
export function Label({ className, ...props }: React.ComponentProps<typeof LabelPrimitive.Root>) {
  return (
    <LabelPrimitive.Root
      data-slot="label"
      className={cn(
        "flex items-center gap-2 text-sm leading-none font-medium text-foreground select-none peer-disabled:cursor-not-allowed peer-disabled:opacity-50",
        className,
      )}
      {...props}
    />
  );
}
