import type * as React from "react";
import { cloneElement, isValidElement } from "react";
import { cn } from "@/client/lib/utils";
import { Label } from "./label";

type DescribedProps = { "aria-describedby"?: string; "aria-invalid"?: React.AriaAttributes["aria-invalid"] };

/**
 * Label + control + hint/error in one block. Props: label, htmlFor (the control's id), error (message under
 * the control), hint, optional (adds "(optional)"), className, children (the control; give it id={htmlFor}).
 * When children is one element, the error (id `${htmlFor}-error`) or hint (id `${htmlFor}-hint`) becomes its
 * accessible description (aria-describedby, kept with any ids it already has) and an error sets
 * aria-invalid, so a screen reader reads the message when the field is focused (WCAG 3.3.1, 1.3.1).
 */
export function FormField({
  label,
  htmlFor,
  error,
  hint,
  optional,
  className,
  children,
}: {
  label: React.ReactNode;
  htmlFor: string;
  error?: string;
  hint?: React.ReactNode;
  optional?: boolean;
  className?: string;
  children: React.ReactNode;
}) {
  const describedBy = error ? `${htmlFor}-error` : hint ? `${htmlFor}-hint` : undefined;
  const control =
    describedBy && isValidElement<DescribedProps>(children)
      ? cloneElement(children, {
          "aria-describedby": [children.props["aria-describedby"], describedBy].filter(Boolean).join(" "),
          ...(error ? { "aria-invalid": children.props["aria-invalid"] || true } : {}),
        })
      : children;
  return (
    <div className={cn("grid gap-2", className)}>
      <Label htmlFor={htmlFor}>
        {label}
        {optional && <span className="font-normal text-muted-foreground">(optional)</span>}
      </Label>
      {control}
      {error ? (
        <p id={`${htmlFor}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      ) : hint ? (
        <p id={`${htmlFor}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
