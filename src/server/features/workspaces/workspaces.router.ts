import { phoneCountryOptions } from "../../lib/phone";
import { protectedProcedure, publicProcedure, router } from "../../trpc/init";
import { assertCanSend } from "../auth/auth.service";
import { endMemberAccess } from "./workspaces.departure";
import {
  inviteIdInput,
  inviteInput,
  roleInput,
  tokenInput,
  transferInput,
  userIdInput,
  workspaceIdInput,
  workspaceSettingsInput,
} from "./workspaces.schemas";
import * as svc from "./workspaces.service";

/**
 * tRPC procedures of the workspaces feature: the same service calls as workspaces.rest.ts (invitation
 * emails get auth's assertCanSend, removal and leave workspaces.departure endMemberAccess, as there).
 */
export const workspacesRouter = router({
  list: protectedProcedure.query(({ ctx }) => svc.listUserWorkspaces(ctx, ctx.user.id)),
  current: protectedProcedure.query(({ ctx }) => svc.toWorkspaceJson(ctx.tenant.workspace, ctx.tenant.role)),
  switch: protectedProcedure
    .input(workspaceIdInput)
    .mutation(({ ctx, input }) =>
      svc.switchWorkspace(ctx, ctx.auth!.session.id, ctx.user.id, input.workspaceId),
    ),
  /** The countries Settings > Workspace offers for `phone_country`: `[{ code: "GB", callingCode: "44" }]`. */
  phoneCountries: protectedProcedure.query(() => phoneCountryOptions()),
  update: protectedProcedure
    .input(workspaceSettingsInput)
    .mutation(({ ctx, input }) => svc.updateWorkspaceSettings(ctx, ctx.tenant, input)),
  members: protectedProcedure.query(({ ctx }) => svc.listMembers(ctx, ctx.tenant)),
  invite: protectedProcedure
    .input(inviteInput)
    .mutation(({ ctx, input }) => svc.inviteMember(ctx, ctx.tenant, input, assertCanSend)),
  resendInvite: protectedProcedure
    .input(inviteIdInput)
    .mutation(({ ctx, input }) => svc.resendInvite(ctx, ctx.tenant, input.inviteId, assertCanSend)),
  revokeInvite: protectedProcedure
    .input(inviteIdInput)
    .mutation(({ ctx, input }) => svc.revokeInvite(ctx, ctx.tenant, input.inviteId)),
  changeRole: protectedProcedure
    .input(userIdInput.extend(roleInput.shape))
    .mutation(({ ctx, input }) => svc.changeRole(ctx, ctx.tenant, input.userId, input.role)),
  removeMember: protectedProcedure
    .input(userIdInput)
    .mutation(({ ctx, input }) => svc.removeMember(ctx, ctx.tenant, input.userId, endMemberAccess)),
  transferOwnership: protectedProcedure
    .input(transferInput)
    .mutation(({ ctx, input }) => svc.transferOwnership(ctx, ctx.tenant, input.user_id)),
  leave: protectedProcedure.mutation(({ ctx }) => svc.leaveWorkspace(ctx, ctx.tenant, endMemberAccess)),
  invitation: publicProcedure
    .input(tokenInput)
    .query(({ ctx, input }) => svc.getInvite(ctx, input.token, ctx.auth?.user ?? null)),
  acceptInvite: protectedProcedure
    .input(tokenInput)
    .mutation(({ ctx, input }) => svc.acceptInvite(ctx, ctx.user, ctx.auth!.session.id, input.token)),
});
