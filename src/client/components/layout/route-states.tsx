import { type ErrorComponentProps, Link, useRouter } from "@tanstack/react-router";
import { AlertTriangle, Compass } from "lucide-react";
import { Button } from "@/client/components/ui/button";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Spinner } from "@/client/components/ui/spinner";

/** Shown while a route's loader is slow (router defaultPendingComponent). */
export function RoutePending() {
  return (
    <div className="flex min-h-[40vh] items-center justify-center">
      <Spinner size="lg" />
    </div>
  );
}

/** Shown when a route throws (router defaultErrorComponent), with a retry. */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  return (
    <div className="mx-auto max-w-xl px-4 py-16">
      <EmptyState
        icon={AlertTriangle}
        title="Something went wrong"
        description={error instanceof Error ? error.message : "An unexpected error occurred."}
        action={
          <Button
            onClick={() => {
              reset();
              void router.invalidate();
            }}
          >
            Try again
          </Button>
        }
      />
    </div>
  );
}

/** Shown for unknown paths (router defaultNotFoundComponent). */
export function RouteNotFound() {
  return (
    <div className="mx-auto max-w-xl px-4 py-16">
      <EmptyState
        icon={Compass}
        title="Page not found"
        description="The page you are looking for does not exist or has moved."
        action={
          <Button asChild>
            <Link to="/">Go home</Link>
          </Button>
        }
      />
    </div>
  );
}
