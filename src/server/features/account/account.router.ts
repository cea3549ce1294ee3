import { clearSessionCookie } from "../../http/auth";
import { protectedProcedure, router } from "../../trpc/init";
import { deleteAccountInput, deleteWorkspaceInput } from "./account.schemas";
import * as svc from "./account.service";

/** Deleting the active workspace or the whole account (Settings > Workspace, Settings > Profile). */
export const accountRouter = router({
  deletionPreview: protectedProcedure.query(({ ctx }) => svc.accountDeletionPreview(ctx, ctx.userId)),
  deleteWorkspace: protectedProcedure
    .input(deleteWorkspaceInput)
    .mutation(({ ctx, input }) => svc.deleteWorkspace(ctx, ctx.tenant, ctx.user, input, { ip: ctx.ip })),
  deleteAccount: protectedProcedure.input(deleteAccountInput).mutation(async ({ ctx, input }) => {
    const r = await svc.deleteAccount(ctx, ctx.user, input, { ip: ctx.ip });
    clearSessionCookie(ctx.res, ctx);
    return r;
  }),
});
