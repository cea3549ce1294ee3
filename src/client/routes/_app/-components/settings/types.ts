import type { AlertBannerVariant } from "@/client/components/ui/alert-banner";
import type { PlanRefusal } from "@/client/features/billing/plan-refusal";

/** The settings page's single result banner (spec section 2: success, error or warning). */
export interface SettingsBanner {
  variant: Extract<AlertBannerVariant, "success" | "error" | "warning">;
  message: string;
  /** a plan refusal's decision (tRPC `data.planRefusal`): the banner adds its PlanRefusalLink */
  refusal?: PlanRefusal | null;
}

/** Each settings tab reports outcomes through this; null clears the banner. */
export type ShowBanner = (banner: SettingsBanner | null) => void;
