import { protectedProcedure, router } from "../../trpc/init";
import { changePasswordAndRetireLinks, toPublicUser, updateProfileAndFollow } from "../auth/auth.service";
import { passwordInput, profileInput, settingsInput } from "./user.schemas";
import * as svc from "./user.service";

export const userRouter = router({
  updateProfile: protectedProcedure.input(profileInput).mutation(async ({ ctx, input }) => {
    const updated = await updateProfileAndFollow(ctx, ctx.user, input, {
      ip: ctx.ip,
      sessionId: ctx.auth!.session.id,
    });
    return { success: true as const, user: toPublicUser(updated, ctx.tenant.workspace) };
  }),
  changePassword: protectedProcedure.input(passwordInput).mutation(async ({ ctx, input }) => {
    await changePasswordAndRetireLinks(ctx, ctx.user, ctx.auth!.session.id, input, { ip: ctx.ip });
    return { success: true as const };
  }),
  updateSettings: protectedProcedure.input(settingsInput).mutation(async ({ ctx, input }) => ({
    success: true as const,
    user: toPublicUser(await svc.updateSettings(ctx, ctx.user, input), ctx.tenant.workspace),
  })),
});
