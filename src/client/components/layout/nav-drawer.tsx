import { Menu, X } from "lucide-react";
import { Dialog as DialogPrimitive } from "radix-ui";
import type { ReactNode } from "react";
import { cn } from "@/client/lib/utils";

/** The width from which the drawer is not needed (the full navigation shows): Tailwind's lg or xl. */
type Breakpoint = "lg" | "xl";
// literal class names, so Tailwind's scanner sees them
const HIDDEN_FROM: Record<Breakpoint, string> = { lg: "lg:hidden", xl: "xl:hidden" };

/**
 * The one mobile navigation drawer (both navigation layouts use it: AppLayout's sidebar layout below
 * `lg`, TopBar below `xl`): a Radix dialog sliding in from the left with the title 'Navigation' for
 * screen readers, a close button, Escape and outside-click to close, and focus returned to the menu
 * button. `children` is the bar that holds the menu button (`NavDrawerTrigger`); `drawer` is what the
 * drawer shows. Controlled (`open`, `onOpenChange`) so links can close it after navigating.
 */
export function NavDrawer({
  open,
  onOpenChange,
  hiddenFrom,
  drawer,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  hiddenFrom: Breakpoint;
  drawer: ReactNode;
  children: ReactNode;
}) {
  const hidden = HIDDEN_FROM[hiddenFrom];
  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      {children}
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay
          className={cn("fixed inset-0 z-40 bg-black/50 data-[state=open]:animate-fade-in", hidden)}
        />
        <DialogPrimitive.Content
          className={cn(
            "fixed inset-y-0 left-0 z-50 flex w-72 max-w-[85vw] flex-col bg-sidebar text-sidebar-foreground shadow-xl [--ring:var(--sidebar-foreground)] outline-none data-[state=open]:animate-slide-in-left",
            hidden,
          )}
          aria-describedby={undefined}
          data-testid="nav-drawer"
        >
          <DialogPrimitive.Title className="sr-only">Navigation</DialogPrimitive.Title>
          {drawer}
          <DialogPrimitive.Close
            className="absolute top-4 right-3 rounded-md p-1.5 text-sidebar-foreground hover:bg-sidebar-accent focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
            aria-label="Close navigation"
          >
            <X className="size-4" />
          </DialogPrimitive.Close>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

/** The menu button that opens the enclosing NavDrawer; hidden from the drawer's breakpoint up. */
export function NavDrawerTrigger({ hiddenFrom }: { hiddenFrom: Breakpoint }) {
  return (
    <DialogPrimitive.Trigger
      className={cn(
        "-ml-1 rounded-md p-2 text-foreground hover:bg-accent focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none",
        HIDDEN_FROM[hiddenFrom],
      )}
      aria-label="Open navigation"
    >
      <Menu className="size-5" />
    </DialogPrimitive.Trigger>
  );
}
