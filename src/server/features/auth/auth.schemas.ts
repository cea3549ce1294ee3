import { z } from "zod";

/** An account's email: trimmed and in Unicode NFC (lib/email: one mailbox, one account), case kept. */
const email = z
  .string({ error: "Email is required" })
  .trim()
  .normalize("NFC")
  .min(1, "Email is required")
  .max(254, "Email is too long")
  .pipe(z.email({ error: "Please enter a valid email address" }));

/** POST /api/auth/register (spec section 7); password rule from spec section 5. */
export const registerInput = z.object({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(120, "Name is too long"),
  business_name: z.string().trim().max(200, "Business name is too long").optional().nullable(),
  email,
  password: z
    .string({ error: "Password is required" })
    .min(8, "Password must be at least 8 characters")
    .max(200, "Password is too long"),
});

/** POST /api/auth/login; the email in Unicode NFC, as accounts' are stored (either form signs in). */
export const loginInput = z.object({
  email: z
    .string({ error: "Email is required" })
    .trim()
    .normalize("NFC")
    .min(1, "Email is required")
    .max(254, "Email must be at most 254 characters"),
  password: z
    .string({ error: "Password is required" })
    .min(1, "Password is required")
    .max(200, "Password must be at most 200 characters"),
});

export type RegisterInput = z.infer<typeof registerInput>;
export type LoginInput = z.infer<typeof loginInput>;

/** POST /api/auth/forgot-password (issue 11) */
export const forgotPasswordInput = z.object({ email });

const linkToken = z
  .string({ error: "This link is incomplete. Please use the link from the email." })
  .trim()
  .min(1, "This link is incomplete. Please use the link from the email.")
  .max(200, "This link is not valid");

/** POST /api/auth/reset-password (issue 11); the password rule is registration's (spec section 5). */
export const resetPasswordInput = z.object({
  token: linkToken,
  password: z
    .string({ error: "Password is required" })
    .min(8, "Password must be at least 8 characters")
    .max(200, "Password is too long"),
});

/** POST /api/auth/verify-email (issue 11) */
export const verifyEmailInput = z.object({ token: linkToken });

/** GET and POST /api/auth/recover-email: the token of the email-changed notice's recovery link. */
export const recoverEmailInput = z.object({ token: linkToken });

export type ForgotPasswordInput = z.infer<typeof forgotPasswordInput>;
export type ResetPasswordInput = z.infer<typeof resetPasswordInput>;
