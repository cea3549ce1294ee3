import type { AppContext } from "../../context";

/** Campaigns owned by `userId` (any status but draft), optionally created before `before`. */
export async function countCampaigns(_ctx: AppContext, _userId: string, _opts: { before?: Date } = {}): Promise<number> {
  return 0; // campaigns issue: campaigns table
}
