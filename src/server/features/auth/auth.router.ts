import { clearSessionCookie, setSessionCookie } from "../../http/auth";
import { protectedProcedure, publicProcedure, router } from "../../trpc/init";
import {
  forgotPasswordInput,
  loginInput,
  recoverEmailInput,
  registerInput,
  resetPasswordInput,
  verifyEmailInput,
} from "./auth.schemas";
import * as auth from "./auth.service";

export const authRouter = router({
  register: publicProcedure.input(registerInput).mutation(async ({ ctx, input }) => {
    const r = await auth.signUp(ctx, input, { ip: ctx.ip });
    setSessionCookie(ctx.res, ctx, r.token, r.expiresAt);
    return { success: true as const, user: auth.toPublicUser(r.user, r.workspace) };
  }),
  login: publicProcedure.input(loginInput).mutation(async ({ ctx, input }) => {
    const r = await auth.signIn(ctx, input, { ip: ctx.ip });
    setSessionCookie(ctx.res, ctx, r.token, r.expiresAt);
    return { success: true as const, user: auth.toPublicUser(r.user, r.workspace) };
  }),
  me: protectedProcedure.query(({ ctx }) => auth.describeSession(ctx, ctx.user, ctx.tenant)),
  /** Same operations as the REST paths (issue 11). */
  forgotPassword: publicProcedure.input(forgotPasswordInput).mutation(async ({ ctx, input }) => {
    const r = await auth.requestPasswordReset(ctx, input, { ip: ctx.ip });
    return { success: true as const, message: r.message };
  }),
  resetPassword: publicProcedure.input(resetPasswordInput).mutation(async ({ ctx, input }) => {
    const r = await auth.resetPassword(ctx, input, { ip: ctx.ip });
    setSessionCookie(ctx.res, ctx, r.token, r.expiresAt);
    return { success: true as const, user: auth.toPublicUser(r.user, r.workspace) };
  }),
  verifyEmail: publicProcedure.input(verifyEmailInput).mutation(async ({ ctx, input }) => {
    await auth.verifyEmail(ctx, input.token);
    return {
      success: true as const,
      message: "Your email address is verified. You can now launch campaigns.",
    };
  }),
  /** The email-changed notice's recovery link: what confirming would restore (nothing used). */
  checkEmailRecovery: publicProcedure
    .input(recoverEmailInput)
    .query(({ ctx, input }) => auth.checkEmailRecovery(ctx, input.token)),
  /** Restores the old address, ends every session (and this cookie); `resetToken` opens /reset-password. */
  recoverEmail: publicProcedure.input(recoverEmailInput).mutation(async ({ ctx, input }) => {
    const r = await auth.recoverEmail(ctx, input.token, { ip: ctx.ip });
    clearSessionCookie(ctx.res, ctx);
    return { success: true as const, message: auth.recoveredMessage(r.email), ...r };
  }),
  resendVerification: protectedProcedure.mutation(async ({ ctx }) => {
    const r = await auth.resendVerification(ctx, ctx.user);
    return { success: true as const, message: r.message };
  }),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.auth) await auth.invalidateSession(ctx, ctx.auth.session.id);
    clearSessionCookie(ctx.res, ctx);
    return { success: true as const };
  }),
});
