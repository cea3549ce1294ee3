import { createTRPCClient, httpBatchLink, TRPCClientError, type TRPCLink } from "@trpc/client";
import { observable } from "@trpc/server/observable";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import superjson from "superjson";
import type { AppRouter } from "../server/trpc/router";
import {
  reportWorkspaceChanged,
  setShownWorkspace,
  shownWorkspaceHeaders,
} from "./features/workspaces/shown-workspace";

/**
 * tRPC for React (TanStack Query integration): wrap the app in `<TRPCProvider trpcClient={trpcClient}
 * queryClient={queryClient}>`, then `const trpc = useTRPC(); useQuery(trpc.crm.list.queryOptions(...))`.
 */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/**
 * A link that calls `onDone` after every mutation that succeeded (a contact added, a campaign launched,
 * a lead search run, a member removed...), so the caller can refresh what any of them may change; and
 * after a call the plan refused (`data.planRefusal`): the server knew the plan otherwise than the
 * screen (a subscription held or changed since it loaded), so what the screen shows of it is stale.
 */
function afterMutations(onDone: () => void): TRPCLink<AppRouter> {
  return () =>
    ({ next, op }) =>
      observable((observer) =>
        next(op).subscribe({
          next: (value) => observer.next(value),
          error: (err) => {
            if (
              err instanceof TRPCClientError &&
              (err.data as { planRefusal?: unknown } | undefined)?.planRefusal
            )
              onDone();
            observer.error(err);
          },
          complete: () => {
            // a mutation that ends or changes the session leaves nothing of this account to refresh
            // (the cache is cleared when the user changes): refreshing after a logout was a 401
            if (op.type === "mutation" && !SESSION_ENDS.has(op.path)) onDone();
            observer.complete();
          },
        }),
      );
}

/** Calls after which the session (and so the workspace the tab works in) may belong to someone else. */
const SESSION_CHANGES = new Set(["auth.login", "auth.register", "auth.logout"]);

/** Mutations after which the signed-in account's data is gone from the tab (afterMutations skips them). */
const SESSION_ENDS = new Set([...SESSION_CHANGES, "account.deleteAccount"]);

/**
 * Keeps the tab's workspace (features/workspaces/shown-workspace): learnt from the first `auth.me`
 * answer, forgotten when the session changes hands; and reports a refusal because the account now
 * works in another workspace (`data.workspaceChanged`), which WorkspaceChangedDialog shows.
 */
function shownWorkspaceLink(): TRPCLink<AppRouter> {
  return () =>
    ({ next, op }) =>
      observable((observer) =>
        next(op).subscribe({
          next: (value) => {
            if (op.path === "auth.me") {
              const data = value.result.type === "data" ? value.result.data : undefined;
              const workspace = (data as { workspace?: { id: string; name: string } } | undefined)?.workspace;
              if (workspace) setShownWorkspace(workspace);
            }
            if (SESSION_CHANGES.has(op.path)) setShownWorkspace(null);
            observer.next(value);
          },
          error: (err) => {
            if (err instanceof TRPCClientError) {
              const data = err.data as
                | {
                    workspaceChanged?: { id: string; name: string } | null;
                    shownWorkspaceMember?: boolean | null;
                  }
                | undefined;
              const changed = data?.workspaceChanged;
              if (changed) reportWorkspaceChanged(changed, data?.shownWorkspaceMember ?? null);
            }
            if (SESSION_CHANGES.has(op.path)) setShownWorkspace(null);
            observer.error(err);
          },
          complete: () => observer.complete(),
        }),
      );
}

/**
 * The app's tRPC client. `onMutation`: called after each successful mutation and each plan refusal
 * (main.tsx refreshes the plan usage there: contacts, seats and the monthly meters change with many
 * mutations of other features).
 */
export function createTrpcClient(opts: { onMutation?: () => void } = {}) {
  return createTRPCClient<AppRouter>({
    links: [
      shownWorkspaceLink(),
      ...(opts.onMutation ? [afterMutations(opts.onMutation)] : []),
      httpBatchLink({
        url: "/trpc",
        transformer: superjson,
        // the workspace this tab shows: the server refuses a call when the account now works in another
        headers: () => shownWorkspaceHeaders(),
        fetch: (url, options) => fetch(url, { ...options, credentials: "include" }),
      }),
    ],
  });
}
