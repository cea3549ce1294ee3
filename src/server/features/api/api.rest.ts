import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import type { CreateApiKeyInput } from "./api.schemas";
import * as svc from "./api.service";

/**
 * API key management for signed-in owners and admins (issue 15), cookie-authenticated:
 * `POST /api/api-keys {name, scopes, expires_at?}` -> `{success, key, apiKey}` (the key is shown once),
 * `GET /api/api-keys` -> `{success, apiKeys}`, `DELETE /api/api-keys/{id}` -> `{success, apiKey}`.
 */
export async function apiKeysRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/api-keys", async (req) => {
    const r = await svc.createApiKey(ctx, requireTenant(req), req.body as CreateApiKeyInput);
    return { success: true, key: r.key, apiKey: r.apiKey };
  });
  app.get("/api/api-keys", async (req) => {
    return { success: true, apiKeys: await svc.listApiKeys(ctx, requireTenant(req)) };
  });
  app.delete("/api/api-keys/:id", async (req) => {
    const { id } = req.params as { id: string };
    return { success: true, apiKey: await svc.revokeApiKey(ctx, requireTenant(req), id) };
  });
}
