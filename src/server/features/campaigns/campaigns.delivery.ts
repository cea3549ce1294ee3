import { createHash } from "node:crypto";
import type {
  Campaign,
  CampaignChannel,
  CampaignLaunchResult,
  CampaignRecipient,
  Contact,
} from "../../db/schema";
import { uuidFromKey } from "../../lib/ids";
import { REPLIED_STOP_REASON, type SuppressionChannel } from "../compliance/compliance.service";

// Small pure helpers of the send engine: channel mapping, idempotency keys, deterministic job ids,
// backoff, send-job payloads. No I/O.

/** Sends attempted per recipient before a transient failure becomes final. */
export const MAX_ATTEMPTS = 5;

/** Recipients handled per claim / provider batch (one Postmark batch call holds up to 500). */
export const SEND_CHUNK = 500;

/** The provider channel a campaign channel sends through. */
export function deliveryKind(channel: CampaignChannel): "email" | "sms" | "voice" | "voicemail" {
  if (channel === "video_email") return "email";
  if (channel === "video_sms") return "sms";
  return channel;
}

/** Suppression-list channel of a campaign channel. */
export function suppressionChannel(channel: CampaignChannel): SuppressionChannel {
  return deliveryKind(channel);
}

/**
 * The channel opt-in rule (issue 4, spec section 5), the same at launch (campaigns.audience
 * skipReason) and at send time (campaigns.send screen): email with `emailOptIn` off -> "opted out of
 * email", never overridable; SMS / video SMS without `smsOptIn` -> "not opted in to SMS", AI calls and
 * ringless voicemail without `callOptIn` -> "not opted in to calls", both unless the user confirmed
 * consent for contacts not opted in (`includeNotOptedIn` at launch, kept as `content.ignoreOptIn`).
 * A contact who replied STOP from any of their numbers (`repliedStop`, compliance
 * contactsWhoRepliedStop) is "opted out (replied STOP)" for SMS, calls and voicemail whatever number
 * the message would go to, and no consent confirmation overrides it: the opt-in flag alone cannot
 * tell "never opted in" from "opted out".
 * Returns the skip reason, or null when the contact may be sent to on `channel`.
 */
export function optInReason(
  channel: CampaignChannel,
  contact: Pick<Contact, "emailOptIn" | "smsOptIn" | "callOptIn">,
  includeNotOptedIn: boolean,
  repliedStop = false,
): string | null {
  const kind = deliveryKind(channel);
  if (kind === "email") return contact.emailOptIn ? null : "opted out of email";
  if (repliedStop) return REPLIED_STOP_REASON;
  if (includeNotOptedIn) return null;
  if (kind === "sms") return contact.smsOptIn ? null : "not opted in to SMS";
  return contact.callOptIn ? null : "not opted in to calls";
}

/** The contact activity a successful send records. */
export function sentActivity(channel: CampaignChannel): string {
  return { email: "email_sent", sms: "sms_sent", voice: "call_made", voicemail: "voicemail_sent" }[
    deliveryKind(channel)
  ];
}

/**
 * The vendor idempotency key of one recipient: its row id. It does not change across pause/resume
 * rounds, so a row claimed before a pause and re-claimed after is still recognised by `findSent`.
 */
export function vendorKey(r: Pick<CampaignRecipient, "id">): string {
  return `cr-${r.id}`;
}

/** Exponential backoff for transient vendor errors: 2^attempts seconds, 2 s .. 10 min. */
export function backoffSeconds(attempts: number): number {
  return Math.min(600, 2 ** Math.max(1, attempts));
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  });
  await Promise.all(workers);
  return out;
}

/** Send-job payloads for `ids`: one job per SEND_CHUNK ids (the row status, not the job, decides what is sent). */
export function sendJobs(ids: number[], key: (first: number, last: number, n: number) => string) {
  const out: { data: { recipientIds: number[] }; options: { id: string } }[] = [];
  for (let i = 0; i < ids.length; i += SEND_CHUNK) {
    const chunk = ids.slice(i, i + SEND_CHUNK);
    out.push({
      data: { recipientIds: chunk },
      options: { id: uuidFromKey(key(chunk[0] as number, chunk[chunk.length - 1] as number, chunk.length)) },
    });
  }
  return out;
}

/**
 * Send-job payloads for rows due at given times (quiet-hours deferrals, retries): rows due at the
 * same instant share jobs of up to SEND_CHUNK ids, each with `startAfter` that instant.
 */
export function laterJobs(
  rows: { id: number; at: number }[],
  key: (first: number, last: number, n: number, at: number) => string,
) {
  const byAt = new Map<number, number[]>();
  for (const r of rows) {
    const list = byAt.get(r.at);
    if (list) list.push(r.id);
    else byAt.set(r.at, [r.id]);
  }
  return [...byAt].flatMap(([at, ids]) =>
    sendJobs(
      ids.sort((a, b) => a - b),
      (a, b, n) => key(a, b, n, at),
    ).map((j) => ({ ...j, options: { ...j.options, startAfter: new Date(at) } })),
  );
}

