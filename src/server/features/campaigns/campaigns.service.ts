import Papa from "papaparse";
import type { AppContext } from "../../context";
import { isConstraintViolation } from "../../db/errors";
import { openTransactionDb } from "../../db/reserved";
import { retryOnRace } from "../../db/retry";
import type {
  Campaign,
  CampaignChannel,
  CampaignContent,
  CampaignPauseCause,
  RecipientStatus,
  Workspace,
  WorkspaceRole,
} from "../../db/schema";
import type { JobClient } from "../../jobs/client";
import { CSV_FORMULA_ESCAPE } from "../../lib/csv";
import { emailSubjectLine } from "../../lib/email-subject";
import { AppError, markRaisedAfterChanges } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { consumeOrThrow } from "../../lib/rate-limit";
import { parseInput } from "../../lib/validate";
import { assertCanSend } from "../auth/auth.service";
import {
  assertWorkspaceFeature,
  campaignPlanRefusal,
  campaignPlanStop,
  launchPeriodStart,
  loadBillingWorkspace,
  moveCampaignReservation,
  moveScheduledReservation,
  planRuleOfChannel,
  type Reservation,
  releaseCampaignUsage,
  reserveUsage,
  sendUsageWarningIfDue,
} from "../billing/billing.service";
import { NO_CALLBACK_NUMBER_MESSAGE } from "../compliance/call-opt-out";
import {
  contactDisplayName,
  findOrCreateContacts,
  getContactsByIds,
  resolveTargetContactIds,
} from "../crm/crm.service";
import { displayNames, getUserProfiles } from "../user/user.service";
import {
  emitWebhookEvent,
  isWebhookDeliveryJob,
  NO_WEBHOOK_EMIT,
  queueWebhookDeliveries,
  type WebhookEmit,
} from "../webhooks/webhooks.service";
import {
  assertWorkspaceNotBeingDeleted,
  getSenderProfile,
  phoneCountryOf,
} from "../workspaces/workspaces.service";
import {
  classifyRecipients,
  countMissingContacts,
  DUPLICATE_ROW,
  NO_VALID_ADDRESS,
  nobodyToSendTo,
  resolveAudience,
  toE164,
  unrecordedSkips,
} from "./campaigns.audience";
import {
  buildEmailTemplate,
  extractLinks,
  launchContent,
  launchContentSkip,
  renderEmailFor,
  senderFrom,
  TEST_EMAIL_TOKEN,
} from "./campaigns.content";
import {
  campaignEventBase,
  deliveryKind,
  LAUNCH_REPEAT_WINDOW_MINUTES,
  launchFingerprint,
  launchOf,
  reportSkipped,
} from "./campaigns.delivery";
import { enqueueDue } from "./campaigns.engine";
import { fanOutJob, watchCampaignJob } from "./campaigns.jobs";
import {
  cancelCampaignRows,
  countLiveClaims,
  countPendingRecipients,
  countQueuedOrSending,
  countRecipientsByStatus,
  countWorkspaceCampaigns,
  insertCampaign,
  insertRecipients,
  isLaunchTokenConflict,
  lockLaunchFingerprint,
  pauseCampaignRow,
  rescheduleCampaignRow,
  resendFailedRows,
  resumeCampaignRow,
  selectCampaign,
  selectCampaignByLaunchToken,
  selectCancellableCampaignIds,
  selectRecipientIdsInSendOrder,
  selectRecipientPage,
  selectRecipientsByIds,
  selectReportFigures,
  selectReportTimeline,
  selectWorkspaceCampaign,
  selectWorkspaceCampaignIds,
  selectWorkspaceCampaigns,
  setCampaignMeterPeriod,
} from "./campaigns.queries";
import {
  type CreateCampaignInput,
  createCampaignInput,
  emailTestInput,
  type RecipientInput,
  recipientsQuery,
  rescheduleInput,
} from "./campaigns.schemas";
import { resolveVoicemailAudio, voicemailNoticePrefix } from "./campaigns.voicemail";
import { smsSegments } from "./sms-segments";

type Ctx = Pick<AppContext, "db" | "sql" | "env" | "providers" | "jobs"> & {
  log?: Pick<AppContext["log"], "warn">;
};

/**
 * Campaigns of `workspaceId` that went out (the dashboard's Total Campaigns, like Mailchimp's and
 * HubSpot's counts of sent and sending campaigns): begun sending (sending, paused, completed), plus a
 * cancelled one that had sent at least one message; never drafts, scheduled campaigns not started yet,
 * or ones cancelled before any message went. With `before`, those that began sending before it.
 */
export async function countCampaigns(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  opts: { before?: Date } = {},
): Promise<number> {
  return countWorkspaceCampaigns(ctx.db, workspaceId, opts.before);
}

function requireContent(channel: CampaignChannel, c: CampaignContent) {
  const kind = deliveryKind(channel);
  if (channel.startsWith("video_") && !c.landingUrl)
    throw new AppError("BAD_REQUEST", "A video campaign needs a landing page URL");
  if (kind === "email" && (!c.subject?.trim() || !(c.body ?? "").trim()) && channel === "email")
    throw new AppError("BAD_REQUEST", "Please complete all steps");
  if (kind === "email" && !c.subject?.trim()) throw new AppError("BAD_REQUEST", "Please complete all steps");
  if (kind === "sms" && !(c.message ?? "").trim() && channel === "sms")
    throw new AppError("BAD_REQUEST", "Please enter your SMS message");
  if (channel === "voice" && !(c.script ?? "").trim())
    throw new AppError("BAD_REQUEST", "Please enter a script for the call");
  if (channel === "voicemail" && !(c.script ?? "").trim() && !c.audioUrl && !c.audioMediaId)
    throw new AppError("BAD_REQUEST", "Please choose a recording or write a script");
}

function csvRow(r: RecipientInput) {
  return {
    name: r.name ?? undefined,
    first_name: r.first_name ?? undefined,
    last_name: r.last_name ?? undefined,
    email: r.email ?? undefined,
    phone: r.phone || r.mobile || undefined,
    company: r.company ?? undefined,
  };
}

export interface LaunchResult {
  /**
   * the campaign as GET reports it at the moment of the answer: its status and its recipients' real
   * per-status counts and progress (right after a launch: queued and skipped, nothing sent, progress
   * the skipped share)
   */
  campaign: CampaignSummary;
  /** recipients queued to send */
  queued: number;
  /** skipped recipients by reason */
  skipped: Record<string, number>;
  /**
   * true when this was a repeat of an earlier launch (the same launch token, or without a token an
   * identical launch within LAUNCH_REPEAT_WINDOW_MINUTES): nothing new was created or sent
   */
  repeated?: boolean;
  /**
   * with `repeated`: the earlier campaign came from another launch than this request's own (another
   * launch token: a second builder tab or draft), not from a retry of this one; the builders then say
   * it was already launched and offer to send it again (`allowRepeat`)
   */
  otherLaunch?: boolean;
}

/**
 * The answer to a repeated launch (audit finding 7): when a launch of `workspaceId` with
 * `launchToken` already made a campaign, that campaign (its current status and counts) with the
 * first launch's queued / skipped and `repeated: true`; undefined when there is no token or no such
 * campaign yet. A token used by a launch on another channel, or (with `same`) by a campaign of
 * another name or text, is refused rather than answered with an unrelated campaign: the answer would
 * say a campaign was launched that never was (found by a QA pass: a second email campaign under the
 * first one's Idempotency-Key was answered 200 with the first and never sent). @throws AppError CONFLICT
 */
export async function answerRepeatedLaunch(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  launchToken: string | undefined,
  channel: CampaignChannel,
  same?: (prior: Campaign) => boolean,
): Promise<LaunchResult | undefined> {
  if (!launchToken) return undefined;
  const prior = await selectCampaignByLaunchToken(ctx.db, workspaceId, launchToken);
  if (!prior) return undefined;
  if (prior.channel !== channel || (same && !same(prior)))
    throw new AppError(
      "CONFLICT",
      "This launch token was already used for another campaign; make a new token for a new campaign",
    );
  return repeatAnswer(ctx, prior);
}

/**
 * Whether `prior` (the campaign a launch token made) is the campaign `input` launches: the same name
 * and the same subject, body, SMS message and call script (as parsed, so a retry of the request
 * compares equal). Recipients are not compared: who receives it is classified again at each launch.
 */
function sameLaunchText(
  prior: Campaign,
  input: { name: string; content: Partial<CampaignContent> },
): boolean {
  const fields = ["subject", "body", "message", "script"] as const;
  return (
    prior.name === input.name &&
    fields.every((f) => (prior.content[f] ?? null) === (input.content[f] ?? null))
  );
}

