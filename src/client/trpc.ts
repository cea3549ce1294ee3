import { createTRPCClient, httpBatchLink, type TRPCLink } from "@trpc/client";
import { observable } from "@trpc/server/observable";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import superjson from "superjson";
import type { AppRouter } from "../server/trpc/router";

/**
 * tRPC for React (TanStack Query integration): wrap the app in `<TRPCProvider trpcClient={trpcClient}
 * queryClient={queryClient}>`, then `const trpc = useTRPC(); useQuery(trpc.crm.list.queryOptions(...))`.
 */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/**
 * A link that calls `onDone` after every mutation that succeeded (a contact added, a campaign launched,
 * a lead search run, a member removed...), so the caller can refresh what any of them may change.
 */
function afterMutations(onDone: () => void): TRPCLink<AppRouter> {
  return () =>
    ({ next, op }) =>
      observable((observer) =>
        next(op).subscribe({
          next: (value) => observer.next(value),
          error: (err) => observer.error(err),
          complete: () => {
            if (op.type === "mutation") onDone();
            observer.complete();
          },
        }),
      );
}

/**
 * The app's tRPC client. `onMutation`: called after each successful mutation (main.tsx refreshes the
 * plan usage there: contacts, seats and the monthly meters change with many mutations of other features).
 */
export function createTrpcClient(opts: { onMutation?: () => void } = {}) {
  return createTRPCClient<AppRouter>({
    links: [
      ...(opts.onMutation ? [afterMutations(opts.onMutation)] : []),
      httpBatchLink({
        url: "/trpc",
        transformer: superjson,
        fetch: (url, options) => fetch(url, { ...options, credentials: "include" }),
      }),
    ],
  });
}
