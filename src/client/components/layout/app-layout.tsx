import { useNavigate } from "@tanstack/react-router";
import { type ReactNode, useState } from "react";
import { Logo } from "@/client/components/logo";
import { useAuth } from "@/client/features/auth/auth-context";
import { VerifyEmailBanner } from "@/client/features/auth/verify-email-banner";
import { UsageBanners } from "@/client/features/billing/usage";
import { WorkspaceChangedDialog } from "@/client/features/workspaces/workspace-changed-dialog";
import { Breadcrumbs } from "./breadcrumbs";
import { NavDrawer, NavDrawerTrigger } from "./nav-drawer";
import { NoticeAfterReload } from "./notice-after-reload";
import { SidebarContent } from "./sidebar";
import { TopBar } from "./top-bar";

/**
 * The signed-in shell in the user's navigation layout (Settings > Preferences, `preferences.navLayout`):
 * `sidebar` (default) is a fixed sidebar on large screens and a header with a drawer on small ones;
 * `topbar` is the spec's top-bar variant (TopBar). Breadcrumbs sit above the page, and `children` (the
 * routed page) in a centred content column. Used by the protected layout route (routes/_app.tsx).
 */
export function AppLayout({ children }: { children: ReactNode }) {
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const [mobileOpen, setMobileOpen] = useState(false);
  const [loggingOut, setLoggingOut] = useState(false);

  if (!user) return null; // signed out mid-render (logout); the router redirects

  const handleLogout = async () => {
    setLoggingOut(true);
    try {
      await logout();
    } finally {
      setLoggingOut(false);
      setMobileOpen(false);
      await navigate({ to: "/login" });
    }
  };

  const sidebarProps = { user, onLogout: handleLogout, loggingOut };
  const skipLink = (
    <a
      href="#main-content"
      className="sr-only z-50 rounded-md bg-primary px-3 py-2 text-primary-foreground focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
    >
      Skip to content
    </a>
  );
  const page = (
    <main
      id="main-content"
      tabIndex={-1}
      className="mx-auto w-full max-w-7xl min-w-0 px-4 py-6 outline-none sm:px-6 lg:px-10 lg:py-8"
    >
      <Breadcrumbs className="mb-5" />
      <VerifyEmailBanner />
      <UsageBanners />
      <NoticeAfterReload />
      {children}
    </main>
  );

  const topbar = user.preferences?.navLayout === "topbar";
  // one tree shape for both layouts: switching layout keeps the page (and its state) mounted
  return (
    <div className="min-h-dvh bg-background" data-layout={topbar ? "topbar" : "sidebar"}>
      {skipLink}
      <WorkspaceChangedDialog />
      {topbar ? <TopBar onLogout={handleLogout} loggingOut={loggingOut} /> : null}
      {topbar ? null : (
        <aside className="fixed inset-y-0 left-0 z-30 hidden w-64 border-r border-sidebar-border lg:block">
          <SidebarContent {...sidebarProps} />
        </aside>
      )}
      {topbar ? null : (
        <NavDrawer
          open={mobileOpen}
          onOpenChange={setMobileOpen}
          hiddenFrom="lg"
          drawer={<SidebarContent {...sidebarProps} onNavigate={() => setMobileOpen(false)} />}
        >
          <header className="sticky top-0 z-20 flex h-14 items-center gap-3 border-b border-border bg-background/85 px-4 backdrop-blur lg:hidden">
            <NavDrawerTrigger hiddenFrom="lg" />
            <Logo />
          </header>
        </NavDrawer>
      )}
      <div className={topbar ? undefined : "lg:pl-64"}>{page}</div>
    </div>
  );
}
