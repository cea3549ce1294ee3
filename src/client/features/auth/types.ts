/** User preferences (spec section 3). */
export interface UserPreferences {
  emailSignature: string;
  emailNotifications: boolean;
  campaignNotifications: boolean;
  weeklyReports: boolean;
  /** app navigation: sectioned sidebar (default) or the spec's top bar */
  navLayout: NavLayout;
}

export type NavLayout = "sidebar" | "topbar";

/** Defaults from the spec (section 3): notifications on, weekly reports off. */
export const DEFAULT_PREFERENCES: UserPreferences = {
  emailSignature: "",
  emailNotifications: true,
  campaignNotifications: true,
  weeklyReports: false,
  navLayout: "sidebar",
};

/** The signed-in user as the server returns it from login, register, /api/auth/me and the settings calls. */
export interface User {
  id: string;
  name: string;
  email: string;
  business_name: string | null;
  phone: string | null;
  /** free | professional | business | enterprise; shown as "Starter" when missing or free */
  plan: string | null;
  /** shown as "Trial" when missing */
  subscription_status: string | null;
  /** premium or pro unlock the premium editor */
  subscription_tier: string | null;
  theme: string | null;
  preferences: Partial<UserPreferences> | null;
  created_at: string | null;
  /** false until the address is confirmed through the emailed link (issue 11); missing = verified */
  email_verified?: boolean;
}

export type AuthStatus = "loading" | "authenticated" | "unauthenticated";

export interface RegisterInput {
  name: string;
  business_name: string;
  email: string;
  password: string;
}

export interface LoginInput {
  email: string;
  password: string;
}
