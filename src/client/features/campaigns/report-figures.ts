// What a campaign report shows for its channel (campaign-report.tsx): the headline cards, the
// outcome line and the "Activity over time" lines. Each channel shows only what it records
// (campaign_recipients and the providers' callbacks): an email's opens and clicks; an SMS's
// deliveries, tracked-link clicks and replies (a text has no open); a call's outcome (Twilio
// CallStatus and AnsweredBy) and talk time (CallDuration); a ringless voicemail's delivery or failure.

import { formatTalkTime } from "@/server/features/campaigns/talk-time";
import type { CampaignChannel, CampaignReport } from "./api";

/** The report's talk-time format, shared with the campaign-finished email. */
export { formatTalkTime };

type Figures = CampaignReport["figures"];

/** The channel's kind, as the server's campaigns.delivery deliveryKind maps it. */
export type ChannelKind = "email" | "sms" | "voice" | "voicemail";

/** The provider channel a campaign channel sends through (server: campaigns.delivery deliveryKind). */
export function channelKind(channel: CampaignChannel): ChannelKind {
  if (channel === "video_email") return "email";
  if (channel === "video_sms") return "sms";
  return channel;
}

/**
 * One headline card: `id` names it (`stat-{id}` in the page), `label`, the figure as shown (`value`),
 * and its rate's denominator (`of`; the rate is shown as a percentage when it is above 0, "–"
 * otherwise), or a `note` in place of a rate.
 */
export interface FigureCard {
  id: string;
  label: string;
  value: string;
  count?: number;
  of?: number;
  note?: string;
}

const card = (id: string, label: string, count: number, of?: number): FigureCard => ({
  id,
  label,
  value: String(count),
  count,
  of,
});

/**
 * The headline cards of a report of `channel` with `figures` (the server's ReportFigures) and
 * `recipients` (the campaign's recipient count):
 * - email and video email: Sent, Delivered, Opened, Clicked;
 * - SMS and video SMS: Sent, Delivered, Clicked (its tracked links; a video SMS's page view), Replied
 *   (a text has no open: the server's `opened` of a text is its clicks again);
 * - AI calls: Called, Answered (by a person), Voicemail (an answering machine), Completed (not known
 *   who answered: no answering-machine detection; only when there are such calls), No answer, Busy,
 *   Failed (every other failure), Talk time (the completed calls' seconds, with the average per
 *   completed call);
 * - ringless voicemail: Sent, Delivered, Failed.
 */
export function figureCards(channel: CampaignChannel, f: Figures, recipients: number): FigureCard[] {
  const kind = channelKind(channel);
  if (kind === "voice") {
    const unknown = Math.max(0, f.delivered - f.answered - f.voicemail);
    const otherFailed = Math.max(0, f.failed - f.noAnswer - f.busy);
    return [
      card("sent", "Called", f.sent, recipients),
      card("answered", "Answered", f.answered, f.sent),
      card("voicemail", "Voicemail (machine)", f.voicemail, f.sent),
      ...(unknown > 0 ? [card("completed-unknown", "Completed, answerer unknown", unknown, f.sent)] : []),
      card("no-answer", "No answer", f.noAnswer, f.sent),
      card("busy", "Busy", f.busy, f.sent),
      card("failed", "Failed", otherFailed, f.sent),
      {
        id: "talk-time",
        label: "Talk time",
        value: formatTalkTime(f.talkSeconds),
        note:
          f.delivered > 0
            ? `${formatTalkTime(f.talkSeconds / f.delivered)} per completed call`
            : "no completed call yet",
      },
    ];
  }
  if (kind === "voicemail")
    return [
      card("sent", "Sent", f.sent, recipients),
      card("delivered", "Delivered", f.delivered, f.sent),
      card("failed", "Failed", f.failed, f.sent),
    ];
  if (kind === "sms")
    return [
      card("sent", "Sent", f.sent, recipients),
      card("delivered", "Delivered", f.delivered, f.sent),
      card("clicked", "Clicked", f.clicked, f.delivered),
      card("replied", "Replied", f.replied, f.delivered),
    ];
  return [
    card("sent", "Sent", f.sent, recipients),
    card("delivered", "Delivered", f.delivered, f.sent),
    card("opened", "Opened", f.opened, f.delivered),
    card("clicked", "Clicked", f.clicked, f.delivered),
  ];
}

/**
 * The report's outcome line below the cards ("2 bounced · 1 opted out · 3 skipped (...)"): the
 * figures above 0 that the cards do not already show (a call's failures, answers and busy lines are
 * cards; so are a voicemail's failures and an SMS's replies).
 */
export function outcomeLine(channel: CampaignChannel, f: Figures): string {
  const kind = channelKind(channel);
  const failedInCards = kind === "voice" || kind === "voicemail";
  const parts: [string, number][] = [
    ["bounced", f.bounced],
    [
      f.softBounced > 0 ? `failed (${f.softBounced} by a soft bounce)` : "failed",
      failedInCards ? 0 : f.failed,
    ],
    ["replied", kind === "sms" ? 0 : f.replied],
    ["opted out", f.optedOut],
    ["cancelled", f.cancelled],
    ["waiting to send", f.pending],
  ];
  return parts
    .filter(([, n]) => n > 0)
    .map(([label, n]) => `${n} ${label}`)
    .concat(
      f.skipped > 0
        ? [`${f.skipped} skipped (${f.skippedReasons.map((r) => `${r.reason}: ${r.count}`).join(", ")})`]
        : [],
    )
    .join(" · ");
}

/** A line of "Activity over time": the timeline's field, its legend name and colour. */
export interface TimelineLine {
  key: "sent" | "delivered" | "opened" | "clicked" | "replied" | "failed";
  name: string;
  color: string;
}

const COLOR = {
  sent: "#6366f1",
  delivered: "#10b981",
  opened: "#f59e0b",
  clicked: "#ef4444",
  replied: "#0ea5e9",
  failed: "#a855f7",
} as const;

const line = (key: TimelineLine["key"], name: string = key): TimelineLine => ({
  key,
  name,
  color: COLOR[key],
});

/**
 * The "Activity over time" lines of `channel`, the events it records: email and video email sent,
 * delivered, opened, clicked; SMS and video SMS sent, delivered, clicked, replied (a text has no
 * open: a video SMS's view of its page is its click); calls called, completed, failed; ringless
 * voicemail sent, delivered, failed.
 */
export function timelineLines(channel: CampaignChannel): TimelineLine[] {
  const kind = channelKind(channel);
  if (kind === "voice") return [line("sent", "called"), line("delivered", "completed"), line("failed")];
  if (kind === "voicemail") return [line("sent"), line("delivered"), line("failed")];
  if (kind === "sms") return [line("sent"), line("delivered"), line("clicked"), line("replied")];
  return [line("sent"), line("delivered"), line("opened"), line("clicked")];
}