/**
 * A repeated launch's answer: the first campaign as it is now, with the first launch's queued /
 * skipped; `otherLaunch` when that campaign came from another launch token than the request's.
 */
async function repeatAnswer(
  ctx: Pick<AppContext, "db">,
  prior: Campaign,
  otherLaunch = false,
): Promise<LaunchResult> {
  const [campaign] = await summaries(ctx, [prior]);
  return {
    campaign: campaign as CampaignSummary,
    queued: prior.launchResult?.queued ?? 0,
    skipped: prior.launchResult?.skipped ?? {},
    repeated: true,
    ...(otherLaunch ? { otherLaunch: true } : {}),
  };
}

/** What a launch made by another feature's launch (a video campaign) adds to its input. */
export interface LaunchOptions {
  /** what identifies a repeat of this launch, in place of the engine input's own fields */
  repeatRequest?: unknown;
  /** a video landing page button's link (campaigns.content launchContent `ctaUrl`) */
  ctaUrl?: string;
  /**
   * The input's `scheduledAt` is a hold, not the sender's time: a personalised video launch is
   * launched "scheduled" ten minutes ahead only so nothing sends before its recipients' renders are
   * held, and its messages go as soon as their videos are ready. They are reserved in the billing
   * period of now, as an immediate send's are (a hold's time in the next period let a launch in a
   * period's last ten minutes pass a full meter: its units were reserved in the next period's).
   */
  heldUntilReady?: boolean;
}

/**
 * Creates a campaign and launches it (or schedules it): the one entry point for every channel,
 * including video campaigns (studio).
 *
 * - `channel`: email | sms | voice (AI call, TwiML <Say>) | voicemail (ringless) | video_email | video_sms.
 * - `content`: subject + body (email), message (sms), script (voice; voicemail TTS), audioMediaId
 *   (voicemail: one of the workspace's audio recordings, or its library URL in audioUrl;
 *   campaigns.voicemail resolveVoicemailAudio), landingUrl (video_*: a URL template where `{{token}}` becomes each recipient's
 *   public token, so each recipient gets their own landing page; `{{video_url}}` in the body or
 *   message places it, otherwise a button / the link is appended), videoTitle, thumbnailUrl.
 *   Merge tags (`{{name|there}}`, any contact field) render per recipient at send time.
 * - `recipients`: csv rows (become contacts via the CRM), contactIds and/or a saved segmentId, plus
 *   `audience` (a segment, tag, contacts-list filter or ids: campaigns.audience resolveAudience); the union.
 * - `scheduledAt`: later launch; `includeNotOptedIn`: the user confirmed consent for SMS/calls.
 * - `launchToken` (optional; the builders' per-draft UUID, REST's Idempotency-Key header): the
 *   campaign keeps it, unique per workspace. A launch whose token already made a campaign answers
 *   that campaign (`repeated: true`, the first launch's queued / skipped) and creates and sends
 *   nothing; of two concurrent ones, the second waits on the unique index for the first to commit,
 *   then answers the same. A token used on another channel is a 409.
 * - Every launch's fingerprint (campaigns.delivery launchFingerprint: channel, trimmed name, the
 *   request's content / schedule / consent flag or `opts.repeatRequest`, and the resolved recipients)
 *   is kept on the campaign. A launch whose fingerprint one of the workspace's campaigns got within the
 *   last LAUNCH_REPEAT_WINDOW_MINUTES (10) and that is not cancelled answers that campaign the same way
 *   (`repeated: true`, its first answer) and creates and sends nothing: without a launch token (an
 *   outside client that sends no Idempotency-Key; the API's own Idempotency-Key records are not launch
 *   tokens), and with another token than that campaign's (a second builder tab or draft of the same
 *   campaign: `otherLaunch: true`, so the builder says it was already launched and nothing was sent
 *   twice). `allowRepeat: true` skips this check (the builder's "Send it again"). Launches of one
 *   fingerprint take a transaction advisory lock before they look (campaigns.queries
 *   lockLaunchFingerprint), so of two at once the second waits for the first to commit and answers its
 *   campaign. After the window, or once that campaign was cancelled, the same launch makes a new
 *   campaign.
 * - `opts.repeatRequest`: what identifies the request instead of the engine's content and schedule in
 *   the fingerprint (the video launch: its video, avatar script, message and call to action, since the
 *   content it builds carries per-launch values).
 * - `opts.ctaUrl` (video launches): the landing page button's destination, an http(s) URL the caller
 *   validated; appended to `content.links` after the message's own links, its index kept as
 *   `content.ctaLink`, so the button links through the signed click-tracking link /c/:token/:ctaLink.
 *
 * Resolve a recipient of a video campaign from its token with `recipientByToken` (campaigns.events).
 * - `workspace`: the workspace row the request's tenant already loaded, when the caller has it: the
 *   plan check then reads nothing and costs one statement (the meter's conditional upsert).
 * @throws AppError BAD_REQUEST (validation: spec messages; a voicemail recording that is not one of
 *   the workspace's ready audio items), NOT_FOUND (segment, tag or voicemail recording not the
 *   workspace's), UNPROCESSABLE when every recipient would be skipped (message names the reasons)
 *   or, for voicemail, when the voice provider has no callback number for the opt-out,
 *   PAYMENT_REQUIRED (the plan lacks the channel or its monthly meter would pass the limit),
 *   CONFLICT (the launch token belongs to a campaign on another channel; the owner is deleting the
 *   workspace: workspaces assertWorkspaceNotBeingDeleted)
 *
 * An SMS or video SMS recipient whose text, once its merge tags are filled in (and counted as the
 * number's first text), passes 1,600 characters (Twilio's limit) is skipped "message too long once
 * filled in (over 1,600 characters)" (campaigns.content launchContentSkip, SMS_TOO_LONG), as other
 * skips are; the preflight given the message counts the same skip.
 *
 * A contact deleted while the launch runs (a bulk delete between reading the audience and inserting
 * the recipients: the contacts foreign key refuses the insert, and the whole transaction, campaign
 * and reservation included, rolls back) starts the launch over, up to LAUNCH_ATTEMPTS times, so it
 * goes to the contacts still there instead of failing with a 500.
 *
 * Inline recipients (`recipients.csv`) become contacts (found or created) before the audience, plan
 * and launch checks, in the launch's one transaction (inlineRowsTransaction): a launch refused after
 * that step (402 of the meter, 422 nobody to send to) rolls those contacts back with everything else,
 * so a refused launch writes nothing (no contact, campaign or usage) and a retry, e.g. after an
 * upgrade, with the same launch token or Idempotency-Key runs it anew (api.service
 * keepsIdempotentAnswer: the refusal is not kept). Only an error thrown after that transaction
 * committed is marked (lib/errors markRaisedAfterChanges).
 */
export async function createAndLaunchCampaign(
  ctx: Ctx,
  workspaceId: string,
  raw: CreateCampaignInput,
  createdBy: string | null = null,
  workspace?: Workspace,
  opts: LaunchOptions = {},
): Promise<LaunchResult> {
  const progress = { contactsWritten: false };
  try {
    return await retryOnRace(() => launchOnce(ctx, workspaceId, raw, createdBy, workspace, opts, progress), {
      attempts: LAUNCH_ATTEMPTS,
      retryable: isRecipientContactGone,
    });
  } catch (e) {
    throw progress.contactsWritten ? markRaisedAfterChanges(e) : e;
  }
}

/**
 * Runs `launch` (a launch with inline rows) in one transaction on a connection reserved from the pool
 * (db/reserved openTransactionDb: every `ctx.db` statement of the launch runs in it, and its own
 * `db.transaction(fn)` calls, the contact inserts' and the launch transaction's, become savepoints of
 * it), so the contacts made of the rows, the campaign, its recipients, the meter reservation and their
 * webhook events commit together: a refusal thrown anywhere in it (402 of the plan's meter or
 * contact limit, 422, 404) rolls all of it back and the launch has written nothing. Jobs the launch
 * sends (`ctx.jobs`: webhook deliveries, the contacts' statistics refresh, the campaign's send,
 * fan-out and watchdog jobs, the usage warning) are held and sent after the commit, in order, and
 * dropped on a rollback, so no job runs before what it reads is committed; one that cannot be queued
 * then does not keep the others from being sent (a webhook delivery's failure is logged, as
 * queueWebhookDeliveries does: the stranded-delivery sweep queues it). `progress.contactsWritten`
 * is set once the commit is done. The contact-creation lock (crm lockContactCreation, taken on a plan
 * with a contact limit or for phone-only rows) is then held until the launch commits: other contact
 * creations of the workspace wait for the launch, and count its contacts.
 * `ctx.sql` stays the pool: the launch path reads and writes only through `ctx.db`.
 * @throws whatever `launch` throws (after the rollback); Error when the database answered the COMMIT
 *   with a rollback (a statement failed inside and its error was caught by a callee); after the
 *   commit, the first error of a held job other than a webhook delivery's that could not be queued.
 */
