import { z } from "zod";

/** Event types an endpoint can subscribe to (issue 15). */
export const WEBHOOK_EVENT_TYPES = [
  "contact.created",
  "contact.updated",
  "contact.deleted",
  "contact.unsubscribed",
  "campaign.launched",
  "campaign.rescheduled",
  "campaign.completed",
  "message.sent",
  "message.delivered",
  "message.opened",
  "message.clicked",
  "message.replied",
  "message.bounced",
  "video.viewed",
  "lead_search.completed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const url = z
  .string({ error: "url is required" })
  .trim()
  .min(1, "url is required")
  .max(2000, "url must be at most 2,000 characters")
  .pipe(z.url({ error: "url must be an absolute URL such as https://example.com/hooks" }));

const events = z
  .array(
    z.enum(WEBHOOK_EVENT_TYPES, { error: `each event must be one of ${WEBHOOK_EVENT_TYPES.join(", ")}` }),
    {
      error: "events must be a list of event types",
    },
  )
  .min(1, "Choose at least one event")
  .max(
    WEBHOOK_EVENT_TYPES.length,
    `events can list at most the ${WEBHOOK_EVENT_TYPES.length} event types, each once`,
  )
  .transform((e) => [...new Set(e)]);

/** POST /api/v1/webhook_endpoints {url, events}. */
export const createEndpointSchema = z.strictObject({ url, events });
export type CreateEndpointInput = z.input<typeof createEndpointSchema>;

/** PATCH: enable/disable, or change url/events. */
export const updateEndpointSchema = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  enabled: z.boolean({ error: "enabled must be true or false" }).optional(),
});
export type UpdateEndpointInput = z.input<typeof updateEndpointSchema>;

export const endpointIdSchema = z.uuid();

/** Hours an endpoint's previous secret keeps signing after a roll when none is chosen (Stripe's default). */
export const ROLL_SECRET_DEFAULT_HOURS = 24;
/** The most hours a previous secret may keep signing after a roll (7 days). */
export const ROLL_SECRET_MAX_HOURS = 168;

const rollHours = (name: string) =>
  z
    .number({ error: `${name} must be a whole number of hours from 0 to ${ROLL_SECRET_MAX_HOURS}` })
    .int(`${name} must be a whole number of hours from 0 to ${ROLL_SECRET_MAX_HOURS}`)
    .min(0, `${name} must be a whole number of hours from 0 to ${ROLL_SECRET_MAX_HOURS}`)
    .max(ROLL_SECRET_MAX_HOURS, `${name} must be at most ${ROLL_SECRET_MAX_HOURS} hours (7 days)`);

/**
 * webhooks.service rotateEndpointSecret: how long the replaced secret keeps signing deliveries
 * (hours, 0..ROLL_SECRET_MAX_HOURS; ROLL_SECRET_DEFAULT_HOURS when absent; 0: it stops at once).
 */
export const rotateSecretSchema = z.strictObject({ expiresInHours: rollHours("expiresInHours").optional() });
export type RotateSecretInput = z.input<typeof rotateSecretSchema>;

/** POST /api/v1/webhook_endpoints/{id}/rotate_secret's body (snake_case; no body: the default). */
export const rotateSecretBody = z.strictObject({
  expires_in_hours: rollHours("expires_in_hours")
    .optional()
    .describe(
      `How long the replaced secret keeps signing deliveries beside the new one, in hours: 0 (it stops at once) to ${ROLL_SECRET_MAX_HOURS} (7 days); ${ROLL_SECRET_DEFAULT_HOURS} when not given`,
    ),
});

/**
 * webhooks.service sendTestEvent (tRPC webhooks.test, POST /api/webhook-endpoints/{id}/test, v1 POST
 * /webhook_endpoints/{id}/test): the event type to send an example of, one the endpoint is
 * subscribed to; its first subscribed type when absent.
 */
export const testEventSchema = z.strictObject({
  type: z
    .enum(WEBHOOK_EVENT_TYPES, { error: `type must be one of ${WEBHOOK_EVENT_TYPES.join(", ")}` })
    .optional()
    .describe(
      "the event type to send an example of (one the endpoint subscribes to); its first when not given",
    ),
});
export type TestEventInput = z.input<typeof testEventSchema>;
