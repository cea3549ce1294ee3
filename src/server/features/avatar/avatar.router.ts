import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/init";
import { createAvatarVideo, getAvatarVideoStatus, listAvatarVideos } from "./avatar.service";

/**
 * tRPC `avatar` router: the same operations as the REST adapters. Inputs are validated by the
 * service with the REST schemas (same messages, e.g. 'Please enter a script').
 */
export const avatarRouter = router({
  /** Providers of this deployment, whether each is configured, and the default (AVATAR_PROVIDER). */
  providers: protectedProcedure.query(({ ctx }) => ctx.providers.avatar.list()),
  create: protectedProcedure
    .input(z.object({ provider: z.string(), script: z.unknown(), title: z.unknown().optional() }))
    .mutation(({ ctx, input }) =>
      createAvatarVideo(
        ctx,
        ctx.workspaceId,
        input.provider,
        { script: input.script, title: input.title },
        ctx.tenant.userId,
      ),
    ),
  status: protectedProcedure
    .input(z.object({ provider: z.string(), videoId: z.string() }))
    .query(({ ctx, input }) => getAvatarVideoStatus(ctx, ctx.workspaceId, input)),
  list: protectedProcedure
    .input(z.object({ limit: z.number().int().min(1).max(100).optional() }).optional())
    .query(({ ctx, input }) => listAvatarVideos(ctx, ctx.workspaceId, input?.limit)),
});
