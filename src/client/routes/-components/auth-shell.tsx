import { Link } from "@tanstack/react-router";
import { CheckCircle2 } from "lucide-react";
import type { ReactNode } from "react";
import { Logo } from "@/client/components/logo";

const points = [
  "AI avatar videos personalised for every prospect",
  "Email, SMS, AI calls and voicemail from one list",
  "Lead search with 131 filters and a contact map",
];

/** Two-column frame for /login and /register: brand panel on large screens, the form card beside it. */
export function AuthShell({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <div className="grid min-h-dvh bg-background lg:grid-cols-2">
      <aside className="relative hidden overflow-hidden bg-sidebar p-12 text-sidebar-foreground lg:flex lg:flex-col lg:justify-between">
        <div
          aria-hidden
          className="pointer-events-none absolute inset-0 opacity-60 [background:radial-gradient(40rem_24rem_at_0%_0%,color-mix(in_oklab,var(--sidebar-primary)_22%,transparent),transparent_70%),radial-gradient(30rem_20rem_at_100%_100%,color-mix(in_oklab,var(--sidebar-primary)_14%,transparent),transparent_70%)]"
        />
        <Link to="/" className="relative w-fit text-sidebar-accent-foreground">
          <Logo markClassName="bg-sidebar-primary text-sidebar-primary-foreground" />
        </Link>
        <div className="relative max-w-md">
          <h2 className="text-3xl font-semibold tracking-tight text-sidebar-accent-foreground">
            Outreach that feels personal, at any scale.
          </h2>
          <ul className="mt-8 grid gap-4">
            {points.map((p) => (
              <li key={p} className="flex items-start gap-3 text-sidebar-foreground">
                <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-sidebar-primary" aria-hidden />
                {p}
              </li>
            ))}
          </ul>
        </div>
        <p className="relative text-sm text-sidebar-muted-foreground">
          &copy; {new Date().getFullYear()} Pitchwise
        </p>
      </aside>
      <main className="flex items-center justify-center px-4 py-12 sm:px-6">
        <div className="w-full max-w-sm">
          <Link to="/" className="mb-8 inline-block lg:hidden">
            <Logo />
          </Link>
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          <p className="mt-1.5 text-sm text-muted-foreground">{subtitle}</p>
          <div className="mt-8">{children}</div>
          {footer && <p className="mt-6 text-center text-sm text-muted-foreground">{footer}</p>}
        </div>
      </main>
    </div>
  );
}
