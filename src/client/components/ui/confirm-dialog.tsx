import type { ReactNode } from "react";
import { rescueFocusWhenGone, useOpenerRef } from "@/client/lib/focus-rescue";
import { Button } from "./button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "./dialog";

/**
 * A confirmation of a destructive action (revoke a key, remove a member): title, what will happen,
 * Cancel (also Escape; focus returns to the opener, see Dialog) and a destructive confirm button.
 * `onConfirm` runs, then the dialog closes through `onOpenChange(false)` and focus goes back to the
 * opener. When the confirmed action later removes the opener (the row of a removed member),
 * `focusAfterConfirm` names where focus goes instead of <body> (rescueFocusWhenGone: e.g. the next
 * row's same button, else the list's heading with tabIndex=-1); it is read when the opener goes.
 * When the opener stays but is disabled while the confirmed action's request runs (its spinner), focus
 * that fell to <body> goes back to it once it is enabled again (the request failed, or it stays).
 * Cancelling keeps the Dialog's behaviour (focus back on the opener).
 * `cancelLabel` renames Cancel where "Cancel" would be ambiguous (cancelling a campaign); a warning
 * that is not destructive (send to a contact who has not opted in) sets `confirmVariant="default"`.
 * It also works opened from inside another dialog (that dialog stays open behind it).
 * `confirmDisabled` turns the confirm button off while the action is known to be refused (the
 * description then says why, e.g. a video a scheduled campaign still sends).
 */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  cancelLabel = "Cancel",
  confirmVariant = "destructive",
  onConfirm,
  focusAfterConfirm,
  confirmDisabled = false,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  confirmVariant?: "destructive" | "default";
  onConfirm: () => void;
  focusAfterConfirm?: () => HTMLElement | null | undefined;
  confirmDisabled?: boolean;
}) {
  const opener = useOpenerRef(open);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">{cancelLabel}</Button>
          </DialogClose>
          <Button
            variant={confirmVariant}
            disabled={confirmDisabled}
            onClick={() => {
              // also when the opener stays but is disabled while the request runs (focus back once enabled)
              rescueFocusWhenGone(opener.current, focusAfterConfirm);
              onConfirm();
              onOpenChange(false);
            }}
          >
            {confirmLabel}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