async function inlineRowsTransaction<T>(
  ctx: Ctx,
  progress: { contactsWritten: boolean },
  launch: (tctx: Ctx) => Promise<T>,
): Promise<T> {
  const held: { job: string; send: () => Promise<unknown> }[] = [];
  const jobs: JobClient = {
    send: async (job, data, options) => {
      held.push({ job: job.name, send: () => ctx.jobs.send(job, data, options) });
      return null;
    },
    sendMany: async (job, items) => {
      held.push({ job: job.name, send: () => ctx.jobs.sendMany(job, items) });
    },
  };
  const conn = await ctx.sql.reserve();
  let result: T;
  try {
    await conn.unsafe("begin");
    try {
      result = await launch({ ...ctx, db: openTransactionDb(conn), jobs });
      const done = await conn.unsafe("commit");
      if (done.command !== "COMMIT")
        throw new Error("The campaign launch was rolled back by the database; nothing of it was written");
    } catch (e) {
      await conn.unsafe("rollback").catch(() => {});
      throw e;
    }
  } finally {
    conn.release();
  }
  progress.contactsWritten = true;
  // every held job is sent even when one before it fails (what committed needs them all: the send
  // jobs and the watchdog); a webhook delivery's failure is only logged, as queueWebhookDeliveries
  // does when called outside this transaction (the stranded-delivery sweep queues it), any other
  // failure is thrown once the rest were sent
  let failure: { err: unknown } | undefined;
  for (const h of held) {
    try {
      await h.send();
    } catch (err) {
      if (isWebhookDeliveryJob(h.job))
        ctx.log?.warn({ err }, "webhook deliveries not queued; the stranded-delivery sweep queues them");
      else failure ??= { err };
    }
  }
  if (failure) throw failure.err;
  return result;
}

/** How many times createAndLaunchCampaign runs a launch whose audience lost a contact meanwhile. */
const LAUNCH_ATTEMPTS = 3;

/** True for the recipients' insert refused because its contact was deleted (23503 on contact_id). */
function isRecipientContactGone(e: unknown): boolean {
  return isConstraintViolation(e, "23503", "campaign_recipients_contact_id_contacts_id_fk");
}

