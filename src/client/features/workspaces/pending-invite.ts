/**
 * The invitation a person is joining while they confirm their email (issue 10 invites, issue 11
 * verification): the invite page remembers it, so the /verify-email page opened from the emailed
 * link (often another tab of the same browser) can lead straight back to it. Kept in localStorage
 * for 7 days at most (an invite's lifetime); a private window without storage simply has no shortcut.
 */
const KEY = "pitchwise.pending-invite";
const TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface PendingInvite {
  /** the invite page's path, `/invite/{token}` */
  path: string;
  /** the workspace's name, for the link's label */
  workspace: string;
}

/** Remembers the invitation being joined (replaces an earlier one). */
export function rememberPendingInvite(token: string, workspace: string): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ path: `/invite/${token}`, workspace, at: Date.now() }));
  } catch {
    // storage unavailable: no shortcut back, the emailed invite link still works
  }
}

/** The remembered invitation, or null (none, expired, or unreadable). */
export function pendingInvite(): PendingInvite | null {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? "null") as (PendingInvite & { at: number }) | null;
    if (!v || typeof v.path !== "string" || !/^\/invite\/[a-z2-7]+$/.test(v.path)) return null;
    if (typeof v.at !== "number" || Date.now() - v.at > TTL_MS) return null;
    return { path: v.path, workspace: String(v.workspace ?? "") };
  } catch {
    return null;
  }
}

/** Forgets the remembered invitation (joined, or no longer usable). */
export function forgetPendingInvite(): void {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // nothing to forget
  }
}
