import type { AlertBannerVariant } from "@/client/components/ui/alert-banner";

/** The settings page's single result banner (spec section 2: success, error or warning). */
export interface SettingsBanner {
  variant: Extract<AlertBannerVariant, "success" | "error" | "warning">;
  message: string;
}

/** Each settings tab reports outcomes through this; null clears the banner. */
export type ShowBanner = (banner: SettingsBanner | null) => void;
