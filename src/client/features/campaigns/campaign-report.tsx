import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { BarChart3, Download, Megaphone } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button, buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Progress } from "@/client/components/ui/progress";
import { Skeleton } from "@/client/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/client/components/ui/table";
import { PlanRefusalLink } from "@/client/features/billing/plan-refusal";
import { withShownWorkspace } from "@/client/features/workspaces/shown-workspace";
import { errorMessage } from "@/client/lib/errors";
import { rescueFocusWhenGone } from "@/client/lib/focus-rescue";
import { plural } from "@/client/lib/format";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import { CHANNEL_LABELS, type RecipientRow } from "./api";
import { channelKind, figureCards, outcomeLine, timelineLines } from "./report-figures";
import { sentAtLabel, timelineLabels, viewerTimeZone } from "./report-time";
import { RescheduleAction } from "./reschedule";
import { VideoEngagement } from "./video-engagement";

const STATUS_ORDER: RecipientRow["status"][] = [
  "queued",
  "sending",
  "sent",
  "delivered",
  "opened",
  "clicked",
  "replied",
  "bounced",
  "failed",
  "skipped",
  "cancelled",
];

export function StatusBadge({ status }: { status: string }) {
  const variant =
    status === "completed" || status === "sent" || status === "delivered"
      ? "default"
      : status === "failed" || status === "bounced" || status === "cancelled"
        ? "destructive"
        : "secondary";
  return <Badge variant={variant as "default"}>{status}</Badge>;
}

function pct(n: number) {
  return `${Math.round(n * 100)}%`;
}

const SCHEDULE_FORMAT: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZoneName: "short",
};

/**
 * When a scheduled campaign sends ("sends Dec 1, 2026, 3:00 PM UTC"), in the viewer's time with its
 * zone named. A paused campaign whose scheduled time is still ahead (`now`) goes back to waiting for
 * it when resumed (campaigns.service resumeCampaign), so it says "sends ... once resumed": the pause's
 * reason tells the owner to resume it "to send it as scheduled", and this is the time it means. ""
 * for a campaign that is not waiting for a time.
 */
export function scheduleNote(
  c: { status: string; scheduledAt: Date | string | null },
  now: number = Date.now(),
): string {
  if (!c.scheduledAt) return "";
  const at = new Date(c.scheduledAt);
  const when = at.toLocaleString([], SCHEDULE_FORMAT);
  if (c.status === "scheduled") return `sends ${when}`;
  if (c.status === "paused" && at.getTime() > now) return `sends ${when} once resumed`;
  return "";
}

/** The reasons that already say a recipient opted out (campaigns.events: unsubscribed, complained). */
const OPT_OUT_REASONS = new Set(["unsubscribed", "spam complaint"]);

/**
 * The recipients table's Reason cell: the row's reason (skip, failure, deferral), and for a queued
 * row that waits (`notBefore`: quiet hours, a retry after a provider error) when it will be sent, in
 * the viewer's local time. A deferral always has a reason, so the time must not replace it. A
 * recipient who opted out from this campaign (`optedOutAt`) reads "opted out" even when a later START
 * cleared the reason: the campaign's report keeps what happened in it (a skip names its own cause).
 */
export function recipientNote(
  r: Pick<RecipientRow, "status" | "reason" | "notBefore"> & Partial<Pick<RecipientRow, "optedOutAt">>,
): string {
  const waiting =
    r.status === "queued" && r.notBefore ? `waiting until ${new Date(r.notBefore).toLocaleString()}` : "";
  const optedOut =
    r.optedOutAt && r.status !== "skipped" && !OPT_OUT_REASONS.has(r.reason ?? "") ? "opted out" : "";
  return [r.reason, optedOut, waiting].filter(Boolean).join(" · ");
}

/** Characters of a reply shown before it folds into "Show the whole reply". */
const REPLY_PREVIEW = 140;

/**
 * A recipient's SMS reply in the recipients table, as the person wrote it (rendered as text: React
 * escapes it, it is never HTML). A long reply shows its start, and the whole text in a <details>
 * disclosure (opened with Enter or Space, announced as expandable).
 */
