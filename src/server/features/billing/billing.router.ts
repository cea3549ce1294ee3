import { protectedProcedure, router } from "../../trpc/init";
import { countContacts } from "../crm/crm.service";
import { workspaceSeatsOf } from "../workspaces/workspaces.service";
import { checkoutInput, checkoutResultInput } from "./billing.schemas";
import * as svc from "./billing.service";

/** tRPC `billing` router: plan cards, usage, checkout and portal sessions (the client never decides limits). */
export const billingRouter = router({
  plans: protectedProcedure.query(({ ctx }) => svc.listPlans(ctx, ctx.tenant)),
  usage: protectedProcedure.query(async ({ ctx }) =>
    svc.getUsage(
      ctx,
      ctx.workspaceId,
      {
        contacts: await countContacts(ctx, ctx.workspaceId),
        seats: await workspaceSeatsOf(ctx, ctx.workspaceId),
      },
      ctx.tenant.role,
    ),
  ),
  checkout: protectedProcedure
    .input(checkoutInput)
    .mutation(({ ctx, input }) => svc.createCheckout(ctx, ctx.tenant, input)),
  /** what the checkout the owner returned from did: active, refunded (a second checkout) or pending */
  checkoutResult: protectedProcedure
    .input(checkoutResultInput)
    .query(({ ctx, input }) => svc.checkoutResult(ctx, ctx.tenant, input.session_id)),
  portal: protectedProcedure.mutation(({ ctx }) => svc.createPortal(ctx, ctx.tenant)),
});
