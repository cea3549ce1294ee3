import type { JobDeps } from "../../jobs/define";
import { getUserProfiles } from "../user/user.service";
import { getWorkspace, listUserWorkspaces } from "../workspaces/workspaces.service";
import { reportSkipped } from "./campaigns.delivery";
import { countRecipientsByStatus, selectCampaign, selectReportFigures } from "./campaigns.queries";

type Figures = Awaited<ReturnType<typeof selectReportFigures>>["figures"];

/**
 * The campaign-finished email's result lines, in order: the report's headline figures (each recipient
 * in every stage it reached: one who opened was delivered too), so the email and /campaigns/:id say
 * the same (a QA pass: the email counted each recipient's latest status only, "2 delivered, 3 opened"
 * where the report said 5 delivered and 3 opened).
 */
const RESULT_LINES: [figure: keyof Figures | "skipped", label: string][] = [
  ["sent", "sent"],
  ["delivered", "delivered"],
  ["opened", "opened"],
  ["clicked", "clicked"],
  ["replied", "replied"],
  ["bounced", "bounced"],
  ["failed", "failed"],
  ["skipped", "skipped (opted out, duplicate or no address)"],
  ["cancelled", "cancelled"],
];

/**
 * The campaign-finished email (job `campaigns.notify-completed`): to the member who launched campaign
 * `campaignId` while they still belong to its workspace, else to the workspace's owner; not sent when
 * that person turned Campaign Notifications off (user preferences `campaignNotifications`, default
 * on, spec section 6), nor for a campaign that is not `completed` (cancelled, or sending again after
 * a resend-failed). Text: the campaign's name, its recipients, the report's headline figures
 * (RESULT_LINES: campaigns.queries selectReportFigures and the launch's skips that made no recipient, campaigns.delivery reportSkipped, as getCampaignReport) and a link to the report. Returns the address written to, or null.
 */
export async function notifyCampaignCompleted(deps: JobDeps, campaignId: number): Promise<string | null> {
  const campaign = await selectCampaign(deps.db, campaignId);
  if (campaign?.status !== "completed") return null;
  const workspace = await getWorkspace(deps, campaign.workspaceId);
  let userId = workspace.ownerId;
  if (campaign.createdBy && campaign.createdBy !== userId) {
    const theirs = await listUserWorkspaces(deps, campaign.createdBy);
    if (theirs.some((w) => w.id === campaign.workspaceId)) userId = campaign.createdBy;
  }
  const user = (await getUserProfiles(deps, [userId])).get(userId);
  if (!user || user.preferences?.campaignNotifications === false) return null;
  const [counts, { figures, skipped }] = await Promise.all([
    countRecipientsByStatus(deps.db, [campaign.id]).then((m) => m.get(campaign.id) ?? {}),
    selectReportFigures(deps.sql, campaign.id),
  ]);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  // skipped as the report counts it: the launch's skips that made no recipient too (reportSkipped)
  const skippedTotal = reportSkipped(skipped, campaign.launchResult).total;
  const value = (f: (typeof RESULT_LINES)[number][0]) => (f === "skipped" ? skippedTotal : figures[f]);
  const lines = RESULT_LINES.filter(([f]) => value(f) > 0).map(
    ([f, label]) => `- ${value(f).toLocaleString("en-US")} ${label}`,
  );
  const app = deps.env.APP_URL; // without a trailing slash (env)
  await deps.providers.email.send({
    to: user.email,
    subject: `Your campaign "${campaign.name}" has finished`,
    text:
      `Hi ${user.name},\n\nYour campaign "${campaign.name}" in ${workspace.name} has finished: ` +
      `${total.toLocaleString("en-US")} recipient${total === 1 ? "" : "s"}.\n\n${lines.join("\n")}\n\n` +
      `Deliveries, opens and replies keep arriving after this; the report shows them as they come:\n` +
      `${app}/campaigns/${campaign.id}\n\n` +
      `You get this email because Campaign Notifications is on in Settings > Preferences: ` +
      `${app}/settings?tab=preferences\n`,
    tag: "campaign-completed",
    // an account email to the person (as the verification and weekly report emails), not one of the
    // workspace's messages: the local outbox keeps it out of the workspace's own
    // not `campaignId`: that key marks a campaign's own messages (recipient sends), which this is not
    metadata: { kind: "campaign-completed", finishedCampaignId: String(campaign.id) },
  });
  return user.email;
}
