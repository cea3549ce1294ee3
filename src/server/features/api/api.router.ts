import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/init";
import { API_SCOPES, createApiKeySchema } from "./api.schemas";
import * as svc from "./api.service";

/** tRPC procedures of API keys (Settings > API keys): the same service calls as api.rest.ts. */
export const apiKeysRouter = router({
  scopes: protectedProcedure.query(() => [...API_SCOPES]),
  list: protectedProcedure.query(({ ctx }) => svc.listApiKeys(ctx, ctx.tenant)),
  create: protectedProcedure
    .input(createApiKeySchema)
    .mutation(({ ctx, input }) => svc.createApiKey(ctx, ctx.tenant, input)),
  /**
   * `{count}`: the API keys `userId` created in the workspace that their removal or leaving would
   * revoke (Settings > Team's confirmations); see countKeysRevokedOnDeparture.
   */
  revokedOnDeparture: protectedProcedure
    .input(z.strictObject({ userId: z.string().max(100) }))
    .query(({ ctx, input }) => svc.countKeysRevokedOnDeparture(ctx, ctx.tenant, input.userId)),
  revoke: protectedProcedure
    .input(z.strictObject({ id: z.string().max(100) }))
    .mutation(({ ctx, input }) => svc.revokeApiKey(ctx, ctx.tenant, input.id)),
});
