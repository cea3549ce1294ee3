import { createFileRoute } from "@tanstack/react-router";
import { Bell, Building2, CreditCard, KeyRound, Palette, UserRound, Users, Webhook } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { PageHeader } from "@/client/components/layout/page-header";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/client/components/ui/tabs";
import { PlanRefusalLink } from "@/client/features/billing/plan-refusal";
import { focusLost } from "@/client/lib/focus-rescue";
import { ApiKeysTab } from "./-components/settings/api-keys-tab";
import { BillingTab } from "./-components/settings/billing-tab";
import { PreferencesTab } from "./-components/settings/preferences-tab";
import { ProfileTab } from "./-components/settings/profile-tab";
import { TeamTab } from "./-components/settings/team-tab";
import { ThemeTab } from "./-components/settings/theme-tab";
import type { SettingsBanner } from "./-components/settings/types";
import { WebhooksTab } from "./-components/settings/webhooks-tab";
import { WorkspaceTab } from "./-components/settings/workspace-tab";

const SETTINGS_TABS = [
  "profile",
  "theme",
  "preferences",
  "team",
  "workspace",
  "billing",
  "api-keys",
  "webhooks",
] as const;
type SettingsTab = (typeof SETTINGS_TABS)[number];

export const Route = createFileRoute("/_app/settings")({
  validateSearch: (search: Record<string, unknown>): { tab?: SettingsTab } => {
    const tab = SETTINGS_TABS.find((t) => t === search.tab);
    return tab ? { tab } : {};
  },
  component: SettingsPage,
});

function SettingsPage() {
  const { tab = "profile" } = Route.useSearch();
  const navigate = Route.useNavigate();
  const [banner, setBanner] = useState<SettingsBanner | null>(null);
  const bannerBox = useRef<HTMLDivElement>(null);
  // The banner sits above the tabs, while the button that set it may be a screen further down (Save
  // workspace on a phone): a banner out of sight is scrolled into view, so a refusal or "saved" is not
  // a press that seems to do nothing; and when the press left keyboard focus nowhere (its button was
  // disabled while saving), focus goes to the banner, which is read out.
  useEffect(() => {
    const box = bannerBox.current;
    if (!banner || !box) return;
    const r = box.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) box.scrollIntoView({ block: "start" });
    if (focusLost()) box.focus({ preventScroll: true });
  }, [banner]);

  return (
    <>
      <PageHeader
        title="Settings"
        description="Manage your profile, theme, preferences, team, workspace and billing."
      />
      {banner && (
        // scroll-mt-20: clear of the sticky 56 px header when scrolled to
        <div
          ref={bannerBox}
          tabIndex={-1}
          className="mb-6 scroll-mt-20 rounded-lg outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <AlertBanner variant={banner.variant} onDismiss={() => setBanner(null)}>
            {banner.message} <PlanRefusalLink refusal={banner.refusal} />
          </AlertBanner>
        </div>
      )}
      <Tabs
        value={tab}
        onValueChange={(value) => {
          setBanner(null);
          void navigate({ search: { tab: value as SettingsTab }, replace: true });
        }}
      >
        {/* on a phone the eight tabs wrap onto rows, so the selected one is never scrolled out of sight */}
        <TabsList className="h-auto flex-wrap *:h-9 sm:h-10 sm:flex-nowrap sm:*:h-full">
          <TabsTrigger value="profile">
            <UserRound aria-hidden />
            Profile
          </TabsTrigger>
          <TabsTrigger value="theme">
            <Palette aria-hidden />
            Theme
          </TabsTrigger>
          <TabsTrigger value="preferences">
            <Bell aria-hidden />
            Preferences
          </TabsTrigger>
          <TabsTrigger value="team">
            <Users aria-hidden />
            Team
          </TabsTrigger>
          <TabsTrigger value="workspace">
            <Building2 aria-hidden />
            Workspace
          </TabsTrigger>
          <TabsTrigger value="billing">
            <CreditCard aria-hidden />
            Billing
          </TabsTrigger>
          <TabsTrigger value="api-keys">
            <KeyRound aria-hidden />
            API keys
          </TabsTrigger>
          <TabsTrigger value="webhooks">
            <Webhook aria-hidden />
            Webhooks
          </TabsTrigger>
        </TabsList>
        <TabsContent value="profile">
          <ProfileTab onBanner={setBanner} />
        </TabsContent>
        <TabsContent value="theme">
          <ThemeTab onBanner={setBanner} />
        </TabsContent>
        <TabsContent value="preferences">
          <PreferencesTab onBanner={setBanner} />
        </TabsContent>
        <TabsContent value="team">
          <TeamTab onBanner={setBanner} />
        </TabsContent>
        <TabsContent value="workspace">
          <WorkspaceTab onBanner={setBanner} />
        </TabsContent>
        <TabsContent value="billing">
          <BillingTab />
        </TabsContent>
        <TabsContent value="api-keys">
          <ApiKeysTab onBanner={setBanner} />
        </TabsContent>
        <TabsContent value="webhooks">
          <WebhooksTab onBanner={setBanner} />
        </TabsContent>
      </Tabs>
    </>
  );
}
