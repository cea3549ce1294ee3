import { Link, useLocation } from "@tanstack/react-router";
import { ChevronRight } from "lucide-react";
import { cn } from "@/client/lib/utils";
import { breadcrumbsFor } from "./nav";

/**
 * Breadcrumb trail derived from the current path (see breadcrumbsFor in ./nav). Each link is a 24 px
 * line (leading-6) whatever the text size, so it is a target a finger can hit (WCAG 2.2 2.5.8 Target
 * Size, Minimum: the 20 px line of text-sm was under 24 px).
 */
export function Breadcrumbs({ className }: { className?: string }) {
  const pathname = useLocation({ select: (l) => l.pathname });
  const crumbs = breadcrumbsFor(pathname);
  return (
    <nav aria-label="Breadcrumb" className={cn("min-w-0", className)}>
      <ol className="flex min-w-0 items-center gap-1.5 text-sm text-muted-foreground">
        {crumbs.map((crumb, i) => {
          const last = i === crumbs.length - 1;
          return (
            <li key={`${crumb.label}-${i}`} className="flex min-w-0 items-center gap-1.5">
              {i > 0 && <ChevronRight className="size-3.5 shrink-0 opacity-60" aria-hidden />}
              {crumb.to ? (
                <Link
                  to={crumb.to}
                  activeOptions={{ exact: true, includeSearch: false }}
                  className="block truncate rounded-sm leading-6 transition-colors hover:text-foreground"
                >
                  {crumb.label}
                </Link>
              ) : (
                <span
                  className={cn("truncate", last && "font-medium text-foreground")}
                  aria-current={last ? "page" : undefined}
                >
                  {crumb.label}
                </span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
