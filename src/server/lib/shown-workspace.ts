// Client-safe (no server imports): the app's browser tabs say which workspace they show, so a
// request from a tab whose workspace is no longer the session's active one is refused instead of
// acting in another workspace (features/workspaces/workspaces.service assertShownWorkspace).

/**
 * Request header naming the workspace a browser tab shows (its uuid). The app's tRPC client and its
 * uploads send it; outside clients (REST callers, the public API) do not, and are not checked.
 */
export const SHOWN_WORKSPACE_HEADER = "x-workspace-id";

/**
 * Query parameter with the same meaning, for downloads the app opens as plain links (a link cannot
 * carry a header): `/api/contacts/export.csv?workspace=<uuid>`.
 */
export const SHOWN_WORKSPACE_PARAM = "workspace";

/**
 * What a refused request carries besides its sentence: the session's active workspace (REST body
 * `workspace_changed`, tRPC `data.workspaceChanged`), so the tab can say where the account now works.
 */
export type WorkspaceChanged = { id: string; name: string };
