import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import type {
  CreateEndpointInput,
  RotateSecretInput,
  TestEventInput,
  UpdateEndpointInput,
} from "./webhooks.schemas";
import * as svc from "./webhooks.service";

/**
 * Webhook management for signed-in owners and admins (Settings > Webhooks), cookie-authenticated.
 * API-key clients use /api/v1/webhook_endpoints. `{success, ...}` shapes:
 * GET /api/webhook-endpoints -> {endpoints}; POST {url, events} -> {endpoint (with secret, once)};
 * PATCH /api/webhook-endpoints/{id} {enabled?|url?|events?} -> {endpoint}; DELETE -> {};
 * POST /api/webhook-endpoints/{id}/rotate-secret {expiresInHours?} -> {endpoint (with the new secret, once)};
 * GET /api/webhook-endpoints/{id}/deliveries -> {deliveries}; POST .../test -> {delivery_id, event_id};
 * POST /api/webhook-deliveries/{id}/resend -> {id, status}.
 */
export async function webhooksRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const id = (req: { params: unknown }) => (req.params as { id: string }).id;
  app.get("/api/webhook-endpoints", async (req) => ({
    success: true,
    endpoints: await svc.listEndpoints(ctx, requireTenant(req)),
  }));
  app.post("/api/webhook-endpoints", async (req) => ({
    success: true,
    endpoint: await svc.createEndpoint(ctx, requireTenant(req), req.body as CreateEndpointInput),
  }));
  app.patch("/api/webhook-endpoints/:id", async (req) => ({
    success: true,
    endpoint: await svc.updateEndpoint(ctx, requireTenant(req), id(req), req.body as UpdateEndpointInput),
  }));
  app.delete("/api/webhook-endpoints/:id", async (req) => {
    await svc.deleteEndpoint(ctx, requireTenant(req), id(req));
    return { success: true };
  });
  app.post("/api/webhook-endpoints/:id/rotate-secret", async (req) => ({
    success: true,
    endpoint: await svc.rotateEndpointSecret(
      ctx,
      requireTenant(req),
      id(req),
      (req.body ?? {}) as RotateSecretInput,
    ),
  }));
  app.get("/api/webhook-endpoints/:id/deliveries", async (req) => ({
    success: true,
    deliveries: await svc.listDeliveries(ctx, requireTenant(req), id(req)),
  }));
  app.post("/api/webhook-endpoints/:id/test", async (req) => ({
    success: true,
    ...(await svc.sendTestEvent(ctx, requireTenant(req), id(req), (req.body ?? {}) as TestEventInput)),
  }));
  app.post("/api/webhook-deliveries/:id/resend", async (req) => ({
    success: true,
    ...(await svc.resendDelivery(ctx, requireTenant(req), id(req))),
  }));
}
