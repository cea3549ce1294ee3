/**
 * A confirmation that outlives a full page load: some actions end with one (transferring ownership,
 * leaving a workspace: every cached screen belongs to the workspace or role as it was), and the page
 * they land on says what happened (components/layout/notice-after-reload NoticeAfterReload). Kept in
 * sessionStorage (this tab only) for at most NOTICE_TTL_MS and read once per page load.
 */
const KEY = "pitchwise.noticeAfterReload";

/** A notice older than this (ms) was left by a load that never happened, and is dropped. */
const NOTICE_TTL_MS = 60_000;

/** Leaves `message` (a sentence) for the next page load of this tab. Ignored where storage is refused. */
export function leaveNoticeAfterReload(message: string): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ message, at: Date.now() }));
  } catch {
    // private mode or storage off: the action still happened, only unconfirmed
  }
}

let taken: string | null | undefined;

/**
 * The notice left for this page load (leaveNoticeAfterReload), or null: read and removed on the first
 * call, the same answer on later calls of the same load.
 */
export function noticeForThisLoad(): string | null {
  if (taken !== undefined) return taken;
  taken = null;
  try {
    const raw = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
    const v = JSON.parse(raw ?? "null") as { message?: unknown; at?: unknown } | null;
    if (v && typeof v.message === "string" && typeof v.at === "number" && Date.now() - v.at < NOTICE_TTL_MS)
      taken = v.message;
  } catch {
    // unreadable: no notice
  }
  return taken;
}
