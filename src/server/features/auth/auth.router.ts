import { clearSessionCookie, setSessionCookie } from "../../http/auth";
import { protectedProcedure, publicProcedure, router } from "../../trpc/init";
import { loginInput, registerInput } from "./auth.schemas";
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
  logout: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.auth) await auth.invalidateSession(ctx, ctx.auth.session.id);
    clearSessionCookie(ctx.res, ctx);
    return { success: true as const };
  }),
});
