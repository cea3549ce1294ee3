import { createFileRoute, Outlet, redirect } from "@tanstack/react-router";
import { AppLayout } from "@/client/components/layout/app-layout";

/** Pathless layout for every signed-in page: redirects to /login?redirect=<path> when signed out. */
export const Route = createFileRoute("/_app")({
  beforeLoad: ({ context, location }) => {
    if (!context.auth.isAuthenticated) {
      throw redirect({ to: "/login", search: { redirect: location.href } });
    }
  },
  component: AppLayoutRoute,
});

function AppLayoutRoute() {
  return (
    <AppLayout>
      <Outlet />
    </AppLayout>
  );
}
