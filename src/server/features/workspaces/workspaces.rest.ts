import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant, requireUser } from "../../http/auth";
import { parseInput } from "../../lib/validate";
import { assertCanSend } from "../auth/auth.service";
import { endMemberAccess } from "./workspaces.departure";
import { inviteInput, roleInput, transferInput, workspaceSettingsInput } from "./workspaces.schemas";
import * as svc from "./workspaces.service";

const param = (req: FastifyRequest, name: string) =>
  String((req.params as Record<string, string>)[name] ?? "");

/**
 * REST adapters of the workspaces feature (issue 10): switch, members, invites, roles, ownership,
 * leave, settings. Roles are enforced by the service for REST and tRPC alike. Invitation emails need a
 * verified sender: the service is handed auth's assertCanSend (it cannot import auth itself). Removal
 * and leave end the departing person's API keys and pause their scheduled campaigns: the service is
 * handed workspaces.departure endMemberAccess (it cannot import api or campaigns, which import it).
 */
export async function workspacesRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get("/api/workspaces", async (req) => ({
    success: true,
    workspaces: await svc.listUserWorkspaces(ctx, requireUser(req).id),
  }));

  app.post("/api/workspaces/:id/switch", async (req) => {
    requireUser(req);
    const workspace = await svc.switchWorkspace(
      ctx,
      req.auth!.session.id,
      req.auth!.user.id,
      param(req, "id"),
    );
    return { success: true, workspace };
  });

  app.get("/api/workspaces/current", async (req) => {
    const t = requireTenant(req);
    return { success: true, workspace: svc.toWorkspaceJson(t.workspace, t.role) };
  });

  app.patch("/api/workspaces/current", async (req) => {
    const t = requireTenant(req);
    const workspace = await svc.updateWorkspaceSettings(ctx, t, parseInput(workspaceSettingsInput, req.body));
    return { success: true, workspace };
  });

  app.get("/api/workspaces/current/members", async (req) => ({
    success: true,
    ...(await svc.listMembers(ctx, requireTenant(req))),
  }));

  app.post("/api/workspaces/current/invites", async (req, reply) => {
    const invite = await svc.inviteMember(
      ctx,
      requireTenant(req),
      parseInput(inviteInput, req.body),
      assertCanSend,
    );
    reply.code(201);
    return { success: true, invite };
  });

  app.post("/api/workspaces/current/invites/:inviteId/resend", async (req) => ({
    success: true,
    invite: await svc.resendInvite(ctx, requireTenant(req), param(req, "inviteId"), assertCanSend),
  }));

  app.delete("/api/workspaces/current/invites/:inviteId", async (req) => {
    await svc.revokeInvite(ctx, requireTenant(req), param(req, "inviteId"));
    return { success: true };
  });

  app.patch("/api/workspaces/current/members/:userId", async (req) => {
    const { role } = parseInput(roleInput, req.body);
    return {
      success: true,
      member: await svc.changeRole(ctx, requireTenant(req), param(req, "userId"), role),
    };
  });

  app.delete("/api/workspaces/current/members/:userId", async (req) => {
    await svc.removeMember(ctx, requireTenant(req), param(req, "userId"), endMemberAccess);
    return { success: true };
  });

  app.post("/api/workspaces/current/transfer", async (req) => {
    const { user_id } = parseInput(transferInput, req.body);
    await svc.transferOwnership(ctx, requireTenant(req), user_id);
    return { success: true };
  });

  app.post("/api/workspaces/current/leave", async (req) => {
    await svc.leaveWorkspace(ctx, requireTenant(req), endMemberAccess);
    return { success: true };
  });

  /** Public: who invites whom to what (the token is the secret). */
  app.get("/api/invites/:token", async (req) => ({
    success: true,
    invite: await svc.getInvite(ctx, param(req, "token"), req.auth?.user ?? null),
  }));

  app.post("/api/invites/:token/accept", async (req) => {
    const user = requireUser(req);
    const workspace = await svc.acceptInvite(ctx, user, req.auth!.session.id, param(req, "token"));
    return { success: true, workspace };
  });
}
