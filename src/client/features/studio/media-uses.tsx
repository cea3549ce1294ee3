import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/client/trpc";

/**
 * The campaigns using library item `id` and, while one still has messages to send, the sentence
 * refusing its deletion (tRPC `studio.uses`: `{campaigns: {id, name, status, pending}[], refusal}`),
 * fetched fresh when `enabled` (the delete dialog is open).
 */
export function useMediaUses(id: number, enabled: boolean) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.studio.uses.queryOptions({ id }), enabled, staleTime: 0 });
}

/**
 * The Studio's delete dialog's description (media library and video editor): what is deleted, then
 * how many campaigns use the item and which (quoted names with their status), and, while one of them
 * still has messages to send, the server's refusal (which campaign, and to cancel it or wait until it
 * finishes; the dialog's confirm is then off). `what` names the item ("file", "video").
 */
export function DeleteMediaDescription({
  what,
  uses,
}: {
  what: "file" | "video";
  uses: ReturnType<typeof useMediaUses>;
}) {
  const list = uses.data?.campaigns ?? [];
  const names = list
    .slice(0, 5)
    .map((c) => `"${c.name}" (${c.status})`)
    .join(", ");
  const more = list.length > 5 ? ` and ${list.length - 5} more` : "";
  return (
    <>
      <span className="block">The {what} and all its saved versions are deleted. This cannot be undone.</span>
      {uses.isLoading && (
        <span className="mt-2 block text-muted-foreground">Checking which campaigns use it…</span>
      )}
      {list.length > 0 && (
        <span className="mt-2 block" data-testid="media-uses">
          {`Used by ${list.length === 1 ? "1 campaign" : `${list.length} campaigns`}: ${names}${more}.`}
          {!uses.data?.refusal &&
            ` Their reports keep their figures; recipients who open their link will see that the video is no longer available.`}
        </span>
      )}
      {uses.data?.refusal && (
        <span role="alert" className="mt-2 block font-medium text-destructive" data-testid="media-in-use">
          {uses.data.refusal}
        </span>
      )}
    </>
  );
}
