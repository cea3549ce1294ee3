import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { planRefusalFor } from "../features/billing/billing.service";
import { assertShownWorkspace } from "../features/workspaces/workspaces.service";
import { shownWorkspaceOf } from "../http/auth";
import { AppError, ERROR_TABLE } from "../lib/errors";
import { findUnstorableText, unstorableMessage } from "../lib/nul";
import type { WorkspaceChanged } from "../lib/shown-workspace";
import { describeZodError } from "../lib/validate";
import type { TrpcContext } from "./context";

/** The sentence of a tRPC call whose input envelope (superjson) cannot be read. */
export const TRPC_UNREADABLE_INPUT =
  "The request could not be read: its input is not in the form this app sends. Please reload the page and try again.";

/**
 * Whether a BAD_REQUEST's cause is a failure to read the input itself: an error thrown while the
 * superjson envelope was turned back into values (a plain Error or RangeError), not a refusal of ours
 * (AppError), of an input schema (ZodError) or one tRPC made with its own sentence (TRPCError).
 */
function isUnreadableInput(cause: unknown): boolean {
  return (
    cause instanceof Error &&
    !(cause instanceof AppError) &&
    !(cause instanceof ZodError) &&
    !(cause instanceof TRPCError)
  );
}

/**
 * The active workspace a refusal of workspaces.service assertShownWorkspace names (its
 * `details.expose.workspace_changed`), else null.
 */
function workspaceChangedOf(cause: unknown): WorkspaceChanged | null {
  if (!(cause instanceof AppError) || cause.code !== "CONFLICT") return null;
  const expose = (cause.details as { expose?: { workspace_changed?: WorkspaceChanged } } | undefined)?.expose;
  return expose?.workspace_changed ?? null;
}

/**
 * Whether the person still belongs to the workspace the refused tab shows (the same refusal's
 * `details.expose.shown_workspace_member`): true or false when known, else null.
 */
function shownWorkspaceMemberOf(cause: unknown): boolean | null {
  if (!workspaceChangedOf(cause)) return null;
  const expose = (cause as AppError).details as { expose?: { shown_workspace_member?: boolean | null } };
  return expose.expose?.shown_workspace_member ?? null;
}

const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
  /**
   * `data` carries, besides tRPC's own fields (no stack), `workspaceChanged` ({id, name} of the
   * session's active workspace when the calling tab shows another, else null) with
   * `shownWorkspaceMember` (whether the person still belongs to the workspace that tab shows; null
   * when there was no such refusal or it is not known), and `planRefusal`: for a
   * plan refusal (a 402 of billing.plans, FORBIDDEN here; or a plan change refused for its seats,
   * CONFLICT) its structured form with `actor_can_pay` for the signed-in member
   * (billing.service PlanRefusalDetail), else null. The client reads it typed from
   * `TRPCClientError<AppRouter>.data.planRefusal`.
   */
  errorFormatter({ shape, error, ctx }) {
    const data = {
      ...shape.data,
      stack: undefined,
      planRefusal: planRefusalFor(error.cause, ctx?.auth?.tenant.role),
      workspaceChanged: workspaceChangedOf(error.cause),
      shownWorkspaceMember: shownWorkspaceMemberOf(error.cause),
    };
    // Unknown errors never leak internal text.
    if (error.code === "INTERNAL_SERVER_ERROR" && !(error.cause instanceof AppError)) {
      return { ...shape, message: "Something went wrong on our side", data };
    }
    // A procedure's input schema refused the input: the same sentence as the REST adapters
    // ('name: Name is too long'), not zod's JSON list of issues.
    if (error.code === "BAD_REQUEST" && error.cause instanceof ZodError) {
      return { ...shape, message: describeZodError(error.cause), data };
    }
    // The input's superjson envelope could not be read (a `meta` naming a type its value does not
    // hold, an unknown transformation, nesting past the stack): tRPC refuses it with the
    // deserialiser's own error as the message ("Maximum call stack size exceeded"), not a sentence.
    if (error.code === "BAD_REQUEST" && isUnreadableInput(error.cause)) {
      return { ...shape, message: TRPC_UNREADABLE_INPUT, data };
    }
    return { ...shape, data };
  },
});

/** Maps AppError (thrown by services) to the tRPC code from the one error table. */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: ERROR_TABLE[cause.code].trpc, message: cause.message, cause });
  }
  return result;
});

/**
 * Refuses an input holding a NUL character or a lone surrogate with BAD_REQUEST before any
 * procedure runs (the tRPC adapter parses its own body, so the REST preHandler never sees it).
 */
const storableInput = t.middleware(async ({ getRawInput, next }) => {
  const kind = findUnstorableText(await getRawInput());
  if (kind) throw new TRPCError({ code: "BAD_REQUEST", message: unstorableMessage(kind) });
  return next();
});

/**
 * Procedures a tab may call while it shows another workspace than the session's (see
 * protectedProcedure): switching is how the tab goes back to the workspace it shows.
 */
const SHOWN_WORKSPACE_EXEMPT = new Set(["workspaces.switch"]);

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(appErrors).use(storableInput);

/**
 * Narrows the session: `ctx.workspaceId` is the tenant every query filters by, `ctx.tenant` the
 * acting member (user id, role, plan), `ctx.user` the signed-in person.
 */
export const protectedProcedure = publicProcedure.use(({ ctx, next, path }) => {
  if (!ctx.auth) throw new TRPCError({ code: "UNAUTHORIZED", message: "Please sign in to continue" });
  // a tab showing another workspace than the session's is refused (CONFLICT, data.workspaceChanged),
  // except when it switches workspace, which is how such a tab gets back to the one it shows
  if (!SHOWN_WORKSPACE_EXEMPT.has(path))
    assertShownWorkspace(ctx.auth.tenant, shownWorkspaceOf(ctx.req), ctx.auth.memberOfShown);
  return next({
    ctx: {
      ...ctx,
      user: ctx.auth.user,
      userId: ctx.auth.user.id,
      tenant: ctx.auth.tenant,
      workspaceId: ctx.auth.tenant.workspaceId,
    },
  });
});
