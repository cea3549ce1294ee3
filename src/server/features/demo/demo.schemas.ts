import { z } from "zod";

/** POST /api/demo/send; messages from spec section 5 (Demo). */
export const demoInput = z
  .object({
    name: z
      .string({ error: "Please enter your name" })
      .trim()
      .min(1, "Please enter your name")
      .max(120, "Name is too long"),
    phone: z.string().trim().max(40, "Phone number is too long").optional().nullable(),
    email: z
      .string()
      .trim()
      .normalize("NFC")
      .max(254)
      .optional()
      .nullable()
      .refine((v) => !v || z.email().safeParse(v).success, "Please enter a valid email address"),
  })
  .refine((v) => !!(v.phone || v.email), { message: "Please provide at least a phone number or email" });