/** One attempt of createAndLaunchCampaign (its rules and answers). */
async function launchOnce(
  ctx: Ctx,
  workspaceId: string,
  raw: CreateCampaignInput,
  createdBy: string | null,
  workspace: Workspace | undefined,
  opts: LaunchOptions,
  /** set once the inline recipients' contacts were found or created (committed) */
  progress: { contactsWritten: boolean },
  /** true when run inside inlineRowsTransaction (the launch's one transaction for inline rows) */
  inTransaction = false,
): Promise<LaunchResult> {
  const input = parseInput(createCampaignInput, raw);
  // inline rows become contacts: those contacts, the campaign, its recipients and its plan reservation
  // commit together or not at all, so a launch refused after they were matched (402 of the plan's
  // meter, 422 nobody to send to) leaves no contact behind
  if (!inTransaction && input.recipients.csv?.some((r) => r.email || r.phone || r.mobile)) {
    // a lapsed plan's fallback to Free is written here, on the pool, before the transaction: in it the
    // fallback is only applied (billing loadBillingWorkspace), as its UPDATE would hold the workspace
    // row while the launch waits for the contact-creation lock another launch holds (a deadlock)
    await loadBillingWorkspace(ctx, workspaceId);
    return inlineRowsTransaction(ctx, progress, (tctx) =>
      launchOnce(tctx, workspaceId, raw, createdBy, workspace, opts, progress, true),
    );
  }
  // issue 11: an account whose email is not verified cannot launch campaigns (403 with the reason)
  if (createdBy) await assertCanSend(ctx, createdBy);
  // a repeat of a launch that already made its campaign (finding 7): answer it, create nothing
  const same = (prior: Campaign) => sameLaunchText(prior, input);
  const repeat = await answerRepeatedLaunch(ctx, workspaceId, input.launchToken, input.channel, same);
  if (repeat) return repeat;
  let content: CampaignContent = { ...input.content };
  requireContent(input.channel, content);
  // a voicemail must give a number to call back to opt out (47 CFR 64.1200(b)): none, no launch
  if (input.channel === "voicemail" && !ctx.providers.voice.callbackNumber)
    throw new AppError("UNPROCESSABLE", NO_CALLBACK_NUMBER_MESSAGE);
  // voicemail audio: one of the workspace's own recordings, never an arbitrary URL (issue 14)
  if (input.channel === "voicemail") content = await resolveVoicemailAudio(ctx, workspaceId, content);
  else {
    delete content.audioUrl;
    delete content.audioMediaId;
  }
  const billing = workspace?.id === workspaceId ? workspace : workspaceId;
  // plan feature first (spec section 9): refused before any contact is created
  const rule = planRuleOfChannel(input.channel);
  if (rule.feature) await assertWorkspaceFeature(ctx, billing, rule.feature);

  const ids = new Set<number>();
  const csv = (input.recipients.csv ?? []).filter((r) => r.email || r.phone || r.mobile);
  // a CSV row's own phone is used when its (existing) contact has none on file
  const csvPhone = new Map<number, string>();
  let duplicateRows = 0;
  let noAddressRows = 0;
  if (csv.length) {
    const country = await phoneCountryOf(ctx, workspaceId);
    // in the launch's transaction (inlineRowsTransaction): the plan's contact limit counts these new
    // contacts before they are written (crm withinContactLimit), and they are undone with a refusal
    // created contacts say who added them: the launcher (for /api/v1, the key's creator, as the
    // campaign's launchedBy does)
    const created = await findOrCreateContacts(ctx, workspaceId, csv.map(csvRow), {
      skipUnaddressable: true,
      by: { userId: createdBy },
    });
    created.forEach((id, i) => {
      // a row with neither a valid email nor phone: no contact, the row counted (NO_VALID_ADDRESS)
      if (id === null) {
        noAddressRows += 1;
        return;
      }
      // a row naming someone an earlier row named: one message, and the row counted (DUPLICATE_ROW)
      if (ids.has(id)) duplicateRows += 1;
      ids.add(id);
      const raw = csv[i].phone || csv[i].mobile;
      const e164 = raw ? toE164(raw, country) : null;
      if (e164 && !csvPhone.has(id)) csvPhone.set(id, e164);
    });
  }
  if (input.recipients.segmentId !== undefined) {
    const target = await resolveTargetContactIds(ctx, workspaceId, {
      contactIds: input.recipients.contactIds,
      segmentId: input.recipients.segmentId,
    });
    for (const id of target) ids.add(id);
  } else {
    // contact ids alone: the classification below reads only the workspace's own contacts
    for (const id of input.recipients.contactIds ?? []) ids.add(id);
  }
  if (input.audience) for (const id of await resolveAudience(ctx, workspaceId, input.audience)) ids.add(id);
  if (ids.size === 0 && noAddressRows) throw nobodyToSendTo({ [NO_VALID_ADDRESS]: noAddressRows });
  if (ids.size === 0) throw new AppError("BAD_REQUEST", "Please select at least one contact");

  const senderProfile = await getSenderProfile(ctx, workspaceId);
  // {{my_business}} and the email's From name: the workspace's sender name, snapshotted at launch;
  // the signature, tracked links and a video's button link (the preflight renders the same content)
  content = launchContent(
    input.channel,
    content,
    {
      businessName: senderProfile.businessName,
      emailSignature: senderProfile.ownerPreferences?.emailSignature,
    },
    opts.ctaUrl,
  );
  if (input.includeNotOptedIn) content.ignoreOptIn = true;

  // compliance per recipient, page by page (the preflight runs the same classification)
  // a text merge tags fill past 1,600 characters (Twilio's limit, error 21617) is not sent: that
  // recipient is skipped "message too long once filled in", as other skips are (the rest of the
  // audience still gets the campaign; nobody left is a 422 naming the reason); the preflight given
  // the message counts it too (launchContentSkip)
  const classified = await classifyRecipients(ctx, workspaceId, input.channel, [...ids], {
    includeNotOptedIn: !!input.includeNotOptedIn,
    csvPhone,
    contentSkip: launchContentSkip(input.channel, content, ctx.env),
  });
  // ids named that are no contact of the workspace are reported, not dropped unsaid
  countMissingContacts(classified, [input.recipients.contactIds, input.audience?.contactIds]);
  if (duplicateRows)
    classified.skipped[DUPLICATE_ROW] = (classified.skipped[DUPLICATE_ROW] ?? 0) + duplicateRows;
  if (noAddressRows)
    classified.skipped[NO_VALID_ADDRESS] = (classified.skipped[NO_VALID_ADDRESS] ?? 0) + noAddressRows;
  // a launch that would reach nobody is refused with the reasons (issue 14), not "completed"
  if (classified.queued === 0) throw nobodyToSendTo(classified.skipped);
  const skipped = classified.skipped;
  const rows = classified.rows.map((r) => ({
    workspaceId,
    contactId: r.contactId,
    channel: input.channel,
    address: r.address ?? "",
    status: (r.reason ? "skipped" : "queued") as RecipientStatus,
    reason: r.reason,
    token: randomToken(16),
  }));
  const queued = rows.filter((r) => r.status === "queued").length;
  const now = new Date();
  const scheduled =
    input.scheduledAt && input.scheduledAt.getTime() > now.getTime() + 5000 ? input.scheduledAt : null;
  const segmentsPerMessage =
    deliveryKind(input.channel) === "sms" ? smsSegments(content.message ?? "").segments : 1;
  // the plan's units are reserved in the billing period the messages are foreseen to go in: a
  // scheduled campaign's in its time's period (a campaign scheduled into next month counts next
  // month), the campaign recording which (meterPeriodStart); a part sent in another period after all
  // is reserved there when it goes (billing chargeCampaignSend)
  const sendsAt = opts.heldUntilReady ? now : (scheduled ?? now);
  const billingRow = typeof billing === "string" ? await loadBillingWorkspace(ctx, billing) : billing;

  // a launch is known by what it sends, to whom: a repeat within the window answers the first campaign
  // (a double-submitted form, a client's retry, the same campaign launched from a second tab)
  const fingerprint = launchFingerprint({
    channel: input.channel,
    name: input.name,
    request: opts.repeatRequest ?? {
      content: input.content,
      scheduledAt: input.scheduledAt ?? null,
      includeNotOptedIn: !!input.includeNotOptedIn,
    },
    recipients: classified.rows,
  });

  const queuedIds: number[] = [];
  let reservation: Reservation | undefined;
  let repeatOf: Campaign | undefined;
  let launched: WebhookEmit = NO_WEBHOOK_EMIT;
  // the campaign, its recipients, the plan reservation and the campaign.launched event: one transaction
  const launchTransaction = () =>
    ctx.db.transaction(async (tx): Promise<Campaign | null> => {
      // first, before any other lock: no launch while the owner deletes the workspace
      await assertWorkspaceNotBeingDeleted(tx, workspaceId);
      if (!input.allowRepeat) {
        // the fingerprint's lock first (before any write): an identical launch that got it first has
        // committed its campaign by the time this one looks
        repeatOf = await lockLaunchFingerprint(tx, workspaceId, fingerprint, LAUNCH_REPEAT_WINDOW_MINUTES);
        if (repeatOf) return null;
      }
      // the one plan check (issue 12): this launch's messages are reserved in the period's meter inside
      // the launch's own transaction (concurrent launches never pass the limit; a launch that fails
      // after this gives nothing back by hand, its rollback does), sent in one pipeline with the campaign
      // row so the check costs no round trip of its own; a launch over the limit is refused whole (402)
      const [reserved, inserted] = await Promise.allSettled([
        reserveUsage(ctx, billingRow, rule.meter, queued, { tx, now: sendsAt }),
        insertCampaign(tx, {
          workspaceId,
          createdBy,
          name: input.name,
          channel: input.channel,
          status: queued === 0 ? "completed" : scheduled ? "scheduled" : "sending",
          content,
          source: csv.length
            ? "csv"
            : input.recipients.segmentId || input.audience?.segmentId
              ? "segment"
              : input.audience?.tagId
                ? "tag"
                : input.audience?.filter
                  ? "filter"
                  : "contacts",
          segmentId: input.recipients.segmentId ?? input.audience?.segmentId ?? null,
          scheduledAt: scheduled,
          meterPeriodStart: launchPeriodStart(billingRow, sendsAt),
          startedAt: scheduled ? null : now,
          completedAt: queued === 0 ? now : null,
          recipientCount: rows.length,
          segmentsPerMessage,
          launchToken: input.launchToken ?? null,
          launchFingerprint: fingerprint,
          // the skips that make no recipient row are kept with it for its report (unrecordedSkips)
          launchResult: { queued, skipped, unrecorded: unrecordedSkips(skipped, classified.rows) },
        }),
      ]);
      // the token's unique violation first: it says why this launch's reservation may have failed too
      if (inserted.status === "rejected" && isLaunchTokenConflict(inserted.reason)) throw inserted.reason;
      if (reserved.status === "rejected") throw reserved.reason;
      if (inserted.status === "rejected") throw inserted.reason;
      reservation = reserved.value;
      const c = inserted.value;
      queuedIds.push(...(await insertRecipients(tx, c, rows)));
      // campaign.launched with the campaign, in its transaction (the webhooks outbox); queued after the commit
      launched = await emitWebhookEvent({ db: tx, log: ctx.log }, workspaceId, "campaign.launched", {
        ...campaignEventBase(c),
        scheduled_at: c.scheduledAt?.toISOString() ?? null,
      });
      return c;
    });
  let campaign: Campaign | null;
  try {
    campaign = await launchTransaction();
  } catch (e) {
    // a concurrent launch with the same token committed first (this insert waited for it on the
    // unique index, or its reservation made this one's fail): answer its campaign, send nothing
    if (input.launchToken && (isLaunchTokenConflict(e) || e instanceof AppError)) {
      const repeated = await answerRepeatedLaunch(ctx, workspaceId, input.launchToken, input.channel, same);
      if (repeated) return repeated;
    }
    throw e;
  }
  // an identical launch made its campaign within the window: answer it, send nothing (another launch
  // token than this request's: another tab or draft, which the builder says)
  if (!campaign) {
    const prior = repeatOf as Campaign;
    return repeatAnswer(ctx, prior, !!input.launchToken && prior.launchToken !== input.launchToken);
  }
  await queueWebhookDeliveries(ctx, launched);
  if (reservation) await sendUsageWarningIfDue(ctx, reservation);
  if (queued > 0 && scheduled)
    await ctx.jobs.send(fanOutJob, { campaignId: campaign.id }, { startAfter: scheduled });
  else if (queued > 0) {
    // sending now: enqueue the send jobs here (what the fan-out job would do, without its queue
    // round trip and re-read of the rows; same deterministic job ids), then arm the watchdog
    await enqueueDue(
      ctx,
      campaign,
      queuedIds.sort((a, b) => a - b),
    );
    await ctx.jobs.send(watchCampaignJob, { campaignId: campaign.id });
  }
  // the answer reports the campaign as GET does: its status now and its recipients' real counts (queued
  // and skipped right after the launch, nothing sent yet), never empty counts read as "all done"
  const c = await selectCampaign(ctx.db, campaign.id);
  const [summary] = await summaries(ctx, [c ?? campaign]);
  return { campaign: summary as CampaignSummary, queued, skipped };
}

/**
 * Sends the email draft to the user's own address ("Test email sent to {email}", spec section 8), its
 * subject "[Test] " and the draft's filled in for the user as a campaign's (renderEmailFor), as one
 * header line (lib/email-subject emailSubjectLine).
 * At most TEST_EMAILS_PER_HOUR (lib/rate-limit) an hour while the account has not verified its
 * address (it may have signed up with a stranger's); a verified account is not limited.
 * @throws AppError BAD_REQUEST 'Please write subject and email body first'; BAD_REQUEST when
 * `testEmail` is another address (test sends only go to the signed-in user); TOO_MANY_REQUESTS
 * ('Too many test emails. Please try again in N minutes.') past an unverified account's hourly limit.
 */
