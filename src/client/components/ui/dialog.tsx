import { XIcon } from "lucide-react";
import { Dialog as DialogPrimitive } from "radix-ui";
import type * as React from "react";
import { useLayoutEffect, useRef } from "react";
import { cn } from "@/client/lib/utils";

/** Modal dialog root (Radix). Props: open, onOpenChange, defaultOpen. */
export const Dialog = DialogPrimitive.Root;
/** Element that opens the dialog; use asChild with a <Button>. */
export const DialogTrigger = DialogPrimitive.Trigger;
/** Element that closes the dialog; use asChild with a <Button>. */
export const DialogClose = DialogPrimitive.Close;

/**
 * The centred panel with overlay and a close (X) button. Prop hideClose removes the X. Needs a DialogTitle.
 * On close, focus returns to the control that had it when the dialog opened (issue 14): Radix does this
 * only for a DialogTrigger, and most dialogs here are opened from state by an ordinary button. The opener
 * is read as the content mounts (OpenerCapture, before any child's autoFocus has moved focus into the
 * dialog), not in onOpenAutoFocus, which runs after an autoFocus field already took focus.
 * Focus is given back as the closed content leaves the page (OpenerCapture's cleanup, before its nodes
 * are removed), not only in Radix's onCloseAutoFocus, which runs in a timer after the removal: in
 * between, focus was on <body>, and a focus the user (or a test) moved meanwhile was taken back by the
 * late return. onCloseAutoFocus now only finishes the job: it leaves focus where it already is (the
 * opener, or wherever the user put it) and focuses the opener only if focus is still on <body>.
 */
export function DialogContent({
  className,
  children,
  hideClose = false,
  onOpenAutoFocus,
  onCloseAutoFocus,
  ...props
}: React.ComponentProps<typeof DialogPrimitive.Content> & { hideClose?: boolean }) {
  const opener = useRef<HTMLElement | null>(null);
  const content = useRef<HTMLDivElement | null>(null);
  const { ref: outerRef, ...rest } = props as typeof props & { ref?: React.Ref<HTMLDivElement> };
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-black/50 backdrop-blur-[2px] data-[state=open]:animate-fade-in" />
      <DialogPrimitive.Content
        data-slot="dialog-content"
        className={cn(
          "fixed top-1/2 left-1/2 z-50 grid max-h-[calc(100dvh-2rem)] w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 gap-4 overflow-y-auto rounded-xl border border-border bg-popover p-6 text-popover-foreground shadow-xl outline-none data-[state=open]:animate-dialog-in",
          className,
        )}
        onOpenAutoFocus={onOpenAutoFocus}
        onCloseAutoFocus={(event) => {
          onCloseAutoFocus?.(event);
          if (event.defaultPrevented) return;
          const target = opener.current;
          opener.current = null;
          const active = document.activeElement;
          // already given back as the content left, or moved on by the user since: keep it there
          if (active && active !== document.body) return event.preventDefault();
          if (target?.isConnected) {
            event.preventDefault();
            target.focus();
          }
        }}
        ref={(node: HTMLDivElement | null) => {
          // the last node is kept: React detaches the ref before the children's unmount cleanup reads it
          if (node) content.current = node;
          if (typeof outerRef === "function") outerRef(node);
          else if (outerRef) outerRef.current = node;
        }}
        {...rest}
      >
        <OpenerCapture opener={opener} content={content} />
        {children}
        {!hideClose && (
          <DialogPrimitive.Close className="absolute top-4 right-4 rounded-md p-1 text-muted-foreground opacity-80 transition hover:bg-accent hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
            <XIcon className="size-4" />
            <span className="sr-only">Close</span>
          </DialogPrimitive.Close>
        )}
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

/**
 * Renders a hidden marker (to find its own dialog); as the first child of the dialog content, its layout effect runs when the content
 * mounts and before later children's autoFocus (React focuses those in the same commit, in tree order),
 * so the focused element it records is the control that opened the dialog. Its cleanup runs when the
 * closed content unmounts, before React removes the content's nodes (and after Radix stopped trapping
 * focus, which it does as the dialog closes): if focus is still inside the content (or already on
 * <body>), it goes back to the opener there and then, so it never falls to <body> on the way.
 */
function OpenerCapture({
  opener,
  content,
}: {
  opener: React.RefObject<HTMLElement | null>;
  content: React.RefObject<HTMLElement | null>;
}) {
  const marker = useRef<HTMLSpanElement | null>(null);
  useLayoutEffect(() => {
    const active = document.activeElement;
    // a remount while open finds focus already inside this dialog: keep the opener recorded before.
    // Focus inside another dialog is an opener (a confirmation asked from a dialog's button).
    if (active && marker.current?.closest("[role=dialog]")?.contains(active)) return;
    opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
  }, [opener]);
  useLayoutEffect(
    () => () => {
      const node = content.current;
      const target = opener.current;
      // only a closing dialog gives focus back (a remount while open keeps it inside)
      if (node?.getAttribute("data-state") !== "closed" || !target?.isConnected) return;
      const active = document.activeElement;
      if (!active || active === document.body || node.contains(active)) target.focus();
    },
    [opener, content],
  );
  return <span ref={marker} hidden />;
}

/** Title + description block at the top of DialogContent. */
export function DialogHeader({ className, ...props }: React.ComponentProps<"div">) {
  return <div className={cn("flex flex-col gap-1.5 pr-6", className)} {...props} />;
}

/** Button row at the bottom of DialogContent (stacked on mobile, right-aligned on desktop). */
export function DialogFooter({ className, ...props }: React.ComponentProps<"div">) {
  return (
    <div className={cn("flex flex-col-reverse gap-2 sm:flex-row sm:justify-end", className)} {...props} />
  );
}

/** Accessible dialog title (required by Radix). */
export function DialogTitle({ className, ...props }: React.ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={cn("text-lg leading-none font-semibold", className)} {...props} />;
}

/** Accessible dialog description. */
export function DialogDescription({
  className,
  ...props
}: React.ComponentProps<typeof DialogPrimitive.Description>) {
  return (
    <DialogPrimitive.Description className={cn("text-sm text-muted-foreground", className)} {...props} />
  );
}
