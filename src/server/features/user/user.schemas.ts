import { z } from "zod";

/** The 24 theme ids of spec section 9; monochrome-elite is the default. */
export const THEME_IDS = [
  "monochrome-elite",
  "blue-ocean",
  "modern-blue",
  "dark-vibrant",
  "green-fresh",
  "orange-energy",
  "cyan-tech",
  "red-power",
  "purple-royal",
  "teal-medical",
  "amber-sunset",
  "rose-pink",
  "emerald-forest",
  "neon-glow",
  "ocean-deep",
  "mint-fresh",
  "lavender-dream",
  "crimson-dark",
  "gold-luxe",
  "midnight-blue",
  "lime-electric",
  "coral-reef",
  "indigo-night",
  "steel-gray",
] as const;

/**
 * PUT /api/user/profile; name and email required (spec section 5). `currentPassword` is needed only
 * when `email` changes (a stolen session must not be able to move the account to another address
 * and then reset its password); other fields change without it.
 */
export const profileInput = z.object({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(120, "Name is too long"),
  // in Unicode NFC, the form accounts' emails are stored in (lib/email)
  email: z
    .string({ error: "Email is required" })
    .trim()
    .normalize("NFC")
    .min(1, "Email is required")
    .max(254, "Email must be at most 254 characters")
    .pipe(z.email({ error: "Please enter a valid email address" })),
  businessName: z.string().trim().max(200, "Business name is too long").optional().nullable(),
  phone: z.string().trim().max(40, "Phone number is too long").optional().nullable(),
  currentPassword: z
    .string({ error: "Current password must be text" })
    .max(200, "Current password must be at most 200 characters")
    .optional()
    .nullable(),
});

/** PUT /api/user/password; 6 characters minimum when changing (spec section 5). */
export const passwordInput = z.object({
  currentPassword: z
    .string({ error: "Current password is required" })
    .min(1, "Current password is required")
    .max(200, "Current password must be at most 200 characters"),
  newPassword: z
    .string({ error: "New password is required" })
    .min(6, "Password must be at least 6 characters")
    .max(200, "Password is too long"),
});

export const preferencesInput = z
  .object({
    emailSignature: z.string().max(5000, "Email signature is too long"),
    emailNotifications: z.boolean(),
    campaignNotifications: z.boolean(),
    weeklyReports: z.boolean(),
    navLayout: z.enum(["sidebar", "topbar"], { error: "Navigation layout must be sidebar or topbar" }),
  })
  .partial()
  .strict();

/** PUT /api/user/settings: `{theme}` or `{preferences}` (or both). */
export const settingsInput = z
  .object({
    theme: z.enum(THEME_IDS, { error: "Unknown theme" }).optional(),
    preferences: preferencesInput.optional(),
  })
  .refine((v) => v.theme !== undefined || v.preferences !== undefined, {
    message: "Nothing to update: send a theme or preferences",
  });