export function RecipientReply({ text }: { text: string }) {
  if (text.length <= REPLY_PREVIEW)
    return (
      <p
        className="mt-1 max-w-sm whitespace-pre-wrap break-words text-foreground"
        data-testid="recipient-reply"
      >
        <span className="font-medium">Replied: </span>“{text}”
      </p>
    );
  return (
    <details className="mt-1 max-w-sm text-foreground" data-testid="recipient-reply">
      <summary className="cursor-pointer rounded-sm break-words outline-none focus-visible:ring-2 focus-visible:ring-ring">
        <span className="font-medium">Replied: </span>“{text.slice(0, REPLY_PREVIEW).trimEnd()}…”
        <span className="sr-only"> (show the whole reply)</span>
      </summary>
      <p className="mt-1 whitespace-pre-wrap break-words">{text}</p>
    </details>
  );
}

/**
 * A recipient's name: a link to their contact page, or plain text once the contact was deleted
 * (`contactId` null: the recipient stays in the report, the page does not exist).
 */
export function RecipientName({ contactId, name }: { contactId: number | null; name: string | null }) {
  if (contactId === null) return <span>{name}</span>;
  return (
    <Link
      to="/contacts/$id"
      params={{ id: String(contactId) }}
      className="underline-offset-4 hover:underline"
    >
      {name}
    </Link>
  );
}

/**
 * A recipient's Sent time: the time alone today, else with the date ("Nov 28, 8:42 AM"), in the
 * viewer's zone; the full date, time and zone as its tooltip and for screen readers (sentAtLabel).
 */
export function SentAt({ at }: { at: string | Date }) {
  const { short, full } = sentAtLabel(at);
  return (
    <time dateTime={new Date(at).toISOString()} title={full} data-testid="recipient-sent-at">
      <span aria-hidden>{short}</span>
      <span className="sr-only">{full}</span>
    </time>
  );
}

/** The timeline's points with their axis label (`tick`) and tooltip title (`full`): timelineLabels. */
function chartData<T extends { t: string }>(
  timeline: T[],
  bucket: Parameters<typeof timelineLabels>[1],
  timeZone: string,
) {
  const labels = timelineLabels(
    timeline.map((p) => p.t),
    bucket,
    timeZone,
  );
  return timeline.map((p, i) => ({ ...p, ...labels[i] }));
}