export async function sendTestEmail(
  ctx: Ctx & Pick<AppContext, "limiters">,
  tenant: { workspaceId: string; userId: string },
  raw: unknown,
): Promise<{ email: string }> {
  const { workspaceId } = tenant;
  const input = parseInput(emailTestInput, raw);
  if (!input.subject.trim() || !input.body.trim())
    throw new AppError("BAD_REQUEST", "Please write subject and email body first");
  const user = (await getUserProfiles(ctx, [tenant.userId])).get(tenant.userId);
  if (!user) throw new AppError("UNAUTHORIZED", "Please sign in to continue");
  const sender = await getSenderProfile(ctx, workspaceId);
  if (input.testEmail && input.testEmail.trim().toLowerCase() !== user.email.toLowerCase())
    throw new AppError("BAD_REQUEST", "Test emails can only be sent to your own address");
  // the own address of an account that has not verified it may be anyone's: at most
  // TEST_EMAILS_PER_HOUR tests an hour until it is verified (lib/rate-limit testEmailUser); a verified
  // account mails only itself and may check its drafts as often as it likes
  if (!user.emailVerified) await consumeOrThrow(ctx.limiters.testEmailUser, tenant.userId, "test emails");
  const content: CampaignContent = {
    subject: input.subject,
    body: input.body,
    signature: user.preferences?.emailSignature ?? "",
    links: extractLinks(input.body),
    myBusiness: sender.businessName,
  };
  const tpl = await buildEmailTemplate(
    { content, channel: "email" },
    { appUrl: ctx.env.APP_URL, senderName: sender.businessName, postalAddress: sender.postalAddress },
  );
  const [first, ...rest] = user.name.trim().split(/\s+/);
  const sample = {
    first_name: first,
    last_name: rest.join(" "),
    email: user.email,
    company: user.businessName ?? "",
    phone: user.phone ?? "",
  };
  const m = renderEmailFor(tpl, content, sample, TEST_EMAIL_TOKEN, ctx.env);
  await ctx.providers.email.send({
    to: user.email,
    from: senderFrom(sender.businessName, ctx.env.EMAIL_FROM),
    // one header line with its "[Test] " (the cap counts it too)
    subject: emailSubjectLine(`[Test] ${m.subject}`),
    html: m.html,
    text: m.text,
    tag: "campaign-test",
    workspaceId,
  });
  return { email: user.email };
}

export interface CampaignSummary {
  id: number;
  name: string;
  channel: CampaignChannel;
  status: Campaign["status"];
  recipientCount: number;
  segmentsPerMessage: number;
  scheduledAt: Date | null;
  startedAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
  counts: Record<string, number>;
  /** recipients no longer queued or sending, 0..1 */
  progress: number;
  /**
   * why it was paused, null otherwise: the send engine's sentence when the plan no longer allowed it,
   * or a member's departure (campaigns.departure departurePauseReason); a pause by a person has none
   */
  pausedReason: string | null;
  /**
   * what paused it (campaigns.pause_cause, written by the pause itself): "plan" (the send engine, the
   * plan no longer allowing its messages) or "departure" (the member who launched it left while it
   * was scheduled); null when it is not paused or a person paused it
   */
  pauseCause: CampaignPauseCause | null;
  /**
   * the name of the person who launched it (campaigns.created_by: the signed-in user, or for a
   * launch through the public API the API key's creator; user.service displayNames: the name, else
   * the email, else 'A former member'), kept after they leave the workspace, as a
   * CRM keeps a former colleague's work signed; null when nobody is recorded (an account since
   * deleted)
   */
  launchedBy: string | null;
}

/**
 * `list` as CampaignSummary, in its order: their recipients' status counts in one read
 * (countRecipientsByStatus) and the names of the people who launched them (`createdBy`) in one read
 * of the users (user.service displayNames, none when no campaign records a person).
 */
async function summaries(ctx: Pick<AppContext, "db">, list: Campaign[]): Promise<CampaignSummary[]> {
  const [counts, names] = await Promise.all([
    statusCounts(
      ctx,
      list.map((c) => c.id),
    ),
    displayNames(
      ctx,
      list.map((c) => c.createdBy),
    ),
  ]);
  return list.map((c) => summarize(c, counts.get(c.id) ?? {}, names));
}

function summarize(c: Campaign, counts: Record<string, number>, names: Map<string, string>): CampaignSummary {
  const pending = (counts.queued ?? 0) + (counts.sending ?? 0);
  const total = c.recipientCount;
  return {
    id: c.id,
    name: c.name,
    channel: c.channel,
    status: c.status,
    recipientCount: total,
    segmentsPerMessage: c.segmentsPerMessage,
    scheduledAt: c.scheduledAt,
    startedAt: c.startedAt,
    completedAt: c.completedAt,
    createdAt: c.createdAt,
    counts,
    progress:
      total === 0
        ? 1
        : Object.keys(counts).length === 0 && c.status === "completed"
          ? 1
          : (total - pending) / total,
    pausedReason: c.status === "paused" ? (c.error ?? null) : null,
    // null unless paused: campaigns_pause_cause_ck allows a cause only on a paused campaign
    pauseCause: c.pauseCause,
    launchedBy: (c.createdBy && names.get(c.createdBy)) ?? null,
  };
}

async function statusCounts(ctx: Pick<AppContext, "db">, ids: number[]) {
  return countRecipientsByStatus(ctx.db, ids);
}

/**
 * The workspace's campaigns, newest first (at most `limit`, 500 max), with per-status counts,
 * progress and who launched each (`launchedBy`); `beforeId` starts after that campaign (cursor
 * pages of the public API).
 */
export async function listCampaigns(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  opts: { limit?: number; beforeId?: number } = {},
): Promise<CampaignSummary[]> {
  // keyset for cursor pages (public API): campaigns older than `beforeId` in list order
  const rows = await selectWorkspaceCampaigns(
    ctx.db,
    workspaceId,
    Math.min(opts.limit ?? 100, 500),
    opts.beforeId,
  );
  return summaries(ctx, rows);
}

async function ownCampaign(ctx: Pick<AppContext, "db">, workspaceId: string, id: number): Promise<Campaign> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("NOT_FOUND", "Campaign not found");
  const c = await selectWorkspaceCampaign(ctx.db, workspaceId, id);
  if (!c) throw new AppError("NOT_FOUND", "Campaign not found");
  return c;
}

/**
 * A campaign's headline figures, each counted from the recipients' rows (campaigns.queries
 * selectReportFigures), so they agree with the timeline and with what was handed to the provider:
 * a recipient is counted in every stage it reached (one who clicked and then replied is in clicked
 * and replied; an SMS sent and then undelivered is in sent and failed), not only in its latest status.
 */
export interface ReportFigures {
  /** handed to the provider (sent_at set) */
  sent: number;
  delivered: number;
  /** opened or clicked */
  opened: number;
  clicked: number;
  replied: number;
  bounced: number;
  /** failed at the provider or the carrier (a send error, undelivered, busy, no answer, a soft bounce) */
  failed: number;
  /**
   * of `failed`, emails a soft (temporary) bounce failed (Postmark SoftBounce, Transient, DnsError,
   * ...): the address was not suppressed and "resend to failed" tries them again
   */
  softBounced: number;
  /**
   * skipped at launch or at send time, in all: the recipients' skipped rows and the launch's skips
   * that made no recipient (a list's duplicate rows, rows with no valid email or phone, ids that are
   * no contact), so it is what the launch answered (campaigns.delivery reportSkipped)
   */
  skipped: number;
  /**
   * skipped per reason ("no email", "suppressed: unsubscribed", ...), most first; a reason of skips
   * that made no recipient ends with "(no recipient made, not in the recipients CSV)"
   */
  skippedReasons: { reason: string; count: number }[];
  /** cancelled before they were sent (not one who opted out meanwhile: that one is in `optedOut`) */
  cancelled: number;
  /**
   * queued or sending (including retries and quiet-hours deferrals waiting for their time), less those
   * who opted out while waiting (in `optedOut`: each recipient is counted once)
   */
  pending: number;
  /**
   * recipients who opted out from this campaign (unsubscribe link, STOP reply, spam complaint, a key
   * pressed during the call; campaign_recipients.opted_out_at), kept when they re-subscribe later (a
   * START), so a past campaign's report keeps what happened in it. One the send then skipped for the
   * opt-out is in `skipped` instead.
   */
  optedOut: number;
  /** calls: completed calls a person answered (Twilio AnsweredBy human) */
  answered: number;
  /** calls: completed calls an answering machine or voicemail picked up (AnsweredBy machine_*) */
  voicemail: number;
  /** calls: not answered (Twilio CallStatus no-answer); also in `failed` */
  noAnswer: number;
  /** calls: the line was busy (Twilio CallStatus busy); also in `failed` */
  busy: number;
  /**
   * calls: seconds of the completed calls (Twilio CallDuration, summed; calls a machine answered
   * included); 0 for other channels
   */
  talkSeconds: number;
}

/**
 * A campaign's report: summary, content, per-status counts, the headline figures (ReportFigures),
 * SMS totals (`totalSegments`: the segments of every message handed to the provider, a resent
 * message's earlier attempts included: the carrier bills each), and a timeline of sent / delivered / opened / clicked / replied / failed per time
 * bucket (`bucket`: minute up to 3 hours of activity, hour up to 3 days, day up to 400 days, then week;
 * empty buckets included as zeros; campaigns.queries selectReportTimeline), cut in IANA zone `timeZone`
 * (the viewer's, validated by campaignReportInput; UTC by default; the answer's `timeZone` is the zone
 * used). With the reader's `role` (the app's report), a campaign its
 * plan paused (`campaign.pauseCause` "plan"; not a departure's pause: the plan did not stop it) also
 * gets `pausedRefusal`: where more of its channel comes
 * from under the plan as it is now (pay or upgrade), with `actor_can_pay` for that reader (billing
 * campaignPlanRefusal; null when the plan now has no limit on it, or without `role`), so the report
 * links to Billing or /pricing, or tells a non-owner who can, without reading the sentence.
 * @throws AppError NOT_FOUND 'Campaign not found' (also for another user's campaign)
 */
