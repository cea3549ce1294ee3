import { Link, useLocation } from "@tanstack/react-router";
import { LogOut } from "lucide-react";
import { useState } from "react";
import { Logo } from "@/client/components/logo";
import { WorkspaceSwitcher } from "@/client/features/workspaces/workspace-switcher";
import { cn } from "@/client/lib/utils";
import { activeTopNavLabel, TOP_NAV_ITEMS } from "./nav";
import { NavDrawer, NavDrawerTrigger } from "./nav-drawer";

const linkBase =
  "flex items-center gap-2 rounded-md px-2.5 py-2 text-sm font-medium whitespace-nowrap transition-colors outline-none focus-visible:ring-2 focus-visible:ring-ring";

/**
 * The spec's top-bar navigation variant (section 2; chosen in Settings > Preferences): Dashboard,
 * Studio, Library, Video Campaigns, Email Campaigns, Contacts, Business Search, Settings and Logout in
 * one row on wide screens; below 1280 px the same links open from a menu button in a drawer (which also
 * holds the workspace line). The active link carries aria-current="page".
 */
export function TopBar({ onLogout, loggingOut }: { onLogout: () => void; loggingOut: boolean }) {
  const [open, setOpen] = useState(false);
  const location = useLocation();
  const tab = (location.search as { tab?: string }).tab;
  const active = activeTopNavLabel(location.pathname, tab);

  const links = (vertical: boolean) =>
    TOP_NAV_ITEMS.map((item) => {
      const isActive = item.label === active;
      const Icon = item.icon;
      return (
        <li key={item.label}>
          <Link
            to={item.to}
            search={item.tab ? { tab: item.tab } : undefined}
            onClick={() => setOpen(false)}
            aria-current={isActive ? "page" : undefined}
            data-active={isActive || undefined}
            className={cn(
              linkBase,
              vertical
                ? isActive
                  ? "bg-sidebar-accent text-sidebar-accent-foreground"
                  : "text-sidebar-foreground hover:bg-sidebar-accent/60"
                : isActive
                  ? "bg-accent text-accent-foreground"
                  : "text-foreground hover:bg-accent/60",
            )}
          >
            {vertical && <Icon aria-hidden className="size-4 shrink-0" />}
            {item.label}
          </Link>
        </li>
      );
    });

  /** The Logout button, in the drawer and in the wide row (`className`: its colours and placement). */
  const logout = (className: string) => (
    <button
      type="button"
      onClick={onLogout}
      disabled={loggingOut}
      className={cn(linkBase, className, "disabled:opacity-60")}
    >
      <LogOut aria-hidden className="size-4" />
      {loggingOut ? "Logging out..." : "Logout"}
    </button>
  );

  const drawer = (
    <>
      <div className="flex h-14 items-center border-b border-sidebar-border px-5">
        <Logo markClassName="bg-sidebar-primary text-sidebar-primary-foreground" />
      </div>
      <nav aria-label="Main navigation" className="flex-1 overflow-y-auto px-3 py-4">
        <ul className="grid gap-0.5">{links(true)}</ul>
      </nav>
      <div className="border-t border-sidebar-border p-3">
        <WorkspaceSwitcher />
        {logout("w-full text-sidebar-foreground hover:bg-sidebar-accent/60")}
      </div>
    </>
  );

  return (
    <NavDrawer open={open} onOpenChange={setOpen} hiddenFrom="xl" drawer={drawer}>
      <header className="sticky top-0 z-20 border-b border-border bg-background" data-testid="top-bar">
        <div className="mx-auto flex h-14 max-w-screen-2xl items-center gap-3 px-4 sm:px-6">
          <NavDrawerTrigger hiddenFrom="xl" />
          <Link
            to="/dashboard"
            aria-label="Pitchwise home"
            className="shrink-0 rounded-md focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
          >
            <Logo />
          </Link>
          <nav aria-label="Main navigation" className="ml-2 hidden min-w-0 flex-1 xl:block">
            <ul className="flex items-center gap-0.5">{links(false)}</ul>
          </nav>
          {logout("ml-auto hidden text-foreground hover:bg-accent/60 xl:flex")}
        </div>
      </header>
    </NavDrawer>
  );
}
