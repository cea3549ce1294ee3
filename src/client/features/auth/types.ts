import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

type AuthOut = inferRouterOutputs<AppRouter>["auth"];
type AuthIn = inferRouterInputs<AppRouter>["auth"];

/**
 * The signed-in user as the server returns it from login, register, `auth.me` and the settings calls
 * (spec section 3: User; `plan` and `subscription_status` are the active workspace's).
 */
export type User = AuthOut["me"]["user"];

/** User preferences (spec section 3), every field present (stored ones may lack `navLayout`). */
export type UserPreferences = Required<User["preferences"]>;

export type NavLayout = UserPreferences["navLayout"];

/** Defaults from the spec (section 3): notifications on, weekly reports off; the sidebar layout. */
export const DEFAULT_PREFERENCES: UserPreferences = {
  emailSignature: "",
  emailNotifications: true,
  campaignNotifications: true,
  weeklyReports: false,
  navLayout: "sidebar",
};

export type AuthStatus = "loading" | "authenticated" | "unauthenticated";

/** What `auth.register` takes. */
export type RegisterInput = AuthIn["register"];

/** What `auth.login` takes. */
export type LoginInput = AuthIn["login"];
