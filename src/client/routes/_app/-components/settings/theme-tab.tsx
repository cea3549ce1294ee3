import { useMutation } from "@tanstack/react-query";
import { Check } from "lucide-react";
import { useRef, useState } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { useAuth } from "@/client/features/auth/auth-context";
import { cn } from "@/client/lib/utils";
import { applyTheme, getActiveTheme, THEMES, type ThemeId } from "@/client/themes";
import { useTRPC } from "@/client/trpc";
import type { ShowBanner } from "./types";

/**
 * Theme tab: the 24 themes as live preview cards. A click applies the theme at once (data-theme on
 * <html>, localStorage), then saves it with `user.updateSettings {theme}` (tRPC).
 */
export function ThemeTab({ onBanner }: { onBanner: ShowBanner }) {
  const { setUser } = useAuth();
  const [active, setActive] = useState<ThemeId>(getActiveTheme);
  const latest = useRef(0);
  const trpc = useTRPC();
  const save = useMutation(trpc.user.updateSettings.mutationOptions());

  const choose = async (id: ThemeId) => {
    applyTheme(id);
    setActive(id);
    onBanner({ variant: "success", message: "Theme applied! Saving to your profile..." });
    const request = ++latest.current;
    try {
      const res = await save.mutateAsync({ theme: id });
      if (request !== latest.current) return; // a newer choice is being saved
      setUser(res.user);
      onBanner({ variant: "success", message: "Theme saved to your profile." });
    } catch {
      if (request !== latest.current) return;
      onBanner({ variant: "warning", message: "Theme applied locally but failed to save to server" });
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Theme</CardTitle>
        <CardDescription>
          Pick a look for your workspace. It applies instantly and follows you to other devices.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4">
          {THEMES.map((theme) => {
            const selected = theme.id === active;
            return (
              <li key={theme.id}>
                <button
                  type="button"
                  onClick={() => void choose(theme.id)}
                  aria-pressed={selected}
                  data-testid={`theme-${theme.id}`}
                  className={cn(
                    "group w-full rounded-xl border-2 p-2 text-left transition-[translate,border-color,box-shadow] outline-none hover:-translate-y-0.5 hover:shadow-md focus-visible:ring-2 focus-visible:ring-ring",
                    selected ? "border-primary shadow-md" : "border-border",
                  )}
                >
                  <ThemePreview id={theme.id} />
                  <span className="mt-2 flex items-center justify-between gap-2 px-1 pb-0.5">
                    <span className="min-w-0">
                      <span className="block truncate text-sm font-medium">{theme.name}</span>
                      <span className="block text-xs text-muted-foreground capitalize">{theme.mode}</span>
                    </span>
                    {selected && (
                      <span className="flex size-5 shrink-0 items-center justify-center rounded-full bg-primary text-primary-foreground">
                        <Check className="size-3" aria-hidden />
                      </span>
                    )}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}

/** A miniature app window painted with the theme's own variables (data-theme on the preview element). */
function ThemePreview({ id }: { id: ThemeId }) {
  return (
    <span
      data-theme={id}
      aria-hidden
      className="flex h-20 overflow-hidden rounded-lg border border-border bg-background"
    >
      <span className="flex w-1/4 flex-col gap-1 bg-sidebar p-1.5">
        <span className="h-1.5 w-3/4 rounded-full bg-sidebar-primary" />
        <span className="h-1 w-full rounded-full bg-sidebar-accent" />
        <span className="h-1 w-2/3 rounded-full bg-sidebar-accent" />
        <span className="h-1 w-3/4 rounded-full bg-sidebar-accent" />
      </span>
      <span className="flex flex-1 flex-col gap-1.5 p-2">
        <span className="h-1.5 w-1/2 rounded-full bg-foreground/80" />
        <span className="flex flex-1 gap-1.5">
          <span className="flex-1 rounded-md border border-border bg-card p-1">
            <span className="block h-1 w-2/3 rounded-full bg-muted-foreground/50" />
          </span>
          <span className="flex-1 rounded-md border border-border bg-card p-1">
            <span className="block h-1 w-1/2 rounded-full bg-muted-foreground/50" />
          </span>
        </span>
        <span className="h-3 w-1/3 rounded-md bg-primary" />
      </span>
    </span>
  );
}
