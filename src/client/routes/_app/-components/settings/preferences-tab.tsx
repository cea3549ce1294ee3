import { Controller, useForm } from "react-hook-form";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Label } from "@/client/components/ui/label";
import { Switch } from "@/client/components/ui/switch";
import { Textarea } from "@/client/components/ui/textarea";
import { useAuth, useCurrentUser } from "@/client/features/auth/auth-context";
import { DEFAULT_PREFERENCES, type User, type UserPreferences } from "@/client/features/auth/types";
import { api, errorMessage } from "@/client/lib/api";
import type { ShowBanner } from "./types";

const toggles: {
  name: Exclude<keyof UserPreferences, "emailSignature">;
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

/** Preferences tab: email signature and three notification toggles (PUT /api/user/settings {preferences}). */
export function PreferencesTab({ onBanner }: { onBanner: ShowBanner }) {
  const user = useCurrentUser();
  const { setUser } = useAuth();
  const form = useForm<UserPreferences>({
    defaultValues: { ...DEFAULT_PREFERENCES, ...(user.preferences ?? {}) },
  });
  const { isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (preferences) => {
    onBanner(null);
    try {
      const res = await api.put<{ user?: User }>(
        "/api/user/settings",
        { preferences },
        { fallbackError: "Failed to update preferences" },
      );
      if (res.user) setUser(res.user);
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
        <CardDescription>Your email signature and which notifications you receive.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} className="grid gap-6">
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
