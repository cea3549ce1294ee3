import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/client/trpc";

/**
 * Who campaigns come from (tRPC `campaigns.sender`): `myBusiness` is what `{{my_business}}` renders
 * to and what leads a first text ("<business>: "), `from` the exact From header of campaign emails.
 * Its own module, so screens that only need the sender do not load the merge-tag field.
 */
export function useSender() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.campaigns.sender.queryOptions(), staleTime: 60_000 });
}
