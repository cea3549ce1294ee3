import type { WebhookEventType } from "./webhooks.schemas";

// Example `data` of each outbound event type, for test events (webhooks.service sendTestEvent) and the
// OpenAPI document's webhooks (api.openapi). Each has every field the real event carries, with the
// same types (tests/unit/webhook-examples checks each against api.v1.schemas WEBHOOK_EVENT_DATA), so
// a receiver can try its parsing on them. The values are made up: ids that exist in no workspace.

const AT = "2026-01-15T14:30:00.000Z";

const contact = {
  id: 1042,
  first_name: "Dana",
  last_name: "Reyes",
  email: "dana@example.com",
  phone: "(415) 555-0134",
  phone_e164: "+14155550134",
  mobile: null,
  mobile_e164: null,
  company: "Reyes Plumbing",
  job_title: "Owner",
  website: "https://reyesplumbing.example",
  street_address: "120 Market St",
  city: "San Francisco",
  state: "CA",
  postal_code: "94105",
  country: "US",
  lifecycle_stage: "lead",
  lead_status: "new",
  lead_source: "import",
  lead_score: 40,
  engagement_score: 12,
  email_opt_in: true,
  sms_opt_in: false,
  call_opt_in: false,
  preferred_language: "en",
  timezone: "America/Los_Angeles",
  linkedin_url: null,
  twitter_handle: null,
  facebook_url: null,
  instagram_handle: null,
  latitude: 37.7911,
  longitude: -122.3988,
  custom_fields: { service_area: "Bay Area" },
  created_at: AT,
  updated_at: AT,
};

const message = (status: string, extra: Record<string, unknown> = {}) => ({
  campaign_id: 318,
  recipient_id: 90211,
  contact_id: contact.id,
  channel: "email",
  address: contact.email,
  status,
  ...extra,
  occurred_at: AT,
});

const campaign = { id: 318, name: "Spring tune-up offer", channel: "email", recipient_count: 250 };

/** The example `data` of each event type (see the top of this file). */
export const WEBHOOK_EVENT_EXAMPLES: Record<WebhookEventType, Record<string, unknown>> = {
  "contact.created": contact,
  "contact.updated": { ...contact, lifecycle_stage: "customer", updated_at: "2026-01-16T09:05:00.000Z" },
  "contact.deleted": { id: contact.id, deleted: true },
  // a campaign opt-out leaves its recipient's status as it was (the email had been delivered)
  "contact.unsubscribed": message("delivered"),
  "campaign.launched": { ...campaign, status: "sending", scheduled_at: null },
  "campaign.rescheduled": {
    ...campaign,
    status: "scheduled",
    scheduled_at: "2026-01-20T16:00:00.000Z",
    previous_scheduled_at: "2026-01-16T09:00:00.000Z",
  },
  "campaign.completed": { ...campaign, status: "completed", completed_at: AT },
  "message.sent": message("sent", { provider_message_id: "b7bc2f4a-8d8e-4a7c-9f1e-3c5d2e1a0b9c" }),
  "message.delivered": message("delivered", { answered_by: null, call_seconds: null }),
  "message.opened": message("opened"),
  "message.clicked": message("clicked"),
  "message.replied": {
    ...message("replied", { reply_text: "Yes, Thursday morning works" }),
    channel: "sms",
    address: contact.phone_e164,
  },
  "message.bounced": message("bounced", { reason: "The mailbox does not exist (hard bounce)." }),
  "video.viewed": {
    campaign_id: 318,
    recipient_id: 90211,
    contact_id: contact.id,
    media_id: 77,
    event: "progress",
    watch_percent: 50,
    view_count: 1,
    occurred_at: AT,
  },
  "lead_search.completed": {
    id: "6f1c2b7e-4d3a-4c8b-9a1e-2f3d4c5b6a79",
    status: "completed",
    location: "Austin, TX",
    business_type: "plumber",
    radius: 10,
    search_radius: 2,
    preset: null,
    provider: "osm",
    saved_search_id: null,
    total_circles: 12,
    api_calls: 12,
    total_results: 87,
    capped: false,
    error: null,
    enrichment: { status: "none", done: 0, total: 0, deferred_filters: [] },
    content_purged: false,
    created_at: AT,
    completed_at: "2026-01-15T14:30:42.000Z",
  },
};

/**
 * The `data` of a test event of `type` (Settings > Webhooks "Send test", POST
 * /webhook_endpoints/{id}/test): the type's example with `test: true`, so a receiver can tell it
 * from a real event and act on nothing.
 */
export function testEventData(type: WebhookEventType): Record<string, unknown> {
  return { ...WEBHOOK_EVENT_EXAMPLES[type], test: true };
}