export async function getCampaignReport(
  ctx: Pick<AppContext, "db" | "sql">,
  workspaceId: string,
  id: number,
  role?: WorkspaceRole,
  timeZone = "UTC",
) {
  const c = await ownCampaign(ctx, workspaceId, id);
  const [campaign] = (await summaries(ctx, [c])) as [CampaignSummary];
  const pausedRefusal =
    role && campaign.pauseCause === "plan" ? await campaignPlanRefusal(ctx, c, role) : null;
  const [timeline, { figures: f, skipped, segments }] = await Promise.all([
    selectReportTimeline(ctx.sql, c.id, timeZone),
    selectReportFigures(ctx.sql, c.id),
  ]);
  const { signature: _s, ...content } = c.content;
  // the recipients' skipped rows and the launch's skips that made no recipient (reportSkipped)
  const skips = reportSkipped(skipped, c.launchResult);
  const figures: ReportFigures = { ...f, skipped: skips.total, skippedReasons: skips.reasons };
  return {
    campaign,
    pausedRefusal,
    figures,
    content,
    totalSegments: segments,
    timeline: timeline.buckets.map((r) => ({ ...r, t: new Date(r.t).toISOString() })),
    bucket: timeline.unit,
    timeZone: timeline.timeZone,
  };
}

/**
 * One page of a campaign's recipients with contact names, optionally one status; each with its
 * event times, its latest SMS reply's text (`replyText`, attacker text: escape it), when it opted
 * out from this campaign (`optedOutAt`, kept after a later START) and, for a completed call, who
 * answered (`answeredBy`) and its length in seconds (`callSeconds`). @throws NOT_FOUND
 */
export async function listRecipients(ctx: Pick<AppContext, "db">, workspaceId: string, raw: unknown) {
  const q = parseInput(recipientsQuery, raw);
  const c = await ownCampaign(ctx, workspaceId, q.id);
  const { rows, total: n } = await selectRecipientPage(ctx.db, c.id, {
    status: q.status,
    limit: q.limit,
    offset: q.afterId !== undefined ? 0 : (q.page - 1) * q.limit,
    afterId: q.afterId,
  });
  const contacts = new Map(
    (
      await getContactsByIds(
        ctx,
        workspaceId,
        rows.flatMap((r) => (r.contactId === null ? [] : [r.contactId])),
      )
    ).map((x) => [x.id, x]),
  );
  return {
    recipients: rows.map((r) => {
      // contactId null: the contact was deleted after the launch (the row keeps its address)
      const ct = r.contactId === null ? undefined : contacts.get(r.contactId);
      return {
        id: r.id,
        contactId: r.contactId,
        // a business without a person's name is listed by its company (crm contactDisplayName)
        name: (ct && contactDisplayName(ct)) || r.address,
        address: r.address,
        status: r.status,
        reason: r.reason,
        attempts: r.attempts,
        segments: r.segments,
        segmentsSent: r.segmentsSent,
        sentAt: r.sentAt,
        deliveredAt: r.deliveredAt,
        openedAt: r.openedAt,
        clickedAt: r.clickedAt,
        repliedAt: r.repliedAt,
        /** the latest SMS reply's text, as the person sent it (escape it), or null */
        replyText: r.replyText,
        /** when they opted out from this campaign (kept after a later START), or null */
        optedOutAt: r.optedOutAt,
        /** a completed call's answerer (Twilio AnsweredBy: human, machine_start, ...), or null */
        answeredBy: r.answeredBy,
        /** a completed call's length in whole seconds (Twilio CallDuration), or null */
        callSeconds: r.callSeconds,
        notBefore: r.notBefore,
      };
    }),
    pagination: { page: q.page, pages: Math.max(1, Math.ceil(n / q.limit)), total: n },
  };
}

/** The event times a results CSV carries for each kind of channel: the ones that channel records. */
const RESULT_TIMES = {
  email: ["delivered_at", "opened_at", "clicked_at"],
  sms: ["delivered_at", "clicked_at", "replied_at"],
  voice: ["delivered_at"],
  voicemail: ["delivered_at"],
} as const;

/**
 * The columns a results CSV adds after the event times (added later than those: appended, so a
 * spreadsheet reading the earlier columns by position keeps working): SMS `reply_text`; calls
 * `answered_by`, `call_seconds`; then every channel `opted_out_at`.
 */
const RESULT_FACTS = {
  email: ["opted_out_at"],
  sms: ["reply_text", "opted_out_at"],
  voice: ["answered_by", "call_seconds", "opted_out_at"],
  voicemail: ["opted_out_at"],
} as const;

/**
 * The columns of a campaign's results CSV (exportRecipientsCsv), in order: `name`, the address
 * column (`email` for email and video email campaigns, `phone` for SMS, video SMS, call and
 * voicemail campaigns), `status`, `reason`, `sent_at`, then the event times the channel records:
 * email `delivered_at`, `opened_at`, `clicked_at`; SMS `delivered_at`, `clicked_at`, `replied_at`
 * (a video campaign's view counts as its click); calls and voicemail `delivered_at` (the call
 * completed, the drop delivered); then what else the channel records (RESULT_FACTS): an SMS's
 * `reply_text` (the latest reply's text), a call's `answered_by` (Twilio AnsweredBy: human,
 * machine_start, ...) and `call_seconds` (a completed call's length, Twilio CallDuration), and for
 * every channel `opted_out_at` (when the recipient opted out from this campaign, kept after a later
 * START).
 */
export function recipientCsvColumns(channel: CampaignChannel): string[] {
  const kind = deliveryKind(channel);
  return [
    "name",
    kind === "email" ? "email" : "phone",
    "status",
    "reason",
    "sent_at",
    ...RESULT_TIMES[kind],
    ...RESULT_FACTS[kind],
  ];
}

/** Recipients per query of the results CSV. */
const EXPORT_PAGE = 2000;

/**
 * Streams every recipient of the workspace's campaign `id` as CSV text chunks (the campaign report's
 * "Export CSV", REST GET /api/campaigns/{id}/recipients.csv): a UTF-8 BOM and the header
 * (recipientCsvColumns), then one CRLF line per recipient in send order: by recipient id, the order
 * the launch queued them and the send engine takes them (a recipient deferred by quiet hours or
 * retried keeps its place), as the report's recipients table and /api/v1's recipients list page them;
 * not by address or name, which would scatter the campaign's own order (Mailchimp's campaign report
 * export keeps its send order too). The recipients are the ones the campaign has when the export
 * starts, read 2,000 per query (campaigns.queries selectRecipientIdsInSendOrder, selectRecipientsByIds). `name` is the contact's first and last name (empty once the contact was
 * deleted: the row keeps its address); the address is the one the campaign used; `reason` the
 * skip, failure or deferral reason; times are ISO 8601 UTC, empty when the event did not happen;
 * `reply_text`, `answered_by` and `call_seconds` (whole seconds) are empty when unknown.
 * Every cell is formula-safe (lib/csv CSV_FORMULA_ESCAPE, as the contacts export): a reply text
 * starting with = + - @ comes out with a leading apostrophe, as text.
 * The first chunk is produced only after the campaign was found, so a caller that awaits it before
 * answering can still answer 404. @throws AppError NOT_FOUND 'Campaign not found' (also for another
 * workspace's campaign or an invalid id).
 */
export async function* exportRecipientsCsv(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  id: number,
): AsyncGenerator<string> {
  const c = await ownCampaign(ctx, workspaceId, id);
  const columns = recipientCsvColumns(c.channel);
  const times = RESULT_TIMES[deliveryKind(c.channel)] as readonly string[];
  const facts = RESULT_FACTS[deliveryKind(c.channel)] as readonly string[];
  const iso = (d: Date | null) => (d ? d.toISOString() : "");
  yield `\uFEFF${Papa.unparse([columns])}\r\n`;
  const ids = await selectRecipientIdsInSendOrder(ctx.db, workspaceId, c.id);
  for (let start = 0; start < ids.length; start += EXPORT_PAGE) {
    const rows = await selectRecipientsByIds(
      ctx.db,
      workspaceId,
      c.id,
      ids.slice(start, start + EXPORT_PAGE),
    );
    if (rows.length === 0) continue;
    const names = new Map(
      (
        await getContactsByIds(
          ctx,
          workspaceId,
          rows.flatMap((r) => (r.contactId === null ? [] : [r.contactId])),
        )
      ).map((x) => [x.id, [x.firstName, x.lastName].filter(Boolean).join(" ")]),
    );
    const data = rows.map((r) => {
      const at: Record<string, string> = {
        delivered_at: iso(r.deliveredAt),
        opened_at: iso(r.openedAt),
        clicked_at: iso(r.clickedAt),
        replied_at: iso(r.repliedAt),
      };
      const fact: Record<string, string | number> = {
        reply_text: r.replyText ?? "",
        answered_by: r.answeredBy ?? "",
        call_seconds: r.callSeconds ?? "",
        opted_out_at: iso(r.optedOutAt),
      };
      return [
        r.contactId === null ? "" : (names.get(r.contactId) ?? ""),
        r.address,
        r.status,
        r.reason ?? "",
        iso(r.sentAt),
        ...times.map((t) => at[t] ?? ""),
        ...facts.map((f) => fact[f] ?? ""),
      ];
    });
    yield `${Papa.unparse(data, { newline: "\r\n", escapeFormulae: CSV_FORMULA_ESCAPE })}\r\n`;
  }
}

