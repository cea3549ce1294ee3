import type * as React from "react";
import { cn } from "@/client/lib/utils";

/**
 * A checkbox without visible text (a table row's "Select Jane Doe", a "Select all"), named by its
 * `aria-label`; takes every <input> prop but `type`. The box keeps the browser's small size, but sits
 * in a 24 x 24 CSS px <label> that toggles it: a tap anywhere in that square hits it (WCAG 2.2
 * 2.5.8 Target Size, Minimum: a 13 px box was too small a target on a phone). The label's -4 px
 * margin leaves it a 16 px footprint, under the bare checkbox's (13 px plus its 3-4 px margins), so a
 * desktop list is no taller: the square reaches into the cell's padding. `className` styles the input.
 */
export function Checkbox({ className, ...props }: Omit<React.ComponentProps<"input">, "type">) {
  return (
    <label
      data-slot="checkbox-target"
      className={cn(
        "-m-1 inline-flex size-6 shrink-0 cursor-pointer items-center justify-center align-middle",
        props.disabled && "cursor-not-allowed",
      )}
    >
      <input
        type="checkbox"
        data-slot="checkbox"
        className={cn("m-0 cursor-pointer disabled:cursor-not-allowed", className)}
        {...props}
      />
    </label>
  );
}
