import type { DbOrTx } from "../../db/client";
import { getUserProfiles } from "../user/user.service";
import { pauseScheduledCampaignsOf } from "./campaigns.queries";

/**
 * Why a departed member's scheduled campaign is paused (pauseScheduledCampaignsOfDeparting), as the
 * campaigns list and report show it (`pausedReason`): "Paused because Ben Admin, who scheduled it,
 * was removed from the workspace. Resume it to send it as scheduled (at once if that time has
 * passed), or cancel it." The screens tell a departure's pause from the plan's by the campaign's
 * `pause_cause` ('departure', written with it), not by these words.
 */
export function departurePauseReason(name: string, reason: "removed" | "left"): string {
  const who = name.trim() || "the member";
  const what = reason === "removed" ? "was removed from the workspace" : "left the workspace";
  return `Paused because ${who}, who scheduled it, ${what}. Resume it to send it as scheduled (at once if that time has passed), or cancel it.`;
}

/**
 * As a member leaves workspace `workspaceId` or is removed from it (workspaces.service removeMember
 * and leaveWorkspace, through their MemberDepartureHook, inside their transaction: `ctx.db` is it):
 * pauses the campaigns they launched that are still scheduled, so nothing goes out later in the
 * name of someone who is no longer there unless an owner or admin resumes it (the campaign's report
 * says why: departurePauseReason, with `pause_cause` 'departure'). Campaigns already sending go on
 * (stopping half-way sends to some recipients and not others); finished ones are history. Ending with the membership, as their API
 * keys do (api.service revokeKeysOfDepartingMember). Returns how many campaigns were paused.
 */
export async function pauseScheduledCampaignsOfDeparting(
  ctx: { db: DbOrTx },
  departure: { workspaceId: string; userId: string; reason: "removed" | "left" },
): Promise<number> {
  const name = (await getUserProfiles(ctx, [departure.userId])).get(departure.userId)?.name ?? "";
  const paused = await pauseScheduledCampaignsOf(
    ctx.db,
    departure.workspaceId,
    departure.userId,
    departurePauseReason(name, departure.reason),
  );
  return paused.length;
}
