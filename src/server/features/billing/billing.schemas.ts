import { z } from "zod";

/** `POST /api/payment/create-checkout-session` (spec section 7): the plan's price id and lowercase name. */
export const checkoutInput = z.strictObject({
  priceId: z
    .string({ error: "priceId is required" })
    .trim()
    .min(1, "priceId is required")
    .max(200, "priceId must be at most 200 characters"),
  planName: z
    .string({ error: "planName is required" })
    .trim()
    .min(1, "planName is required")
    .max(50, "planName must be at most 50 characters"),
});
export type CheckoutInputBody = z.infer<typeof checkoutInput>;

/**
 * tRPC `billing.checkoutResult`: the checkout session id the payments vendor put in the success URL
 * (`/pricing?success=true&session_id=...`; Stripe `cs_...`, the local checkout `cs_local_...`).
 */
export const checkoutResultInput = z.strictObject({
  session_id: z
    .string({ error: "session_id is required" })
    .trim()
    .regex(/^cs_[A-Za-z0-9_-]{1,250}$/, "session_id is not a checkout session id"),
});

/** The local checkout form: the card number (spaces allowed). */
export const localCheckoutForm = z.object({
  card_number: z.string({ error: "Enter a card number" }).max(40, "That card number is too long"),
});

/** The local portal's plan change form. */
export const localPlanChangeForm = z.object({
  plan: z.enum(["professional", "business", "enterprise"], {
    error: "Choose Professional, Business or Enterprise",
  }),
});
