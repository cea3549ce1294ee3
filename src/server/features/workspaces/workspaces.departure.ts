import { revokeKeysOfDepartingMember } from "../api/api.service";
import { pauseScheduledCampaignsOfDeparting } from "../campaigns/campaigns.departure";
import type { MemberDepartureHook } from "./workspaces.service";

/**
 * What ends with a person's membership, the MemberDepartureHook every removal and leave is given
 * (the workspaces adapters, and account deletion's leaves): in the removal's or leave's transaction,
 * the API keys they created in the workspace are revoked (api.service revokeKeysOfDepartingMember)
 * and the campaigns they launched that are still scheduled are paused with the reason
 * (campaigns.departure pauseScheduledCampaignsOfDeparting), so neither acts for them once they are
 * gone. Here, not in workspaces.service: both features import that service. Returns how many API
 * keys were revoked.
 */
export const endMemberAccess: MemberDepartureHook = async (ctx, departure) => {
  const keys = await revokeKeysOfDepartingMember(ctx, departure);
  await pauseScheduledCampaignsOfDeparting(ctx, departure);
  return keys;
};
