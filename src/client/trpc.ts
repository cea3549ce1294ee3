import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import superjson from "superjson";
import type { AppRouter } from "../server/trpc/router";

/**
 * tRPC for React (TanStack Query integration): wrap the app in `<TRPCProvider trpcClient={trpcClient}
 * queryClient={queryClient}>`, then `const trpc = useTRPC(); useQuery(trpc.crm.list.queryOptions(...))`.
 */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export function createTrpcClient() {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: "/trpc",
        transformer: superjson,
        fetch: (url, options) => fetch(url, { ...options, credentials: "include" }),
      }),
    ],
  });
}
