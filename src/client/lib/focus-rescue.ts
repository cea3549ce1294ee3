import { type RefObject, useLayoutEffect, useRef } from "react";

const OPEN_DIALOG = '[role="dialog"][data-state="open"],[role="alertdialog"][data-state="open"]';

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
 */
export function rescueFocusWhenGone(
  opener: HTMLElement | null,
  fallback: () => HTMLElement | null | undefined,
  timeoutMs = WATCH_MS,
): () => void {
  if (!opener) return () => {};
  let done = false;
  const stop = () => {
    done = true;
    observer.disconnect();
    clearTimeout(timer);
  };
  const check = () => {
    if (done || opener.isConnected) return;
    // a dialog is still open (the action removed the opener before its dialog closed): the dialog
    // owns focus until it closes, and its removal is the next change seen here
    if (document.querySelector(OPEN_DIALOG)) return;
    const active = document.activeElement;
    if (active && active !== document.body) {
      // still inside the dialog that is closing (its action removed the opener first): wait for it
      if (active.closest("[role=dialog],[role=alertdialog]")) return;
      return stop(); // focus is somewhere the person (or the page) put it: leave it there
    }
    const target = fallback();
    if (!target?.isConnected) return; // the fallback may not be rendered yet: wait for the next change
    target.focus();
    stop();
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { childList: true, subtree: true });
  const timer = setTimeout(stop, timeoutMs);
  check();
  return stop;
}

/**
 * The element that had focus when `open` turned true, i.e. the control that opened a dialog (read in
 * a layout effect, before the dialog's auto-focus moves focus inside it). For rescueFocusWhenGone.
 */
export function useOpenerRef(open: boolean): RefObject<HTMLElement | null> {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    if (active?.closest("[role=dialog]")) return;
    opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
  }, [open]);
  return opener;
}
