import type { QueryClient } from "@tanstack/react-query";
import { createRouter } from "@tanstack/react-router";
import { RouteError, RouteNotFound, RoutePending } from "./components/layout/route-states";
import type { AuthStore } from "./features/auth/auth-store";
import { routeTree } from "./routeTree.gen";

/** Available to every route's beforeLoad/loader as `context`. `auth` always holds the current session. */
export interface RouterContext {
  queryClient: QueryClient;
  auth: AuthStore;
}

/** Builds the app router. Loaders prefetch with `context.queryClient.ensureQueryData(...)`. */
export function createAppRouter(context: RouterContext) {
  return createRouter({
    routeTree,
    context,
    defaultPreload: "intent",
    // Let TanStack Query decide freshness for preloaded data.
    defaultPreloadStaleTime: 0,
    scrollRestoration: true,
    defaultPendingComponent: RoutePending,
    defaultErrorComponent: RouteError,
    defaultNotFoundComponent: RouteNotFound,
  });
}

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
