import { cva, type VariantProps } from "class-variance-authority";
import { AlertTriangle, CheckCircle2, Info, X, XCircle } from "lucide-react";
import type * as React from "react";
import { cn } from "@/client/lib/utils";

const bannerVariants = cva("flex items-start gap-3 rounded-lg border px-4 py-3 text-sm", {
  variants: {
    variant: {
      success: "border-success/30 bg-success/10 text-success",
      error: "border-destructive/30 bg-destructive/10 text-destructive",
      warning: "border-warning/30 bg-warning/10 text-warning",
      info: "border-border bg-accent text-accent-foreground",
    },
  },
  defaultVariants: { variant: "info" },
});

const icons = { success: CheckCircle2, error: XCircle, warning: AlertTriangle, info: Info } as const;

export type AlertBannerVariant = NonNullable<VariantProps<typeof bannerVariants>["variant"]>;

/**
 * Inline message box. Props: variant (success|error|warning|info), title, children (the message),
 * onDismiss (shows a close button), className. Errors and warnings use role="alert", others role="status".
 */
export function AlertBanner({
  variant = "info",
  title,
  children,
  onDismiss,
  className,
}: {
  variant?: AlertBannerVariant;
  title?: React.ReactNode;
  children?: React.ReactNode;
  onDismiss?: () => void;
  className?: string;
}) {
  const Icon = icons[variant];
  return (
    <div
      role={variant === "error" || variant === "warning" ? "alert" : "status"}
      className={cn(bannerVariants({ variant }), className)}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="min-w-0 flex-1">
        {title && <p className="font-semibold">{title}</p>}
        {children && <div className={cn(title && "mt-0.5")}>{children}</div>}
      </div>
      {onDismiss && (
        <button
          type="button"
          onClick={onDismiss}
          className="-m-1 rounded-md p-1 opacity-70 transition hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
          aria-label="Dismiss"
        >
          <X className="size-4" />
        </button>
      )}
    </div>
  );
}
