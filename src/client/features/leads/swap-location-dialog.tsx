import { useRef, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { errorMessage } from "@/client/lib/errors";
import { useFocusBackWhenIdle } from "@/client/lib/focus-rescue";

/** The saved search whose location is swapped (the fields the dialog shows). */
export interface SwapTarget {
  id: string;
  search_name: string;
  business_type: string;
  location: string;
  radius: number;
}

/**
 * Swap Location for a saved search (spec section 2, "Saved searches are listed with Load, Swap Location
 * and Delete actions"; POST /api/maps/swap-location), in the app's dialog instead of window.prompt:
 * a labelled "New location" field prefilled with the saved search's location (selected, so typing
 * replaces it). Enter or "Swap location" runs `onSwap(text)`; Cancel, Escape or the close button
 * change nothing; a blank location is ignored (spec section 5: no request, the button disabled). While
 * the swap's search runs the button shows a spinner ("Swapping..."). When the
 * server refuses (a place it cannot find: its 422 sentence) the dialog stays open with 'Location swap failed: ' plus the server's sentence under the
 * field (aria-describedby), the typed text kept and focus in the field. On success `onSwap` resolves
 * and the dialog closes; focus returns to the button that opened it (Dialog).
 * `onSwap` rejects with the server's error; when the person closed the dialog while the swap ran, a
 * failure goes to `onLateError` instead (the page's banner), since nothing shows it here.
 */
export function SwapLocationDialog({
  search,
  onOpenChange,
  onSwap,
  onLateError,
}: {
  /** the saved search being swapped; null: the dialog is closed */
  search: SwapTarget | null;
  onOpenChange: (open: boolean) => void;
  onSwap: (target: SwapTarget, newLocation: string) => Promise<void>;
  onLateError: (message: string) => void;
}) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // each opening starts from the saved location, without the last opening's text or error; the
  // search stays shown while the dialog's closing animation runs
  const open = search !== null;
  const [wasOpen, setWasOpen] = useState(false);
  const [shown, setShown] = useState<SwapTarget | null>(null);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (search) {
      setShown(search);
      setText(search.location);
      setError(null);
    }
  }
  const field = useRef<HTMLInputElement>(null);
  const openFor = useRef<string | null>(null);
  openFor.current = search?.id ?? null;
  // the button is disabled while the swap runs: a failure puts focus back in the field, not on <body>
  useFocusBackWhenIdle(busy, field);

  const blank = text.trim() === "";

  async function submit() {
    // spec section 5: "The swap-location prompt is ignored if left empty" (no request, nothing moves)
    if (!search || busy || blank) return;
    setError(null);
    setBusy(true);
    try {
      await onSwap(search, text);
      if (openFor.current === search.id) onOpenChange(false);
    } catch (e) {
      const message = `Location swap failed: ${errorMessage(e, "Search failed")}`;
      if (openFor.current === search.id) setError(message);
      else onLateError(message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        onOpenAutoFocus={(e) => {
          // the field, with its text selected (typing replaces the old location, as in a prompt)
          e.preventDefault();
          field.current?.focus();
          field.current?.select();
        }}
      >
        <DialogHeader>
          <DialogTitle>Swap location</DialogTitle>
          <DialogDescription>
            {shown
              ? `"${shown.search_name}": ${shown.business_type} in ${shown.location}, ${shown.radius} mi. The search runs again at the new location; the saved search moves there once it completes.`
              : ""}
          </DialogDescription>
        </DialogHeader>
        <form
          className="grid gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <div className="grid gap-1.5">
            <Label htmlFor="swap-location">New location</Label>
            <Input
              id="swap-location"
              ref={field}
              value={text}
              placeholder="Location (city, state or zip)"
              autoComplete="off"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? "swap-location-error" : undefined}
              onChange={(e) => setText(e.target.value)}
            />
          </div>
          {error && (
            <div id="swap-location-error">
              <AlertBanner variant="error">{error}</AlertBanner>
            </div>
          )}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} disabled={blank}>
              {busy ? "Swapping..." : "Swap location"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
