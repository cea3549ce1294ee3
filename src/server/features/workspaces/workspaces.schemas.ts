import { z } from "zod";
import { isPhoneCountry } from "../../lib/phone";

// Every body here is closed (z.strictObject): an unknown or misspelt key ({"roles": "admin"},
// {"nmae": "x"}) is a 400 naming it ("This field is not accepted here: roles"), never a request
// carried out without it (an invitation sent as a member, a rename that changes nothing).

/** POST /api/workspaces/current/invites; the email in Unicode NFC, as accounts' (lib/email). */
export const inviteInput = z.strictObject({
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
export const roleInput = z.strictObject({
  role: z.enum(["admin", "member"], {
    error: "Role must be admin or member (use transfer ownership to change the owner)",
  }),
});

/** POST /api/workspaces/current/transfer */
export const transferInput = z.strictObject({
  user_id: z.uuid({ error: "Choose a member to transfer ownership to" }),
});

/**
 * A character a person can see: a name of only spaces, zero-width or other invisible characters
 * (U+200B, U+2060, U+FEFF, control characters) shows as nothing and cannot be typed back (the
 * deletion asks for the name).
 */
const VISIBLE = /[^\s\p{Cc}\p{Cf}\p{Z}]/u;

/** PATCH /api/workspaces/current; the name in Unicode NFC (as typed back to confirm a deletion). */
export const workspaceSettingsInput = z.strictObject({
  name: z
    .string()
    .trim()
    .normalize("NFC")
    .min(1, { error: "Workspace name is required" })
    .refine((n) => VISIBLE.test(n), { error: "Workspace name must contain a letter, digit or symbol" })
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

export const workspaceIdInput = z.strictObject({ workspaceId: z.string().max(64) });
export const tokenInput = z.strictObject({ token: z.string().max(128) });
export const userIdInput = z.strictObject({ userId: z.string().max(64) });
export const inviteIdInput = z.strictObject({ inviteId: z.string().max(64) });
