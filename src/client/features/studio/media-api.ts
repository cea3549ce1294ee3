import { queryOptions, useQueryClient } from "@tanstack/react-query";
import { api } from "@/client/lib/api";
import type { EditState, Media, Peaks } from "./types";

/** Query of every media item (newest first); polls every 3 s while something is processing. */
export const mediaListQuery = queryOptions({
  queryKey: ["studio", "media"],
  queryFn: async () => (await api.get<{ media: Media[] }>("/api/media/list")).media,
  refetchInterval: (q) => (q.state.data?.some((m) => m.processing_status === "processing") ? 3000 : false),
});

/** One item with its waveform peaks. */
export const mediaDetailQuery = (id: number) =>
  queryOptions({
    queryKey: ["studio", "media", id],
    queryFn: async () => api.get<{ media: Media; peaks: Peaks | null }>(`/api/media/${id}`),
    refetchInterval: (q) => (q.state.data?.media.processing_status === "processing" ? 2000 : false),
  });

/** Refreshes every studio query (after an upload, edit or delete). */
export function useInvalidateMedia() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ["studio"] });
}

/** Deletes a media item. @throws ApiError with the server's message. */
export async function deleteMedia(id: number): Promise<void> {
  await api.del(`/api/media/${id}`);
}

/** Polls a render job until it is done or failed, reporting progress (0-100). */
export async function waitForRender(
  editId: number,
  onProgress: (pct: number) => void,
  signal?: AbortSignal,
): Promise<EditState> {
  for (;;) {
    const { edit } = await api.get<{ edit: EditState }>(`/api/media/edits/${editId}`, { signal });
    onProgress(edit.progress);
    if (edit.status === "done" || edit.status === "failed") return edit;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Uploads a file as multipart with progress (XHR: fetch has no upload progress).
 * `field` is file | video | audio (spec section 3). Resolves with the server's JSON; rejects with
 * Error(server error text, or 'Upload failed'); `signal` cancels (rejects with AbortError).
 */
export function uploadMedia(
  url: string,
  field: "file" | "video" | "audio",
  file: Blob,
  name: string,
  opts: { onProgress?: (pct: number) => void; signal?: AbortSignal; filename?: string } = {},
): Promise<{ success: boolean; media: Media }> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("name", name);
    form.append(field, file, opts.filename ?? (file instanceof File ? file.name : "recording.webm"));
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.withCredentials = true;
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) opts.onProgress?.(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      const body = xhr.response as { success?: boolean; error?: string; media?: Media } | null;
      if (xhr.status >= 200 && xhr.status < 300 && body?.success)
        resolve(body as { success: boolean; media: Media });
      else reject(new Error(body?.error || "Upload failed"));
    };
    xhr.onerror = () => reject(new Error("Network error. Please try again."));
    xhr.onabort = () => reject(new DOMException("Upload cancelled", "AbortError"));
    opts.signal?.addEventListener("abort", () => xhr.abort());
    xhr.send(form);
  });
}
