import { useMutation } from "@tanstack/react-query";
import { Controller, useForm } from "react-hook-form";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Label } from "@/client/components/ui/label";
import { Switch } from "@/client/components/ui/switch";
import { Textarea } from "@/client/components/ui/textarea";
import { useAuth, useCurrentUser } from "@/client/features/auth/auth-context";
import { DEFAULT_PREFERENCES, type UserPreferences } from "@/client/features/auth/types";
import { errorMessage } from "@/client/lib/errors";
import { useTRPC } from "@/client/trpc";
import type { ShowBanner } from "./types";

const toggles: {
  name: Exclude<keyof UserPreferences, "emailSignature" | "navLayout">;
  label: string;
  description: string;
}[] = [
  {
    name: "emailNotifications",
    label: "Email Notifications",
    description: "Account updates and important notices by email.",
  },
  {
    name: "campaignNotifications",
    label: "Campaign Notifications",
    description: "Hear when a campaign finishes sending or needs attention.",
  },
  { name: "weeklyReports", label: "Weekly Reports", description: "A summary of your outreach every Monday." },
];

const layouts: { value: UserPreferences["navLayout"]; label: string; description: string }[] = [
  {
    value: "sidebar",
    label: "Sidebar",
    description: "Sections down the left: campaigns, contacts, settings.",
  },
  {
    value: "topbar",
    label: "Top bar",
    description: "One row across the top: Dashboard, Studio, Library, campaigns, contacts, settings.",
  },
];

/**
 * Preferences tab: navigation layout (sidebar or top bar), email signature and three notification
 * toggles, saved together with `user.updateSettings {preferences}` (tRPC).
 */
export function PreferencesTab({ onBanner }: { onBanner: ShowBanner }) {
  const user = useCurrentUser();
  const { setUser } = useAuth();
  const trpc = useTRPC();
  const save = useMutation(trpc.user.updateSettings.mutationOptions());
  const form = useForm<UserPreferences>({
    defaultValues: { ...DEFAULT_PREFERENCES, ...(user.preferences ?? {}) },
  });
  const { isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (preferences) => {
    onBanner(null);
    try {
      const res = await save.mutateAsync({ preferences });
      setUser(res.user);
      form.reset(preferences);
      onBanner({ variant: "success", message: "Preferences updated successfully!" });
    } catch (error) {
      onBanner({ variant: "error", message: errorMessage(error, "Failed to update preferences") });
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Preferences</CardTitle>
        <CardDescription>
          How the app is laid out, your email signature and which notifications you receive.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} className="grid gap-6">
          <fieldset className="grid gap-2">
            <legend className="mb-2 text-sm font-medium">Navigation layout</legend>
            <div className="grid gap-2 sm:grid-cols-2">
              {layouts.map((layout) => (
                <label
                  key={layout.value}
                  className="flex cursor-pointer items-start gap-3 rounded-lg border border-border p-3 has-[:checked]:border-primary has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring"
                >
                  <input
                    type="radio"
                    value={layout.value}
                    className="mt-1 accent-primary"
                    {...form.register("navLayout")}
                  />
                  <span className="grid gap-0.5">
                    <span className="text-sm font-medium">{layout.label}</span>
                    <span className="text-sm text-muted-foreground">{layout.description}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="grid gap-2">
            <Label htmlFor="email-signature">Email Signature</Label>
            <Textarea
              id="email-signature"
              rows={4}
              placeholder={"Best regards,\nJane Smith\nAcme Roofing"}
              {...form.register("emailSignature")}
            />
            <p className="text-xs text-muted-foreground">Added to the end of the emails you send.</p>
          </div>
          <div className="divide-y divide-border rounded-lg border border-border">
            {toggles.map((toggle) => (
              <div key={toggle.name} className="flex items-center justify-between gap-4 p-4">
                <div className="grid gap-1">
                  <Label htmlFor={`pref-${toggle.name}`}>{toggle.label}</Label>
                  <p className="text-sm text-muted-foreground">{toggle.description}</p>
                </div>
                <Controller
                  control={form.control}
                  name={toggle.name}
                  render={({ field }) => (
                    <Switch
                      id={`pref-${toggle.name}`}
                      checked={field.value}
                      onCheckedChange={field.onChange}
                      onBlur={field.onBlur}
                      ref={field.ref}
                    />
                  )}
                />
              </div>
            ))}
          </div>
          <div>
            <Button type="submit" loading={isSubmitting}>
              {isSubmitting ? "Saving..." : "Save Preferences"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
