import { z } from "zod";
import { CAMPAIGN_CHANNELS, RECIPIENT_STATUSES } from "../../db/schema";

const text = (max: number) => z.string().max(max);

/** A recipient given inline (CSV row or a contact object from the builder). */
export const recipientInput = z.object({
  id: z.coerce.number().int().positive().optional(),
  name: text(300).optional().nullable(),
  first_name: text(200).optional().nullable(),
  last_name: text(200).optional().nullable(),
  email: text(320).optional().nullable(),
  phone: text(64).optional().nullable(),
  mobile: text(64).optional().nullable(),
  company: text(300).optional().nullable(),
});
export type RecipientInput = z.infer<typeof recipientInput>;

export const campaignContentInput = z.object({
  subject: text(500).optional(),
  body: text(100_000).optional(),
  message: text(1600).optional(),
  script: text(5000).optional(),
  audioUrl: z.string().url().max(2000).optional().nullable(),
  machineDetection: z.boolean().optional(),
  landingUrl: z.string().url().max(2000).optional(),
  videoTitle: text(300).optional(),
  thumbnailUrl: z.string().url().max(2000).optional().nullable(),
});

/** tRPC / service input for creating and launching any campaign. */
export const createCampaignInput = z.object({
  name: z.string().trim().min(1, "Please enter a campaign name").max(200),
  channel: z.enum(CAMPAIGN_CHANNELS),
  content: campaignContentInput,
  recipients: z.object({
    csv: z.array(recipientInput).max(100_000).optional(),
    contactIds: z.array(z.number().int().positive()).max(100_000).optional(),
    segmentId: z.number().int().positive().optional(),
  }),
  /** launch at this time (ISO string or Date); past or absent = now */
  scheduledAt: z.coerce.date().optional().nullable(),
  /** include contacts who have not opted in to SMS/calls (the user confirmed consent); opt-outs are always skipped */
  includeNotOptedIn: z.boolean().optional(),
});
export type CreateCampaignInput = z.input<typeof createCampaignInput>;

/** POST /api/campaigns/email/test (spec section 7). */
export const emailTestInput = z.object({
  subject: z.string().max(500).optional().default(""),
  body: z.string().max(100_000).optional().default(""),
  testEmail: z.string().max(320).optional(),
});

/** POST /api/campaigns/email/launch (spec section 7). */
export const emailLaunchInput = z.object({
  campaignName: z.string().max(200).optional().default(""),
  subject: z.string().max(500).optional().default(""),
  body: z.string().max(100_000).optional().default(""),
  contacts: z.array(recipientInput).max(100_000).optional().default([]),
  scheduledAt: z.coerce.date().optional().nullable(),
});

/** POST /api/campaigns/sms/launch (spec section 7). */
export const smsLaunchInput = z.object({
  campaignName: z.string().max(200).optional().default(""),
  message: z.string().max(1600).optional().default(""),
  contacts: z.array(recipientInput.passthrough()).max(100_000).optional().default([]),
  includeNotOptedIn: z.boolean().optional(),
  scheduledAt: z.coerce.date().optional().nullable(),
});

export const campaignIdInput = z.object({ id: z.coerce.number().int().positive() });

export const recipientsQuery = z.object({
  id: z.coerce.number().int().positive(),
  status: z.enum(RECIPIENT_STATUSES).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
