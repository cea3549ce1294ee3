import { z } from "zod";
import { isPhoneCountry } from "../../lib/phone";

/** POST /api/workspaces/current/invites; the email in Unicode NFC, as accounts' (lib/email). */
export const inviteInput = z.object({
  email: z
    .string({ error: "Please enter a valid email address" })
    .trim()
    .normalize("NFC")
    .max(254, { error: "Email is too long" })
    .pipe(z.email({ error: "Please enter a valid email address" })),
  role: z.enum(["admin", "member"], { error: "Role must be admin or member" }).default("member"),
});
export type InviteInput = z.infer<typeof inviteInput>;

/** PATCH /api/workspaces/current/members/{userId} */
export const roleInput = z.object({
  role: z.enum(["admin", "member"], {
    error: "Role must be admin or member (use transfer ownership to change the owner)",
  }),
});

/** POST /api/workspaces/current/transfer */
export const transferInput = z.object({
  user_id: z.uuid({ error: "Choose a member to transfer ownership to" }),
});

/** PATCH /api/workspaces/current */
export const workspaceSettingsInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, { error: "Workspace name is required" })
    .max(80, { error: "Workspace name must be at most 80 characters" })
    .optional(),
  logo_url: z
    .union([z.literal(""), z.url({ protocol: /^https?$/, error: "Logo must be an http(s) URL" }).max(2000)])
    .optional(),
  brand_color: z
    .union([
      z.literal(""),
      z.string().regex(/^#[0-9a-fA-F]{6}$/, { error: "Brand colour must look like #1a2b3c" }),
    ])
    .optional(),
  sender_name: z.string().trim().max(80, { error: "Sender name must be at most 80 characters" }).optional(),
  hide_branding: z.boolean({ error: "Hide branding must be true or false" }).optional(),
  /** default country for phone numbers typed without +country (lib/phone.ts) */
  phone_country: z
    .string({ error: "Phone country must be a two-letter country code such as US or GB" })
    .trim()
    .toUpperCase()
    .refine(isPhoneCountry, { error: "Phone country must be a two-letter country code such as US or GB" })
    .optional(),
});
export type WorkspaceSettingsInput = z.infer<typeof workspaceSettingsInput>;

export const workspaceIdInput = z.object({ workspaceId: z.string().max(64) });
export const tokenInput = z.object({ token: z.string().max(128) });
export const userIdInput = z.object({ userId: z.string().max(64) });
export const inviteIdInput = z.object({ inviteId: z.string().max(64) });
