import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/init";
import {
  createEndpointSchema,
  rotateSecretSchema,
  testEventSchema,
  WEBHOOK_EVENT_TYPES,
} from "./webhooks.schemas";
import * as svc from "./webhooks.service";

const idInput = z.strictObject({ id: z.string().max(100) });

/** tRPC procedures of Settings > Webhooks: the same service calls as webhooks.rest.ts. */
export const webhooksRouter = router({
  eventTypes: protectedProcedure.query(() => [...WEBHOOK_EVENT_TYPES]),
  list: protectedProcedure.query(({ ctx }) => svc.listEndpoints(ctx, ctx.tenant)),
  create: protectedProcedure
    .input(createEndpointSchema)
    .mutation(({ ctx, input }) => svc.createEndpoint(ctx, ctx.tenant, input)),
  setEnabled: protectedProcedure
    .input(z.strictObject({ id: z.string().max(100), enabled: z.boolean() }))
    .mutation(({ ctx, input }) => svc.updateEndpoint(ctx, ctx.tenant, input.id, { enabled: input.enabled })),
  rotateSecret: protectedProcedure
    .input(idInput.extend(rotateSecretSchema.shape))
    .mutation(({ ctx, input }) =>
      svc.rotateEndpointSecret(ctx, ctx.tenant, input.id, { expiresInHours: input.expiresInHours }),
    ),
  remove: protectedProcedure
    .input(idInput)
    .mutation(({ ctx, input }) => svc.deleteEndpoint(ctx, ctx.tenant, input.id)),
  deliveries: protectedProcedure
    .input(idInput)
    .query(({ ctx, input }) => svc.listDeliveries(ctx, ctx.tenant, input.id)),
  test: protectedProcedure
    .input(idInput.extend(testEventSchema.shape))
    .mutation(({ ctx, input }) => svc.sendTestEvent(ctx, ctx.tenant, input.id, { type: input.type })),
  resend: protectedProcedure
    .input(idInput)
    .mutation(({ ctx, input }) => svc.resendDelivery(ctx, ctx.tenant, input.id)),
});
