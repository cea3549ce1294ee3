import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context";
import { clearSessionCookie, requireTenant, requireUser, setSessionCookie } from "../../http/auth";
import { parseInput } from "../../lib/validate";
import {
  forgotPasswordInput,
  loginInput,
  recoverEmailInput,
  registerInput,
  resetPasswordInput,
  verifyEmailInput,
} from "./auth.schemas";
import * as auth from "./auth.service";

/**
 * REST adapters for spec section 7: /api/auth/register, login, me, logout; and (issue 11)
 * forgot-password, reset-password, verify-email, resend-verification; recover-email (the
 * email-changed notice's recovery link).
 */
export async function authRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post("/api/auth/register", async (req, reply) => {
    const r = await auth.signUp(ctx, parseInput(registerInput, req.body), { ip: req.clientIp });
    setSessionCookie(reply, ctx, r.token, r.expiresAt);
    return { success: true, user: auth.toPublicUser(r.user, r.workspace) };
  });

  app.post("/api/auth/login", async (req, reply) => {
    const r = await auth.signIn(ctx, parseInput(loginInput, req.body), { ip: req.clientIp });
    setSessionCookie(reply, ctx, r.token, r.expiresAt);
    return { success: true, user: auth.toPublicUser(r.user, r.workspace) };
  });

  /** The spec's `{user}` plus the active workspace and every workspace of the user (issue 10). */
  app.get("/api/auth/me", async (req) => auth.describeSession(ctx, requireUser(req), requireTenant(req)));

  /** `{email}` -> `{success, message}`: the same answer whether or not the address has an account. */
  app.post("/api/auth/forgot-password", async (req) => {
    const r = await auth.requestPasswordReset(ctx, parseInput(forgotPasswordInput, req.body), {
      ip: req.clientIp,
    });
    return { success: true, message: r.message };
  });

  /** `{token, password}` -> `{success, user}`: new password, every other session ended, signed in. */
  app.post("/api/auth/reset-password", async (req, reply) => {
    const r = await auth.resetPassword(ctx, parseInput(resetPasswordInput, req.body), { ip: req.clientIp });
    setSessionCookie(reply, ctx, r.token, r.expiresAt);
    return { success: true, user: auth.toPublicUser(r.user, r.workspace) };
  });

  /** `{token}` -> `{success, message}`: confirms the address the link was sent to. */
  app.post("/api/auth/verify-email", async (req) => {
    const { token } = parseInput(verifyEmailInput, req.body);
    await auth.verifyEmail(ctx, token);
    return { success: true, message: "Your email address is verified. You can now launch campaigns." };
  });

  /**
   * The email-changed notice's "this wasn't me" link: `?token=` -> `{success, email, available}`
   * (what confirming would restore; nothing used).
   */
  app.get("/api/auth/recover-email", async (req) => {
    const { token } = parseInput(recoverEmailInput, req.query);
    return { success: true, ...(await auth.checkEmailRecovery(ctx, token)) };
  });

  /**
   * `{token}` -> `{success, message, email, reset_token}`: the account is back on the old address,
   * every session ended (this browser's cookie cleared too); `reset_token` opens /reset-password.
   */
  app.post("/api/auth/recover-email", async (req, reply) => {
    const { token } = parseInput(recoverEmailInput, req.body);
    const r = await auth.recoverEmail(ctx, token, { ip: req.clientIp });
    clearSessionCookie(reply, ctx);
    return {
      success: true,
      message: auth.recoveredMessage(r.email),
      email: r.email,
      reset_token: r.resetToken,
    };
  });

  /** Signed in: emails a new verification link -> `{success, message}`. */
  app.post("/api/auth/resend-verification", async (req) => {
    const r = await auth.resendVerification(ctx, requireUser(req));
    return { success: true, message: r.message };
  });

  app.post("/api/auth/logout", async (req, reply) => {
    if (req.auth) await auth.invalidateSession(ctx, req.auth.session.id);
    clearSessionCookie(reply, ctx);
    return { success: true };
  });
}
