import type { JobDeps } from "../../jobs/define";
import { getUserProfiles } from "../user/user.service";
import { getWorkspace, listUserWorkspaces } from "../workspaces/workspaces.service";
import { deliveryKind, reportSkipped } from "./campaigns.delivery";
import { countRecipientsByStatus, selectCampaign, selectReportFigures } from "./campaigns.queries";
import { formatTalkTime } from "./talk-time";

type Figures = Awaited<ReturnType<typeof selectReportFigures>>["figures"];
type Kind = ReturnType<typeof deliveryKind>;

/** A result line: its count from the report's figures (and the launch's skips), and its label. */
type Line = [count: (f: Figures, skipped: number) => number, label: string];

const n = (k: keyof Figures) => (f: Figures) => f[k] as number;
const SKIPPED: Line = [(_, skipped) => skipped, "skipped (opted out, duplicate or no address)"];
const TAIL: Line[] = [[n("optedOut"), "opted out"], SKIPPED, [n("cancelled"), "cancelled"]];

/**
 * The campaign-finished email's result lines of each kind of channel (campaigns.delivery
 * deliveryKind), in order: the report's figures (selectReportFigures; each recipient in every stage
 * it reached: one who opened was delivered too), so the email and /campaigns/:id say the same (a QA
 * pass: the email counted each recipient's latest status only, "2 delivered, 3 opened" where the
 * report said 5 delivered and 3 opened), and, as the report (client report-figures), only what the
 * channel records: email and video email sent, delivered, opened, clicked, replied, bounced,
 * failed; SMS and video SMS sent, delivered, clicked, replied, bounced, failed (a text has no open);
 * calls called, answered (by a person), voicemail (an answering machine), completed with the
 * answerer unknown, no answer, busy, failed (every other failure); ringless voicemail sent,
 * delivered, failed. Then for every channel opted out, skipped and cancelled.
 */
const RESULT_LINES: Record<Kind, Line[]> = {
  email: [
    [n("sent"), "sent"],
    [n("delivered"), "delivered"],
    [n("opened"), "opened"],
    [n("clicked"), "clicked"],
    [n("replied"), "replied"],
    [n("bounced"), "bounced"],
    [n("failed"), "failed"],
    ...TAIL,
  ],
  sms: [
    [n("sent"), "sent"],
    [n("delivered"), "delivered"],
    [n("clicked"), "clicked"],
    [n("replied"), "replied"],
    [n("bounced"), "bounced"],
    [n("failed"), "failed"],
    ...TAIL,
  ],
  voice: [
    [n("sent"), "called"],
    [n("answered"), "answered"],
    [n("voicemail"), "voicemail (answering machine)"],
    [(f) => Math.max(0, f.delivered - f.answered - f.voicemail), "completed, answerer unknown"],
    [n("noAnswer"), "no answer"],
    [n("busy"), "busy"],
    [(f) => Math.max(0, f.failed - f.noAnswer - f.busy), "failed"],
    ...TAIL,
  ],
  voicemail: [[n("sent"), "sent"], [n("delivered"), "delivered"], [n("failed"), "failed"], ...TAIL],
};

/** What keeps arriving after a campaign of each kind finished (the email's last paragraph). */
const LATER: Record<Kind, string> = {
  email: "Deliveries, opens and clicks keep arriving after this",
  sms: "Deliveries, clicks and replies keep arriving after this",
  voice: "Call outcomes can still arrive after this",
  voicemail: "Delivery reports can still arrive after this",
};

/**
 * The result lines of a finished campaign of `kind` ("- 3 delivered"; the lines above 0 of
 * RESULT_LINES), with `figures` (selectReportFigures) and `skipped` (the report's skipped total); a
 * call campaign with completed calls ends with its talk time ("- 1m 00s talk time").
 */
export function resultLines(kind: Kind, figures: Figures, skipped: number): string[] {
  const lines = RESULT_LINES[kind]
    .map(([count, label]) => [count(figures, skipped), label] as const)
    .filter(([value]) => value > 0)
    .map(([value, label]) => `- ${value.toLocaleString("en-US")} ${label}`);
  if (kind === "voice" && figures.delivered > 0)
    lines.push(`- ${formatTalkTime(figures.talkSeconds)} talk time`);
  return lines;
}

/**
 * The campaign-finished email (job `campaigns.notify-completed`): to the member who launched campaign
 * `campaignId` while they still belong to its workspace, else to the workspace's owner; not sent when
 * that person turned Campaign Notifications off (user preferences `campaignNotifications`, default
 * on, spec section 6), nor for a campaign that is not `completed` (cancelled, or sending again after
 * a resend-failed). Text: the campaign's name, its recipients, the report's headline figures of
 * the campaign's channel (resultLines: campaigns.queries selectReportFigures and the launch's skips that made no recipient, campaigns.delivery reportSkipped, as getCampaignReport) and a link to the report. Returns the address written to, or null.
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
  const kind = deliveryKind(campaign.channel);
  const lines = resultLines(kind, figures, skippedTotal);
  const app = deps.env.APP_URL; // without a trailing slash (env)
  await deps.providers.email.send({
    to: user.email,
    subject: `Your campaign "${campaign.name}" has finished`,
    text:
      `Hi ${user.name},\n\nYour campaign "${campaign.name}" in ${workspace.name} has finished: ` +
      `${total.toLocaleString("en-US")} recipient${total === 1 ? "" : "s"}.\n\n${lines.join("\n")}\n\n` +
      `${LATER[kind]}; the report shows them as they come:\n` +
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