/**
 * The 409 (or 404) for a state change whose compare-and-set matched nothing: the campaign is re-read
 * and the sentence names the status it has now, e.g. "A cancelled campaign cannot be paused" when a
 * cancel won the race. @throws AppError NOT_FOUND, CONFLICT (always throws)
 */
async function refuseTransition(
  ctx: Pick<AppContext, "db">,
  workspaceId: string,
  id: number,
  verb: string,
): Promise<never> {
  const c = await ownCampaign(ctx, workspaceId, id);
  throw new AppError("CONFLICT", `A ${c.status} campaign cannot be ${verb}`);
}

function assertCampaignId(id: number) {
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("NOT_FOUND", "Campaign not found");
}

/** How long a pause or cancel waits for the rows a send engine already holds (settleClaims), ms. */
export const SETTLE_CLAIMS_MS = 15_000;

/**
 * Waits, after a pause or cancel committed, until no send engine holds rows of the workspace's campaign `id`
 * (campaigns.queries countLiveClaims; polled every 25 ms, at most SETTLE_CLAIMS_MS), so that its 200
 * means what the screen says: nothing of the campaign goes out after it. A part reads the campaign's
 * status after its throttle wait and then screens and hands its rows to the provider: a pause or
 * cancel landing between that read and the hand-over used to answer 200 while that part still went
 * out (campaign-cancel-in-flight, under load: 5 messages after the cancel). Held rows end within
 * about one part: sent or failed when the part was past its status check, else released at the next
 * check. Returns how many rows were still held when it stopped waiting (0 normally; a worker that
 * died holding rows keeps them until their lease lapses, CAMPAIGN_SEND_LEASE_SECONDS), logged.
 */
