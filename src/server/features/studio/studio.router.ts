import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/init";
import { editIdSchema, mediaIdSchema, mediaVersionIdSchema } from "./studio.schemas";
import {
  applyAdvanced,
  applyTrim,
  deleteMedia,
  getEdit,
  getMedia,
  listDraftsFirst,
  listMediaVersions,
  listMyVideos,
  listPublicMedia,
  mediaUses,
  restoreMediaVersion,
  toPublicEdit,
  toPublicMedia,
} from "./studio.service";

/**
 * tRPC `studio` router (media): the same operations as the REST adapters (uploads stay REST:
 * multipart). Video campaigns are in the `campaigns` router.
 * Edit inputs are validated by the service with the REST schemas (same messages).
 */
export const studioRouter = router({
  list: protectedProcedure.query(async ({ ctx }) => listPublicMedia(ctx, ctx.workspaceId)),
  drafts: protectedProcedure.query(async ({ ctx }) =>
    (await listDraftsFirst(ctx, ctx.workspaceId)).map(toPublicMedia),
  ),
  myVideos: protectedProcedure.query(async ({ ctx }) => listMyVideos(ctx, ctx.workspaceId)),
  get: protectedProcedure.input(z.object({ id: mediaIdSchema })).query(async ({ ctx, input }) => {
    const item = await getMedia(ctx, ctx.workspaceId, input.id);
    return { media: toPublicMedia(item), peaks: item.peaks ?? null };
  }),
  /** The campaigns using an item (the delete dialog): id, name, status, pending (messages still to send). */
  uses: protectedProcedure
    .input(z.object({ id: mediaIdSchema }))
    .query(async ({ ctx, input }) => mediaUses(ctx, ctx.workspaceId, input.id)),
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
  /** Every version of an item, oldest first (original, then each finished edit). */
  versions: protectedProcedure
    .input(z.object({ id: mediaIdSchema }))
    .query(async ({ ctx, input }) => listMediaVersions(ctx, ctx.workspaceId, input.id)),
  /** Makes a version current again (revert); nothing is deleted. */
  restoreVersion: protectedProcedure
    .input(z.object({ id: mediaIdSchema, version: mediaVersionIdSchema }))
    .mutation(async ({ ctx, input }) =>
      toPublicMedia(await restoreMediaVersion(ctx, ctx.workspaceId, input.id, input.version)),
    ),
  edit: protectedProcedure
    .input(z.object({ id: editIdSchema }))
    .query(async ({ ctx, input }) => toPublicEdit(await getEdit(ctx, ctx.workspaceId, input.id))),
});
