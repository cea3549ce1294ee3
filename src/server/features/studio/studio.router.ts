import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/init";
import { editIdSchema, mediaIdSchema } from "./studio.schemas";
import {
  applyAdvanced,
  applyTrim,
  deleteMedia,
  getEdit,
  getMedia,
  listDraftsFirst,
  listMedia,
  listMyVideos,
  toPublicEdit,
  toPublicMedia,
} from "./studio.service";

/**
 * tRPC `studio` router (media): the same operations as the REST adapters (uploads stay REST:
 * multipart). Video campaigns are in the `campaigns` router.
 * Edit inputs are validated by the service with the REST schemas (same messages).
 */
export const studioRouter = router({
  list: protectedProcedure.query(async ({ ctx }) =>
    (await listMedia(ctx, ctx.workspaceId)).map(toPublicMedia),
  ),
  drafts: protectedProcedure.query(async ({ ctx }) =>
    (await listDraftsFirst(ctx, ctx.workspaceId)).map(toPublicMedia),
  ),
  myVideos: protectedProcedure.query(async ({ ctx }) => listMyVideos(ctx, ctx.workspaceId)),
  get: protectedProcedure.input(z.object({ id: mediaIdSchema })).query(async ({ ctx, input }) => {
    const item = await getMedia(ctx, ctx.workspaceId, input.id);
    return { media: toPublicMedia(item), peaks: item.peaks ?? null };
  }),
  delete: protectedProcedure.input(z.object({ id: mediaIdSchema })).mutation(async ({ ctx, input }) => {
    await deleteMedia(ctx, ctx.workspaceId, input.id);
    return { success: true as const };
  }),
  trim: protectedProcedure
    .input(z.unknown())
    .mutation(async ({ ctx, input }) => toPublicEdit(await applyTrim(ctx, ctx.workspaceId, input))),
  advanced: protectedProcedure
    .input(z.unknown())
    .mutation(async ({ ctx, input }) => toPublicEdit(await applyAdvanced(ctx, ctx.workspaceId, input))),
  edit: protectedProcedure
    .input(z.object({ id: editIdSchema }))
    .query(async ({ ctx, input }) => toPublicEdit(await getEdit(ctx, ctx.workspaceId, input.id))),
});
