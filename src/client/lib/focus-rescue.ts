import { type RefObject, useLayoutEffect, useRef } from "react";

const OPEN_DIALOG = '[role="dialog"][data-state="open"],[role="alertdialog"][data-state="open"]';
const CLOSING_DIALOG = '[role="dialog"][data-state="closed"],[role="alertdialog"][data-state="closed"]';

/**
 * Whether keyboard focus is nowhere: on <body> or no element, where the browser drops it when the
 * focused control is disabled or removed. A result a press produced may take focus then, never from
 * where the person put it.
 */
export function focusLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body;
}

/** How long after a confirmed action its opener may still disappear (the request and the list's refetch). */
const WATCH_MS = 15_000;

/**
 * Keeps keyboard focus from falling to <body> when a confirmed action removes the control that
 * opened its dialog (a member's Remove button goes with the member's row; the bulk-actions bar goes
 * when the selection is cleared). Watches the page (MutationObserver) for up to 15 s: once `opener`
 * has left the page while focus is on <body> (or nowhere), focuses the element `fallback()` returns
 * then (the next row's equivalent button, or a list heading with tabIndex=-1) and stops. It never
 * takes focus from where the person put it: once the opener is gone and focus is on anything but
 * <body> or a (closing) dialog, it stops too. Returns a function that stops watching. WCAG 2.4.3 Focus Order.
 *
 * A confirmation opened from inside another dialog (a segment's Delete in the Segments dialog): that
 * host dialog stays open, so it is not waited for; when the opener goes, Radix's focus trap moves
 * focus to the host dialog's panel itself, which counts as lost too (the fallback, usually inside the
 * host, gets it).
 *
 * The opener may also stay but be disabled while the action's request runs (a Send button showing
 * its spinner): focusing a disabled button does nothing, so the closing dialog's focus return fails and
 * the browser drops focus to <body> (Chromium blurs a focused control that becomes disabled). Once
 * the opener is enabled again (the request failed, or it succeeded and the opener stays) while focus
 * is still lost, focus goes back to the opener. Without `fallback`, only this second rescue runs.
 */
export function rescueFocusWhenGone(
  opener: HTMLElement | null,
  fallback: () => HTMLElement | null | undefined = () => null,
  timeoutMs = WATCH_MS,
): () => void {
  if (!opener) return () => {};
  // the dialogs the opener itself sits in stay open: only the others (the closing confirmation) are waited for
  const hosts = [...document.querySelectorAll<HTMLElement>(OPEN_DIALOG)].filter((d) => d.contains(opener));
  let done = false;
  // the opener was seen disabled: when it is enabled again while focus is lost, it gets focus back
  let wasDisabled = false;
  const stop = () => {
    done = true;
    observer.disconnect();
    clearTimeout(timer);
  };
  const check = () => {
    if (done) return;
    if (opener.isConnected && opener.matches(":disabled")) wasDisabled = true;
    // a dialog is still open (the action removed the opener before its dialog closed): the dialog
    // owns focus until it closes, and its removal is the next change seen here
    if ([...document.querySelectorAll(OPEN_DIALOG)].some((d) => !hosts.includes(d as HTMLElement))) return;
    const active = document.activeElement;
    // the host dialog's panel itself has focus when Radix's trap caught the loss: as lost as <body>
    const lost = !active || active === document.body || hosts.includes(active as HTMLElement);
    if (opener.isConnected) {
      // the opener stays: focus lost while it was disabled goes back to it once it is enabled
      if (lost && wasDisabled && !opener.matches(":disabled")) {
        wasDisabled = false;
        opener.focus();
      }
      return; // it may still go (the list refetches after the request): keep watching
    }
    if (active && !lost) {
      // still inside the dialog that is closing (its action removed the opener first): wait for it
      const inDialog = active.closest<HTMLElement>("[role=dialog],[role=alertdialog]");
      if (inDialog && !hosts.includes(inDialog)) return;
      return stop(); // focus is somewhere the person (or the page) put it: leave it there
    }
    const target = fallback();
    if (!target?.isConnected) return; // the fallback may not be rendered yet: wait for the next change
    target.focus();
    stop();
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["disabled"],
  });
  const timer = setTimeout(stop, timeoutMs);
  check();
  return stop;
}

/**
 * The element that had focus when `open` turned true, i.e. the control that opened a dialog (read in
 * a layout effect, before the dialog's auto-focus moves focus inside it). For rescueFocusWhenGone.
 * A control inside another open dialog counts (a confirmation asked from a dialog); one inside a
 * dialog that is closing does not.
 */
export function useOpenerRef(open: boolean): RefObject<HTMLElement | null> {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    if (active?.closest('[role=dialog][data-state="closed"],[role=alertdialog][data-state="closed"]')) return;
    opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
  }, [open]);
  return opener;
}

/**
 * A `fallback` for rescueFocusWhenGone after a row's removal: the `selector` control at `index` in
 * `list` (the row that took the removed row's place), else the one before it (the removed row was
 * the last), else `otherwise()` (a heading or region with tabIndex=-1), so a keyboard user goes on
 * from the same spot.
 */
export function sameSlotOr(
  list: { current: HTMLElement | null },
  selector: string,
  index: number,
  otherwise: () => HTMLElement | null | undefined,
): () => HTMLElement | null | undefined {
  return () => {
    const found = list.current?.isConnected ? [...list.current.querySelectorAll<HTMLElement>(selector)] : [];
    return found[index] ?? found[index - 1] ?? otherwise();
  };
}

/**
 * Gives focus to `target` (the dialog's field or its action button) when a request the dialog waited
 * for ends (`busy` turns false) and focus was lost meanwhile: the clicked button showed its spinner
 * disabled, and Chromium drops a focused control that becomes disabled to <body>, where a failed
 * request (the dialog stays open with its error) would leave a keyboard user outside the dialog.
 * Focus the person put anywhere else is left alone; so is a dialog that closed or is closing.
 */
export function useFocusBackWhenIdle(busy: boolean, target: RefObject<HTMLElement | null>): void {
  const wasBusy = useRef(false);
  useLayoutEffect(() => {
    if (busy) {
      wasBusy.current = true;
      return;
    }
    if (!wasBusy.current) return;
    wasBusy.current = false;
    const el = target.current;
    const active = document.activeElement;
    // lost: nothing focused, <body>, or the dialog's panel itself (Radix's trap caught the loss)
    const lost =
      !active || active === document.body || active.matches('[role="dialog"],[role="alertdialog"]');
    // a dialog that is closing (the request succeeded) gives focus back to its own opener
    if (lost && el?.isConnected && !el.closest(CLOSING_DIALOG)) el.focus();
  }, [busy, target]);
}
