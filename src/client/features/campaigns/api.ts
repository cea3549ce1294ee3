import { api } from "@/client/lib/api";

export type CampaignChannel = "email" | "sms" | "voice" | "voicemail" | "video_email" | "video_sms";
export type CampaignStatus =
  | "draft"
  | "scheduled"
  | "sending"
  | "paused"
  | "completed"
  | "cancelled"
  | "failed";

/** A campaign in lists and reports (server: CampaignSummary). Dates arrive as ISO strings over REST. */
export interface CampaignSummary {
  id: number;
  name: string;
  channel: CampaignChannel;
  status: CampaignStatus;
  recipientCount: number;
  segmentsPerMessage: number;
  scheduledAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  createdAt: string;
  counts: Record<string, number>;
  progress: number;
}

export interface CampaignReport {
  campaign: CampaignSummary;
  content: {
    subject?: string;
    body?: string;
    message?: string;
    script?: string;
    audioUrl?: string | null;
    links?: string[];
  };
  totalSegments: number;
  timeline: {
    t: string;
    sent: number;
    delivered: number;
    opened: number;
    clicked: number;
    replied: number;
    failed: number;
  }[];
  bucket: "minute" | "hour";
}

export interface RecipientRow {
  id: number;
  contactId: number;
  name: string;
  address: string;
  status: string;
  reason: string | null;
  attempts: number;
  segments: number;
  sentAt: string | null;
  notBefore: string | null;
}

export const CHANNEL_LABELS: Record<CampaignChannel, string> = {
  email: "Email",
  sms: "SMS",
  voice: "AI call",
  voicemail: "Voicemail",
  video_email: "Video (email)",
  video_sms: "Video (SMS)",
};

export const campaignsApi = {
  report: (id: number) =>
    api.get<CampaignReport>(`/api/campaigns/${id}`, { fallbackError: "Campaign not found" }),
  recipients: (id: number, page: number, status?: string) =>
    api.get<{ recipients: RecipientRow[]; pagination: { page: number; pages: number; total: number } }>(
      `/api/campaigns/${id}/recipients?page=${page}&limit=50${status ? `&status=${status}` : ""}`,
    ),
  action: (id: number, action: "pause" | "resume" | "cancel" | "resend-failed") =>
    api.post<{ success: true }>(`/api/campaigns/${id}/${action}`, {}, { fallbackError: "Action failed" }),
};