/**
 * The launch a campaign's reservation was made by and the period holding its unsent units (billing
 * CampaignMetering: releaseCampaignUsage, chargeCampaignSend, campaignPlanStop).
 */
export function launchOf(
  campaign: Pick<Campaign, "workspaceId" | "channel" | "createdAt" | "meterPeriodStart">,
) {
  return {
    workspaceId: campaign.workspaceId,
    channel: campaign.channel,
    launchedAt: campaign.createdAt,
    meterPeriodStart: campaign.meterPeriodStart,
  };
}

/**
 * Minutes within which a launch without a launch token that repeats one of the workspace's launches
 * (same launchFingerprint) answers that campaign instead of creating a second one (a double-submitted
 * form, a client's retry after a lost response). A campaign cancelled since does not count; the same
 * campaign launched again after the window is a new campaign.
 */
export const LAUNCH_REPEAT_WINDOW_MINUTES = 10;

/** JSON with every object's keys sorted (Dates as ISO strings, undefined left out): one text per value. */
function canonicalJson(v: unknown): string {
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? "null" : canonicalJson(x))).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/**
 * The fingerprint of a launch (campaigns.launch_fingerprint; with or without a launch token): hex SHA-256 of
 * the normalised request: `channel`, `name` (trimmed), `request` (what else the caller was asked to
 * send: the content as given, the scheduled time as given, the consent flag; the video launch passes
 * its own fields, since its engine content carries per-launch values) and `recipients`, the resolved
 * recipients as (contact id, address) pairs in any order (the same contacts reached by a CSV, ids, a
 * segment or a filter are the same recipients). Object key order never matters.
 */
export function launchFingerprint(parts: {
  channel: CampaignChannel;
  name: string;
  request: unknown;
  recipients: { contactId: number; address: string | null }[];
}): string {
  const recipients = parts.recipients
    .map((r) => [r.contactId, r.address ?? ""] as const)
    .sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return createHash("sha256")
    .update(
      canonicalJson({
        v: 1,
        channel: parts.channel,
        name: parts.name.trim(),
        request: parts.request,
        recipients,
      }),
    )
    .digest("hex");
}

/**
 * The note a report's skip reason gets for skips that made no recipient row (a list's duplicate
 * row, a row with no valid email or phone number, an id that is no contact): they are counted as
 * skipped like the launch counted them, but have no row in the recipients list or its CSV.
 */
export const NO_RECIPIENT_NOTE = "no recipient made, not in the recipients CSV";

/**
 * The skips of a launch's answer (`skipped`, by reason) that no recipient row holds: each reason's
 * count less the rows skipped for it (`recorded`), the reasons left above zero. The launch keeps them
 * (campaigns.audience unrecordedSkips) and the report adds them (reportSkipped).
 */
export function skipsWithoutRows(
  skipped: Record<string, number>,
  recorded: Map<string | null, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [reason, n] of Object.entries(skipped)) {
    const left = n - (recorded.get(reason) ?? 0);
    if (left > 0) out[reason] = left;
  }
  return out;
}

/**
 * A campaign's skipped figures as its report and finished email give them: the recipients' skipped
 * rows by reason (`rows`, campaigns.queries selectReportFigures) plus the launch's skips that made no
 * recipient (`launch.unrecorded`, each reason followed by NO_RECIPIENT_NOTE in brackets), so they
 * tell the same story as the launch's answer. For a campaign launched before `unrecorded` was kept,
 * it is derived: the launch's skipped count of each reason less the recipient rows skipped for it.
 * Returns the total and the reasons, most first (then by reason).
 */
export function reportSkipped(
  rows: { reason: string | null; n: number }[],
  launch: CampaignLaunchResult | null | undefined,
): { total: number; reasons: { reason: string; count: number }[] } {
  const reasons = rows.map((s) => ({ reason: s.reason ?? "no reason recorded", count: s.n }));
  const unrecorded =
    launch?.unrecorded ??
    (launch ? skipsWithoutRows(launch.skipped, new Map(rows.map((r) => [r.reason, r.n]))) : undefined);
  for (const [reason, count] of Object.entries(unrecorded ?? {}))
    if (count > 0) reasons.push({ reason: `${reason} (${NO_RECIPIENT_NOTE})`, count });
  reasons.sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
  return { total: reasons.reduce((n, r) => n + r.count, 0), reasons };
}

/**
 * The fields every campaign.* webhook event's data begins with (campaign.launched, campaign.rescheduled,
 * campaign.completed; webhooks.examples shows them): `{id, name, channel, status, recipient_count}`.
 * Each event adds its own times after them.
 */
export function campaignEventBase(
  c: Pick<Campaign, "id" | "name" | "channel" | "status" | "recipientCount">,
) {
  return { id: c.id, name: c.name, channel: c.channel, status: c.status, recipient_count: c.recipientCount };
}