/** All the user's campaigns with live progress (polls while any is sending). */
export function CampaignList() {
  const trpc = useTRPC();
  const { data, isLoading } = useQuery({
    ...trpc.campaigns.list.queryOptions(),
    refetchInterval: (q) =>
      q.state.data?.some((c) => c.status === "sending" || c.status === "scheduled") ? 2000 : false,
  });
  if (isLoading) return <Skeleton className="h-48 w-full" />;
  if (!data?.length)
    return (
      <EmptyState
        icon={Megaphone}
        title="No campaigns yet"
        description="Launch an email, SMS, call or voicemail campaign and follow it here."
        action={
          <Link to="/email-campaign" className={buttonVariants()}>
            New email campaign
          </Link>
        }
      />
    );
  return (
    <div className="overflow-x-auto rounded-lg border">
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>Name</TableHead>
            <TableHead>Channel</TableHead>
            <TableHead>Status</TableHead>
            <TableHead className="w-48">Progress</TableHead>
            <TableHead>Recipients</TableHead>
            <TableHead>Created</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {data.map((c) => (
            <TableRow key={c.id}>
              <TableCell>
                <Link
                  to="/campaigns/$id"
                  params={{ id: String(c.id) }}
                  className="font-medium underline-offset-4 hover:underline"
                >
                  {c.name}
                </Link>
              </TableCell>
              <TableCell>{CHANNEL_LABELS[c.channel]}</TableCell>
              <TableCell>
                <StatusBadge status={c.status} />
                {scheduleNote(c) && (
                  <span className="mt-1 block text-xs text-muted-foreground">{scheduleNote(c)}</span>
                )}
                {c.pausedReason && (
                  <span className="mt-1 block text-xs text-muted-foreground" title={c.pausedReason}>
                    {c.pauseCause === "departure" ? "its launcher left" : "by your plan"}
                  </span>
                )}
              </TableCell>
              <TableCell>
                <Progress value={c.progress * 100} aria-label={`${c.name} progress`} />
              </TableCell>
              <TableCell>{c.recipientCount}</TableCell>
              <TableCell>
                {new Date(c.createdAt).toLocaleString()}
                {c.launchedBy && (
                  <span className="mt-1 block text-xs text-muted-foreground">by {c.launchedBy}</span>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}

/**
 * A campaign report: live progress bar while sending (polls every 2 s, then every 30 s for the events
 * that follow the sends), per-status counts, the headline figures the channel records (an email's
 * opens and clicks, a text's clicks and replies, a call's answers, voicemails, no answers, busy lines
 * and talk time, a voicemail drop's deliveries: report-figures) and their chart over time, recipients
 * table with status, reason and an SMS reply's text, an "Export CSV"
 * link (GET /api/campaigns/{id}/recipients.csv: every recipient), and pause / resume / cancel /
 * resend-failed actions.
 */
export function CampaignReport({ id }: { id: number }) {
  const qc = useQueryClient();
  const trpc = useTRPC();
  const campaigns = useTRPCClient().campaigns;
  const [filter, setFilter] = useState<RecipientRow["status"] | undefined>();
  const [page, setPage] = useState(1);
  const [confirmCancel, setConfirmCancel] = useState(false);
  // where focus goes when Cancel (and with it the other actions) leaves the page: the status line
  const statusLine = useRef<HTMLDivElement>(null);
  const report = useQuery({
    // the viewer's zone: the timeline's hours and days are cut where they are (a half-hour zone's hours)
    ...trpc.campaigns.report.queryOptions({ id, timeZone: viewerTimeZone() }),
    // every 2 s while it sends; after that every 30 s while the page is open: deliveries, bounces,
    // opens, clicks and replies keep arriving after the last message went out
    refetchInterval: (q) => {
      const s = q.state.data?.campaign.status;
      return s === "sending" || s === "scheduled" ? 2000 : 30_000;
    },
  });
  const recipients = useQuery(
    trpc.campaigns.recipients.queryOptions({ id, page, limit: 50, status: filter }),
  );
  // the recipients page follows the report's live counts (a sending campaign changes rows' statuses)
  const countsKey = JSON.stringify(report.data?.campaign.counts ?? null);
  const refetchRecipients = recipients.refetch;
  useEffect(() => {
    if (countsKey !== "null") void refetchRecipients();
  }, [countsKey, refetchRecipients]);
  const action = useMutation({
    mutationFn: async (a: "pause" | "resume" | "cancel" | "resend-failed"): Promise<unknown> =>
      a === "pause"
        ? campaigns.pause.mutate({ id })
        : a === "resume"
          ? campaigns.resume.mutate({ id })
          : a === "cancel"
            ? campaigns.cancel.mutate({ id })
            : campaigns.resendFailed.mutate({ id }),
    onSuccess: () => void qc.invalidateQueries(trpc.campaigns.pathFilter()),
    onError: (e) => toast.error(errorMessage(e, "Action failed")),
  });

  /**
   * Runs Pause, Resume or Resend to failed pressed on `opener`: the button goes (Pause becomes
   * Resume) once the report refetches, and focus that it took along goes to the status line, which
   * reads the new status, instead of the page's top.
   */
  const act = (a: "pause" | "resume" | "resend-failed", opener: HTMLElement) => {
    rescueFocusWhenGone(opener, () => statusLine.current);
    action.mutate(a);
  };

  if (report.isLoading) return <Skeleton className="h-64 w-full" />;
  if (report.isError || !report.data)
    return <AlertBanner variant="error">{errorMessage(report.error, "Campaign not found")}</AlertBanner>;
  const { campaign, pausedRefusal, content, timeline, figures } = report.data;
  const counts = campaign.counts;
  // every stage a recipient reached, counted by the server from the rows (not its latest status
  // only), as the channel records them: a call's outcomes, not opens (report-figures)
  const cards = figureCards(campaign.channel, figures, campaign.recipientCount);
  const takesReplies = channelKind(campaign.channel) === "sms";

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <div
          ref={statusLine}
          tabIndex={-1}
          data-testid="campaign-status-line"
          className="flex flex-wrap items-center gap-3 rounded-md outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <StatusBadge status={campaign.status} />
          <span className="text-sm text-muted-foreground">
            {CHANNEL_LABELS[campaign.channel]} · {plural(campaign.recipientCount, "recipient")}
            {campaign.channel === "sms" ? ` · ${plural(report.data.totalSegments, "segment")} sent` : ""}
            {scheduleNote(campaign) ? ` · ${scheduleNote(campaign)}` : ""}
            {campaign.launchedBy ? ` · Launched by ${campaign.launchedBy}` : ""}
          </span>
        </div>
        <div className="ml-auto flex flex-wrap gap-2">
          {/* every recipient with status, reason and event times (REST, streamed by the server) */}
          <Button variant="outline" asChild>
            <a href={withShownWorkspace(`/api/campaigns/${campaign.id}/recipients.csv`)} download>
              <Download aria-hidden /> Export CSV
            </a>
          </Button>
          {(campaign.status === "sending" || campaign.status === "scheduled") && (
            <Button
              variant="outline"
              onClick={(e) => act("pause", e.currentTarget)}
              disabled={action.isPending}
            >
              Pause
            </Button>
          )}
          {campaign.status === "scheduled" && campaign.scheduledAt && (
            <RescheduleAction id={campaign.id} scheduledAt={campaign.scheduledAt} />
          )}
          {campaign.status === "paused" && (
            <Button
              variant="outline"
              onClick={(e) => act("resume", e.currentTarget)}
              disabled={action.isPending}
            >
              Resume
            </Button>
          )}
          {(counts.failed ?? 0) > 0 && campaign.status !== "cancelled" && (
            <Button
              variant="outline"
              onClick={(e) => act("resend-failed", e.currentTarget)}
              disabled={action.isPending}
            >
              Resend to failed
            </Button>
          )}
          {!["completed", "cancelled"].includes(campaign.status) && (
            <Button variant="destructive" onClick={() => setConfirmCancel(true)} disabled={action.isPending}>
              Cancel
            </Button>
          )}
        </div>
      </div>
      <ConfirmDialog
        open={confirmCancel}
        onOpenChange={setConfirmCancel}
        title={`Cancel the campaign "${campaign.name}"?`}
        description="Queued messages will not be sent. Messages already sent stay in the report. This cannot be undone."
        confirmLabel="Cancel campaign"
        cancelLabel="Keep campaign"
        onConfirm={() => action.mutate("cancel")}
        focusAfterConfirm={() => statusLine.current}
      />
      {campaign.pausedReason && (
        <AlertBanner
          variant="warning"
          title={
            campaign.pauseCause === "departure"
              ? "Paused: its launcher left the workspace"
              : "Paused by your plan"
          }
        >
          <p>{campaign.pausedReason}</p>
          {/* the server's decision for the plan as it is now: pay in Billing (a plan held by an unpaid
              or paused subscription), upgrade on /pricing, or for an admin or member, ask the owner */}
          {pausedRefusal && pausedRefusal.action !== "none" && (
            <div className="mt-2">
              <PlanRefusalLink
                refusal={pausedRefusal}
                className={buttonVariants({ variant: "outline", size: "sm" })}
              />
            </div>
          )}
        </AlertBanner>
      )}
      <Card>
        <CardContent className="space-y-2 p-6">
          <div className="flex justify-between text-sm">
            <span>{campaign.status === "sending" ? "Sending..." : "Progress"}</span>
            <span data-testid="campaign-progress">{pct(campaign.progress)}</span>
          </div>
          <Progress value={campaign.progress * 100} aria-label="Campaign progress" />
        </CardContent>
      </Card>
      <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
        {cards.map((c) => (
          <div key={c.id} className="min-w-0 rounded-lg border p-4">
            <dt className="text-sm text-muted-foreground">{c.label}</dt>
            <dd className="text-2xl font-semibold" data-testid={`stat-${c.id}`}>
              {c.value}
            </dd>
            {/* a rate of nothing is not 0 %: no percentage until there is something to divide by */}
            <dd className="text-xs text-muted-foreground">
              {c.note ?? (c.of !== undefined && c.of > 0 ? pct((c.count ?? 0) / c.of) : "–")}
            </dd>
          </div>
        ))}
      </dl>
      <p className="text-sm text-muted-foreground" data-testid="campaign-outcomes">
        {outcomeLine(campaign.channel, figures)}
      </p>
      {String(campaign.channel).startsWith("video") && (
        <VideoEngagement
          campaignId={campaign.id}
          recipients={campaign.recipientCount}
          live={campaign.status === "sending"}
        />
      )}
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <BarChart3 className="size-4" aria-hidden /> Activity over time (per {report.data.bucket})
          </CardTitle>
        </CardHeader>
        <CardContent className="h-64">
          {timeline.length === 0 ? (
            <p className="text-sm text-muted-foreground">No activity yet.</p>
          ) : (
            <ResponsiveContainer width="100%" height="100%">
              {/* every bucket from the first event to the last, empty ones as zeros (the server's), so
                  the axis is evenly spaced in time; labels carry the date once the buckets cross a day */}
              <LineChart data={chartData(timeline, report.data.bucket, report.data.timeZone)}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="tick" interval="preserveStartEnd" minTickGap={16} />
                <YAxis allowDecimals={false} />
                <Tooltip labelFormatter={(_, payload) => payload?.[0]?.payload?.full ?? ""} />
                <Legend />
                {/* the events the channel records (a call has no opens): report-figures timelineLines */}
                {timelineLines(campaign.channel).map((l) => (
                  <Line key={l.key} type="monotone" dataKey={l.key} name={l.name} stroke={l.color} />
                ))}
              </LineChart>
            </ResponsiveContainer>
          )}
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Recipients</CardTitle>
          <div className="flex flex-wrap gap-2 pt-2" role="group" aria-label="Filter by status">
            <Button
              size="sm"
              variant={filter ? "outline" : "default"}
              onClick={() => {
                setFilter(undefined);
                setPage(1);
              }}
            >
              All ({campaign.recipientCount})
            </Button>
            {STATUS_ORDER.filter((s) => counts[s]).map((s) => (
              <Button
                key={s}
                size="sm"
                variant={filter === s ? "default" : "outline"}
                onClick={() => {
                  setFilter(s);
                  setPage(1);
                }}
              >
                {s} ({counts[s]})
              </Button>
            ))}
          </div>
        </CardHeader>
        <CardContent>
          <div className="overflow-x-auto rounded-lg border">
            <Table>
              <TableHeader>
                <TableRow>
                  <TableHead>Name</TableHead>
                  <TableHead>Address</TableHead>
                  <TableHead>Status</TableHead>
                  <TableHead>{takesReplies ? "Reason or reply" : "Reason"}</TableHead>
                  <TableHead>Sent</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {recipients.data?.recipients.map((r) => (
                  <TableRow key={r.id}>
                    <TableCell>
                      <RecipientName contactId={r.contactId} name={r.name} />
                    </TableCell>
                    <TableCell>{r.address}</TableCell>
                    <TableCell>
                      <StatusBadge status={r.status} />
                    </TableCell>
                    <TableCell className="min-w-40 text-sm text-muted-foreground">
                      {recipientNote(r)}
                      {r.replyText && <RecipientReply text={r.replyText} />}
                    </TableCell>
                    <TableCell className="whitespace-nowrap text-sm">
                      {r.sentAt ? <SentAt at={r.sentAt} /> : ""}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
          {recipients.data && recipients.data.pagination.pages > 1 && (
            <div className="mt-3 flex items-center justify-end gap-2 text-sm">
              <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
                Previous
              </Button>
              <span>
                Page {page} of {recipients.data.pagination.pages}
              </span>
              <Button
                size="sm"
                variant="outline"
                disabled={page >= recipients.data.pagination.pages}
                onClick={() => setPage((p) => p + 1)}
              >
                Next
              </Button>
            </div>
          )}
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Content</CardTitle>
        </CardHeader>
        <CardContent className="space-y-2 whitespace-pre-line text-sm">
          {content.subject && <p className="font-semibold">{content.subject}</p>}
          <p>{content.body ?? content.message ?? content.script}</p>
          {content.audioMediaId ? (
            <div className="space-y-1">
              <p>Recording from your media library:</p>
              <audio
                controls
                src={`/api/media/${content.audioMediaId}/file`}
                aria-label="Voicemail recording"
              />
            </div>
          ) : (
            content.audioUrl && <p>Audio: {content.audioUrl}</p>
          )}
        </CardContent>
      </Card>
    </div>
  );
}
