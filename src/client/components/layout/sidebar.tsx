import { Link, useLocation } from "@tanstack/react-router";
import { LogOut } from "lucide-react";
import { Logo } from "@/client/components/logo";
import type { User } from "@/client/features/auth/types";
import { WorkspaceSwitcher } from "@/client/features/workspaces/workspace-switcher";
import { planLabel } from "@/client/lib/format";
import { cn } from "@/client/lib/utils";
import { activeNavTarget, NAV_SECTIONS } from "./nav";

/** Initials for the avatar circle: "Ada Lovelace" -> "AL", else the email's first letter. */
function initials(user: User): string {
  const source = user.name?.trim() || user.email;
  const parts = source.split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? `${parts[0][0]}${parts[parts.length - 1][0]}` : source.slice(0, 1);
  return letters.toUpperCase();
}

/**
 * Sidebar contents: logo, the four nav sections and the user footer (name or email, plan, Logout).
 * Rendered in the fixed desktop column and inside the mobile drawer. `onNavigate` runs on any link click.
 */
export function SidebarContent({
  user,
  onLogout,
  loggingOut,
  onNavigate,
}: {
  user: User;
  onLogout: () => void;
  loggingOut: boolean;
  onNavigate?: () => void;
}) {
  const pathname = useLocation({ select: (l) => l.pathname });
  const active = activeNavTarget(pathname);

  return (
    <div className="flex h-full flex-col bg-sidebar text-sidebar-foreground [--ring:var(--sidebar-foreground)]">
      <div className="flex h-16 shrink-0 items-center border-b border-sidebar-border px-5">
        <Link
          to="/dashboard"
          onClick={onNavigate}
          aria-label="Pitchwise home"
          className="rounded-md text-sidebar-accent-foreground focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
        >
          <Logo markClassName="bg-sidebar-primary text-sidebar-primary-foreground" />
        </Link>
      </div>

      <nav aria-label="Main navigation" className="flex-1 overflow-y-auto px-3 py-4">
        {NAV_SECTIONS.map((section) => (
          <div key={section.title} className="mb-5 last:mb-0">
            <h2 className="mb-1.5 px-3 text-[11px] font-semibold tracking-wider text-sidebar-muted-foreground uppercase">
              {section.title}
            </h2>
            <ul className="grid gap-0.5">
              {section.items.map((item) => {
                const isActive = item.to === active;
                const Icon = item.icon;
                return (
                  <li key={item.to}>
                    <Link
                      to={item.to}
                      onClick={onNavigate}
                      activeOptions={{ exact: true, includeSearch: false }}
                      aria-current={isActive ? "page" : undefined}
                      data-active={isActive || undefined}
                      className={cn(
                        "group relative flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium transition-colors outline-none focus-visible:ring-2 focus-visible:ring-ring",
                        isActive
                          ? "bg-sidebar-accent text-sidebar-accent-foreground"
                          : "text-sidebar-foreground/85 hover:bg-sidebar-accent/60 hover:text-sidebar-accent-foreground",
                      )}
                    >
                      {isActive && (
                        <span
                          aria-hidden
                          className="absolute inset-y-1.5 left-0 w-1 rounded-r-full bg-sidebar-primary"
                        />
                      )}
                      <Icon
                        aria-hidden
                        className={cn(
                          "size-4 shrink-0 transition-colors",
                          isActive
                            ? "text-sidebar-primary"
                            : "text-sidebar-muted-foreground group-hover:text-current",
                        )}
                      />
                      {item.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
      </nav>

      <div className="shrink-0 border-t border-sidebar-border p-3">
        <WorkspaceSwitcher />
        <div className="flex items-center gap-3 rounded-lg px-2 py-2">
          <span
            aria-hidden
            className="flex size-9 shrink-0 items-center justify-center rounded-full bg-sidebar-primary text-sm font-semibold text-sidebar-primary-foreground"
          >
            {initials(user)}
          </span>
          <div className="min-w-0 flex-1">
            <p
              className="truncate text-sm font-medium text-sidebar-accent-foreground"
              data-testid="sidebar-user"
            >
              {user.name?.trim() || user.email}
            </p>
            <p className="truncate text-xs text-sidebar-muted-foreground" data-testid="sidebar-plan">
              {planLabel(user.plan)} plan
            </p>
          </div>
        </div>
        <button
          type="button"
          onClick={onLogout}
          disabled={loggingOut}
          className="mt-1 flex w-full items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium text-sidebar-foreground/85 transition-colors outline-none hover:bg-sidebar-accent/60 hover:text-sidebar-accent-foreground focus-visible:ring-2 focus-visible:ring-ring disabled:opacity-60"
        >
          <LogOut aria-hidden className="size-4 text-sidebar-muted-foreground" />
          {loggingOut ? "Logging out..." : "Logout"}
        </button>
      </div>
    </div>
  );
}
