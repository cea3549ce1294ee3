import { useSyncExternalStore } from "react";
import {
  SHOWN_WORKSPACE_HEADER,
  SHOWN_WORKSPACE_PARAM,
  type WorkspaceChanged,
} from "@/server/lib/shown-workspace";

/**
 * The workspace this browser tab shows, and whether the server said the account now works in another.
 *
 * A browser's tabs share one session, and the session's active workspace changes when another tab
 * switches workspace or when the person is removed from the workspace. The tab learns its workspace
 * from the first `auth.me` answer of its page load (every switch, invitation acceptance and departure
 * reloads the page), sends it with every tRPC call and upload (SHOWN_WORKSPACE_HEADER) and download link
 * (SHOWN_WORKSPACE_PARAM), and the server refuses a call whose workspace is no longer the active one
 * (409, `workspaceChanged`). The tab then shows WorkspaceChangedDialog instead of acting in a workspace
 * it does not show.
 */
let shown: WorkspaceChanged | null = null;
let changed: ActiveWorkspace | null = null;

/**
 * The active workspace a refusal named, and whether the person still belongs to the workspace this
 * tab shows (the refusal's `shown_workspace_member` / tRPC `data.shownWorkspaceMember`): false when
 * their access to it ended, null when the server did not say.
 */
export type ActiveWorkspace = WorkspaceChanged & { memberOfShown: boolean | null };
const listeners = new Set<() => void>();

/** The tab's workspace `{id, name}`, or null before the first `auth.me` answer (and after sign-out). */
export function shownWorkspace(): WorkspaceChanged | null {
  return shown;
}

/**
 * Records the tab's workspace from an `auth.me` answer; only the first answer of a page load counts
 * (a later one may already describe the workspace another tab switched to). `null` forgets it (sign-in,
 * sign-out, registration: the next `auth.me` names the new session's workspace).
 */
export function setShownWorkspace(workspace: WorkspaceChanged | null) {
  if (workspace && shown) return;
  shown = workspace && { id: workspace.id, name: workspace.name };
}

/** Headers that name the tab's workspace (none before it is known). */
export function shownWorkspaceHeaders(): Record<string, string> {
  return shown ? { [SHOWN_WORKSPACE_HEADER]: shown.id } : {};
}

/** `url` with the tab's workspace as a query parameter, for downloads opened as plain links. */
export function withShownWorkspace(url: string): string {
  if (!shown) return url;
  const sep = url.includes("?") ? "&" : "?";
  return `${url}${sep}${SHOWN_WORKSPACE_PARAM}=${encodeURIComponent(shown.id)}`;
}

/**
 * Called when the server refused a call because the account now works in `active` (the first one
 * wins); `memberOfShown`: whether the person still belongs to the workspace this tab shows, as the
 * refusal said (null when it did not).
 */
export function reportWorkspaceChanged(active: WorkspaceChanged, memberOfShown: boolean | null = null) {
  if (changed) return;
  changed = { id: active.id, name: active.name, memberOfShown };
  for (const l of listeners) l();
}

/**
 * A REST answer's `workspace_changed` (the upload and import routes' 409), reported as
 * reportWorkspaceChanged does; returns whether there was one.
 */
export function reportRestWorkspaceChanged(body: unknown): boolean {
  const b = body as { workspace_changed?: WorkspaceChanged; shown_workspace_member?: unknown } | null;
  const w = b?.workspace_changed;
  if (!w || typeof w.id !== "string" || typeof w.name !== "string") return false;
  const member = b?.shown_workspace_member;
  reportWorkspaceChanged(w, typeof member === "boolean" ? member : null);
  return true;
}

/**
 * The active workspace the server named when it refused this tab's call (with whether the person
 * still belongs to the one the tab shows), or null (React).
 */
export function useWorkspaceChanged(): ActiveWorkspace | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => changed,
  );
}
