import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  reportRestWorkspaceChanged,
  shownWorkspaceHeaders,
} from "@/client/features/workspaces/shown-workspace";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import type { MediaUploadResponse } from "@/server/features/studio/studio.rest";

/** Every media item (newest first, tRPC `studio.list`); polls every 3 s while something is processing. */
export function useMediaList() {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.studio.list.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((m) => m.processing_status === "processing") ? 3000 : false),
  });
}

/** One item with its waveform peaks (tRPC `studio.get`); polls while it is processing. */
export function useMediaDetail(id: number) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.studio.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data?.media.processing_status === "processing" ? 2000 : false),
  });
}

/** The versions of one item (original first, tRPC `studio.versions`), fetched when `enabled`. */
export function useMediaVersions(id: number, enabled = true) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.studio.versions.queryOptions({ id }), enabled });
}

/** Refreshes every studio query (after an upload, edit, restore or delete). */
export function useInvalidateMedia() {
  const qc = useQueryClient();
  const trpc = useTRPC();
  return () => qc.invalidateQueries({ queryKey: trpc.studio.pathKey() });
}

/** The tRPC client's studio procedures (edits, deletes and render polling outside queries). */
export function useStudioClient() {
  return useTRPCClient().studio;
}

/** What `waitForRender` polls with (the tRPC client's `studio.edit` query). */
type EditPoller = ReturnType<typeof useStudioClient>["edit"];

/** Polls a render job until it is done or failed, reporting progress (0-100). */
export async function waitForRender(
  poll: EditPoller,
  editId: number,
  onProgress: (pct: number) => void,
  signal?: AbortSignal,
) {
  for (;;) {
    const edit = await poll.query({ id: editId }, { signal });
    onProgress(edit.progress);
    if (edit.status === "done" || edit.status === "failed") return edit;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Uploads a file as multipart with progress (XHR: fetch has no upload progress; uploads stay REST).
 * `field` is file | video | audio (spec section 3). Resolves with the server's JSON; rejects with
 * Error(server error text, or 'Upload failed'); `signal` cancels (rejects with AbortError).
 */
export function uploadMedia(
  url: string,
  field: "file" | "video" | "audio",
  file: Blob,
  name: string,
  opts: { onProgress?: (pct: number) => void; signal?: AbortSignal; filename?: string } = {},
): Promise<MediaUploadResponse> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("name", name);
    form.append(field, file, opts.filename ?? (file instanceof File ? file.name : "recording.webm"));
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.withCredentials = true;
    xhr.responseType = "json";
    // the workspace this tab shows: refused (409) when the account now works in another
    for (const [k, v] of Object.entries(shownWorkspaceHeaders())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) opts.onProgress?.(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      const body = xhr.response as MediaUploadResponse | { success: false; error?: string } | null;
      if (xhr.status >= 200 && xhr.status < 300 && body?.success) resolve(body);
      else {
        // a tab showing another workspace: the app-wide dialog says so (workspace-changed-dialog)
        reportRestWorkspaceChanged(body);
        reject(new Error((body && !body.success && body.error) || "Upload failed"));
      }
    };
    xhr.onerror = () => reject(new Error("Network error. Please try again."));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    opts.signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(form);
  });
}
