import { clearSessionCookie, setSessionCookie } from "../../http/auth";
import { protectedProcedure, publicProcedure, router } from "../../trpc/init";
import { loginInput, registerInput } from "./auth.schemas";
import * as auth from "./auth.service";

export const authRouter = router({
  register: publicProcedure.input(registerInput).mutation(async ({ ctx, input }) => {
    const user = await auth.register(ctx, input, { ip: ctx.ip });
    const s = await auth.createSession(ctx, user.id);
    setSessionCookie(ctx.res, ctx, s.token, s.expiresAt);
    return { success: true as const, user: auth.toPublicUser(user) };
  }),
  login: publicProcedure.input(loginInput).mutation(async ({ ctx, input }) => {
    const user = await auth.login(ctx, input, { ip: ctx.ip });
    const s = await auth.createSession(ctx, user.id);
    setSessionCookie(ctx.res, ctx, s.token, s.expiresAt);
    return { success: true as const, user: auth.toPublicUser(user) };
  }),
  me: protectedProcedure.query(({ ctx }) => ({ user: auth.toPublicUser(ctx.user) })),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.auth) await auth.invalidateSession(ctx, ctx.auth.session.id);
    clearSessionCookie(ctx.res, ctx);
    return { success: true as const };
  }),
});
