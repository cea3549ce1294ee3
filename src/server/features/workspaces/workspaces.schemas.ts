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

/** At most this many characters in a workspace's postal address (workspaceSettingsInput `postal_address`). */
export const POSTAL_ADDRESS_MAX = 300;

/**
 * A character a postal address may not hold: a control character other than a line break (NUL, tab,
 * escape, ...) or a bidirectional override (U+202A-U+202E, U+2066-U+2069, which make the text read in
 * another order than it is stored).
 */
const ADDRESS_REFUSED = /(?!\n)[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/**
 * The business's physical postal address, shown in the footer of every campaign email (CAN-SPAM,
 * 15 U.S.C. 7704(a)(5)(A)(iii)): free text, several lines allowed ("12 Baker St\nSpringfield, IL
 * 62701"). Line breaks (CR LF, CR, U+2028, U+2029) become LF, then the text is trimmed and put in
 * Unicode NFC; at most POSTAL_ADDRESS_MAX characters. "" or null clears it.
 */
const postalAddress = z
  .string({ error: "Postal address must be text" })
  .transform((a) =>
    a
      .replace(/\r\n?|[\u2028\u2029]/g, "\n")
      .trim()
      .normalize("NFC"),
  )
  .refine((a) => !ADDRESS_REFUSED.test(a), {
    error: "Postal address cannot contain tabs or other control characters; use spaces and line breaks",
  })
  .refine((a) => a.length <= POSTAL_ADDRESS_MAX, {
    error: `Postal address must be at most ${POSTAL_ADDRESS_MAX} characters`,
  });

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
  /** the postal address campaign emails carry in their footer (see postalAddress); "" or null clears it */
  postal_address: postalAddress.nullable().optional(),
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