async function settleClaims(ctx: Ctx, workspaceId: string, id: number): Promise<number> {
  const until = Date.now() + SETTLE_CLAIMS_MS;
  for (;;) {
    const held = await countLiveClaims(ctx.sql, workspaceId, id);
    if (held === 0) return 0;
    if (Date.now() >= until) {
      ctx.log?.warn({ campaignId: id, held }, "campaign stopped while rows were still held by a send engine");
      return held;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Pauses a sending or scheduled campaign: queued recipients wait, and the answer comes once no part
 * of it is on its way to the provider (settleClaims): nothing goes out after the 200. One
 * compare-and-set UPDATE (campaigns.queries pauseCampaignRow): of concurrent pauses one wins, and a
 * cancel that got there first stays. @throws NOT_FOUND, CONFLICT ('A cancelled campaign cannot be paused')
 */
export async function pauseCampaign(ctx: Ctx, workspaceId: string, id: number) {
  assertCampaignId(id);
  const c = await pauseCampaignRow(ctx.db, workspaceId, id);
  if (!c) return refuseTransition(ctx, workspaceId, id, "paused");
  await settleClaims(ctx, workspaceId, id);
  return { status: "paused" as const };
}

/** Queues the fan-out of a campaign that just began a sending round (resume, resend failed). */
async function fanOutNow(ctx: Ctx, c: Campaign) {
  await ctx.jobs.send(fanOutJob, { campaignId: c.id });
}

/**
 * What a refused resume ends with, by what the plan's refusal says gets more (billing.plans
 * PlanRefusal `action`): an upgrade, the held plan's payment (not an upgrade to the plan it has), or
 * neither (the top plan's monthly limit: it resets with the next billing period).
 */
const RESUME_AFTER: Record<"pay" | "upgrade" | "none", string> = {
  upgrade: "Upgrade to resume this campaign, or cancel it.",
  pay: "Once it is paid, resume this campaign, or cancel it.",
  none: "Resume this campaign when the next billing period starts, or cancel it.",
};

/**
 * Resumes a paused campaign with one compare-and-set UPDATE (campaigns.queries resumeCampaignRow), so
 * of concurrent resumes exactly one starts a round and a cancel that got there first stays. A
 * campaign whose scheduled time is still ahead goes back to `scheduled` and its fan-out is queued for
 * that time (nothing is sent before it); otherwise it is `sending` in a new round at once. Returns the
 * status it now has. A campaign the workspace's plan no longer allows (billing campaignPlanStop: a
 * downgrade since its launch) is not resumed.
 * @throws NOT_FOUND, CONFLICT ('A sending campaign cannot be resumed'), PAYMENT_REQUIRED (the plan's
 *   sentence; details `planRefusal`, billing.plans PlanRefusal)
 */
export async function resumeCampaign(
  ctx: Ctx,
  workspaceId: string,
  id: number,
): Promise<{ status: "sending" | "scheduled" }> {
  assertCampaignId(id);
  // a campaign the plan stopped (a downgrade) resumes only once the plan allows it again
  const own = await ownCampaign(ctx, workspaceId, id);
  if (own.status === "paused") {
    const stop = await campaignPlanStop(ctx, launchOf(own), await countQueuedOrSending(ctx.sql, own.id));
    if (stop)
      throw new AppError("PAYMENT_REQUIRED", `${stop.sentence} ${RESUME_AFTER[stop.refusal.action]}`, {
        planRefusal: stop.refusal,
      });
  }
  const c = await resumeCampaignRow(ctx.db, workspaceId, id);
  if (!c) return refuseTransition(ctx, workspaceId, id, "resumed");
  if (c.status === "scheduled" && c.scheduledAt) {
    // the fan-out job of the launch may still be waiting for this time too: whichever runs first
    // starts the campaign (compare-and-set), the other finds it sending and enqueues nothing new
    await ctx.jobs.send(fanOutJob, { campaignId: c.id }, { startAfter: c.scheduledAt });
    return { status: "scheduled" };
  }
  await fanOutNow(ctx, c);
  return { status: "sending" };
}

/** How far ahead a campaign may be rescheduled to: a minute (a time sooner is "Send now"'s). */
const RESCHEDULE_MIN_AHEAD_MS = 60_000;

/**
 * Moves a scheduled campaign's send time (tRPC `campaigns.reschedule`, the report's Reschedule) to
 * `scheduledAt`, which must be at least a minute ahead and at most SCHEDULE_MAX_AHEAD_DAYS ahead
 * (campaigns.schemas rescheduleInput). Only a campaign that is still `scheduled` moves (not one that
 * started, was paused or cancelled), in one transaction holding its row (campaigns.queries
 * rescheduleCampaignRow), so it never races its start. Its unsent messages' plan units move to the
 * billing period of the new time when that is another one, under that period's limit (billing
 * moveScheduledReservation: a launch for that time would be refused the same way). A fan-out job is
 * queued for the new time; the launch's job, still waiting for the old one, finds the campaign not
 * due yet (a later time) or already sending (an earlier one) and sends nothing twice. The move stores
 * the webhook event `campaign.rescheduled` in its transaction (the campaign as campaign.launched gives
 * it, with `scheduled_at` the new time and `previous_scheduled_at` the old one, ISO 8601 UTC; its
 * deliveries queued after the commit). A move to the time the campaign already has changes nothing
 * and stores no event (answered as a move). Called by tRPC `campaigns.reschedule` and v1
 * `POST /campaigns/{id}/reschedule`.
 * @throws AppError BAD_REQUEST (the time is not ahead: 'Please pick a time in the future ...', param
 *   `scheduledAt`; not a
 *   date; over a year ahead), NOT_FOUND, CONFLICT ('A sending campaign cannot be rescheduled'; the
 *   workspace being deleted), PAYMENT_REQUIRED (the new period's meter is full: the plan's sentence)
 */
export async function rescheduleCampaign(
  ctx: Ctx,
  workspaceId: string,
  raw: unknown,
): Promise<{ status: "scheduled"; scheduledAt: Date }> {
  const input = parseInput(rescheduleInput, raw);
  assertCampaignId(input.id);
  const at = input.scheduledAt;
  if (at.getTime() < Date.now() + RESCHEDULE_MIN_AHEAD_MS)
    throw new AppError(
      "BAD_REQUEST",
      "Please pick a time in the future, at least a minute from now, to reschedule the campaign to.",
      { param: "scheduledAt" },
    );
  const own = await ownCampaign(ctx, workspaceId, input.id);
  // a scheduled campaign sends nothing before its time: its queued rows are all its unsent units
  const unsent = await countQueuedOrSending(ctx.sql, own.id);
  // a lapsed plan's fallback to Free is written here, on the pool, before the transaction holds the
  // workspace row FOR SHARE (billing loadBillingWorkspace only applies it in a transaction: two
  // reschedules both writing it there deadlocked)
  await loadBillingWorkspace(ctx, workspaceId);
  let reservation: Reservation | undefined;
  let rescheduled: WebhookEmit = NO_WEBHOOK_EMIT;
  // the time it already has (a dialog saved unchanged, a client's retry): nothing moves, so no event,
  // and the fan-out job already waiting for that time stands
  const unchanged = (c: { scheduledAt: Date | null }) => c.scheduledAt?.getTime() === at.getTime();
  const r = await rescheduleCampaignRow(
    ctx.db,
    workspaceId,
    own.id,
    at,
    async (tx, c) => {
      await assertWorkspaceNotBeingDeleted(tx, workspaceId);
      const moved = await moveScheduledReservation(ctx, launchOf(c), unsent, at, tx);
      reservation = moved.reservation;
      return moved.periodStart;
    },
    async (tx, before, after) => {
      if (unchanged(before)) return;
      // with the move, in its transaction (the webhooks outbox); queued after the commit
      rescheduled = await emitWebhookEvent({ db: tx, log: ctx.log }, workspaceId, "campaign.rescheduled", {
        ...campaignEventBase(after),
        scheduled_at: at.toISOString(),
        previous_scheduled_at: before.scheduledAt?.toISOString() ?? null,
      });
    },
  );
  if (!r.before) throw new AppError("NOT_FOUND", "Campaign not found");
  if (!r.after) throw new AppError("CONFLICT", `A ${r.before.status} campaign cannot be rescheduled`);
  await queueWebhookDeliveries(ctx, rescheduled);
  if (reservation) await sendUsageWarningIfDue(ctx, reservation);
  if (!unchanged(r.before)) await ctx.jobs.send(fanOutJob, { campaignId: own.id }, { startAfter: at });
  return { status: "scheduled", scheduledAt: at };
}

/**
 * Cancels a campaign: queued recipients become cancelled, and the answer comes once no part of it is
 * on its way to the provider (settleClaims: sends already handed over finish, claimed rows not yet
 * handed over end cancelled): nothing goes out after the 200. A compare-and-set from any unfinished
 * status, in one transaction with the recipients (campaigns.queries cancelCampaignRows): it wins over
 * a concurrent pause or resume.
 * @throws NOT_FOUND, CONFLICT ('A completed campaign cannot be cancelled')
 */
export async function cancelCampaign(ctx: Ctx, workspaceId: string, id: number) {
  assertCampaignId(id);
  const c = await cancelCampaignRows(ctx.db, workspaceId, id);
  if (!c) return refuseTransition(ctx, workspaceId, id, "cancelled");
  // the cancelled recipients' launch units go back to the plan's meter (nothing was sent to them)
  await releaseCampaignUsage(ctx, launchOf(c.campaign), c.cancelledRecipients);
  await settleClaims(ctx, workspaceId, id);
  return { status: "cancelled" as const };
}

/**
 * Voicemail audio built before it was kept per workspace: `voicemail-notice/<campaign id>-<media
 * id>-<hash>.mp3`, directly in the folder (voicemailAudioWithNotice now writes under
 * voicemailNoticePrefix). Nothing reads these any more (a drop builds its audio again under the new
 * key); a workspace's deletion removes those of its campaigns.
 */
const LEGACY_VOICEMAIL_AUDIO = /^voicemail-notice\/(\d+)-\d+-[0-9a-f]{24}\.mp3$/;

/**
 * Before a workspace is deleted (features/account): cancels each of its unfinished campaigns as
 * cancelCampaign does, one after another, each answering once no part of it is on its way to a
 * provider (settleClaims), so nothing is sent for the workspace once its deletion goes ahead; a
 * campaign that finished meanwhile is left as it is. Returns the clean-up to run once the
 * workspace's rows are gone: it deletes the campaigns' stored files (ringless voicemail audio built
 * with its opt-out notice, under voicemailNoticePrefix, and the audio of its voicemail campaigns
 * built before that folder existed: LEGACY_VOICEMAIL_AUDIO) and logs, not throws, a storage failure.
 */
export async function stopCampaignsForDeletion(ctx: Ctx, workspaceId: string): Promise<() => Promise<void>> {
  for (const id of await selectCancellableCampaignIds(ctx.db, workspaceId)) {
    try {
      await cancelCampaign(ctx, workspaceId, id);
    } catch (e) {
      // finished, cancelled or gone between the read and the cancel: nothing more goes out
      if (!(e instanceof AppError && (e.code === "CONFLICT" || e.code === "NOT_FOUND"))) throw e;
    }
  }
  // read now: the campaign rows go with the workspace
  const voicemailIds = new Set(
    (await selectWorkspaceCampaignIds(ctx.db, workspaceId, "voicemail")).map(String),
  );
  return async () => {
    const { storage } = ctx.providers;
    try {
      await storage.deletePrefix(voicemailNoticePrefix(workspaceId));
      if (voicemailIds.size > 0)
        for (const key of await storage.listFolder("voicemail-notice")) {
          const campaignId = LEGACY_VOICEMAIL_AUDIO.exec(key)?.[1];
          if (campaignId && voicemailIds.has(campaignId)) await storage.delete(key);
        }
    } catch (err) {
      ctx.log?.warn({ err, workspaceId }, "a deleted workspace's voicemail audio was not removed");
    }
  };
}

/**
 * "Resend to failed only": failed recipients are queued again; a campaign that is not paused or
 * scheduled begins a new round now (a paused one sends them when resumed, a scheduled one at its
 * time). One transaction holding the campaign row (campaigns.queries resendFailedRows), so two
 * concurrent requests requeue once and a concurrent cancel is never undone.
 * @throws NOT_FOUND, CONFLICT ('A cancelled campaign cannot be resent', 'No failed recipients to resend',
 *   the workspace being deleted: workspaces assertWorkspaceNotBeingDeleted)
 */
export async function resendFailed(ctx: Ctx, workspaceId: string, id: number) {
  assertCampaignId(id);
  // the failed messages gave their units back when they failed: sending them again reserves them
  // again, in the requeue's transaction (402 with the plan's sentence, nothing requeued)
  let reservation: Reservation | undefined;
  // a lapsed plan's fallback to Free is written here, on the pool, before the transaction holds the
  // workspace row FOR SHARE (billing loadBillingWorkspace only applies it in a transaction: two
  // resends both writing it there deadlocked)
  await loadBillingWorkspace(ctx, workspaceId);
  const r = await resendFailedRows(ctx.db, workspaceId, id, async (tx, c, n) => {
    await assertWorkspaceNotBeingDeleted(tx, workspaceId);
    // the plan read in this transaction too (one pooled connection per resend; the fallback to Free
    // is applied there, not written: billing loadBillingWorkspace)
    const inTx = { ...ctx, db: tx as Ctx["db"] };
    const rule = planRuleOfChannel(c.channel);
    reservation = await reserveUsage(inTx, workspaceId, rule.meter, n, { tx, feature: rule.feature });
    // reserved in the current period: when the campaign's other unsent messages are reserved in
    // another one (launched in an earlier period), they move here too, so one period holds them all
    const metering = launchOf(c);
    // counted in this transaction (not on another pooled connection: a resend holds one connection,
    // so concurrent resends cannot take the whole pool and wait on each other); it sees the rows just
    // requeued, which are the `n` reserved above, not others
    const others = (await countPendingRecipients(tx, c.id)) - n;
    const period = await moveCampaignReservation(inTx, metering, others, tx);
    if (c.meterPeriodStart?.getTime() !== period.getTime()) await setCampaignMeterPeriod(tx, c.id, period);
  });
  if (reservation) await sendUsageWarningIfDue(ctx, reservation);
  if (!r.before) throw new AppError("NOT_FOUND", "Campaign not found");
  if (r.before.status === "cancelled")
    throw new AppError("CONFLICT", "A cancelled campaign cannot be resent");
  if (r.requeued === 0) throw new AppError("CONFLICT", "No failed recipients to resend");
  if (r.restarted) await fanOutNow(ctx, r.restarted);
  return { requeued: r.requeued };
}
