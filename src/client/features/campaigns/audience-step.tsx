import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Clock, FileSpreadsheet, ShieldCheck, UserMinus, Users } from "lucide-react";
import { useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Skeleton } from "@/client/components/ui/skeleton";
import { LEAD_STATUSES, LIFECYCLE_STAGES } from "@/client/features/crm/api";
import { formatNumber, plural, titleCase } from "@/client/lib/format";
import { cn } from "@/client/lib/utils";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import {
  type AudienceHandOff,
  type AudienceSource,
  type AudienceState,
  audienceBody,
  type CsvRecipient,
  describeSkipped,
  HAND_OFF_SOURCES,
  type PreflightResult,
  type SavedKind,
} from "./audience";
import { ContactPicker } from "./contact-picker";
import { parseRecipientsCsv } from "./csv";

const SOURCES: [AudienceSource, string][] = [
  ["csv", "Upload a CSV"],
  ["crm", "Choose from contacts"],
  ["saved", "Segment, tag, stage or status"],
];

const selectClass = "h-10 w-full rounded-lg border border-input bg-card px-3 text-sm";

/**
 * The one audience step of every builder (issue 14): a CSV upload (the spec's behaviour), contacts
 * chosen from the CRM (searchable, filterable, paged picker with 'select all N matching'), or a
 * saved segment / tag / lifecycle stage / lead status. `parseCsv` reads a CSV file's text into
 * recipients (throws Error with the message to show); by default the builder CSV rules for `need`.
 */
export function AudienceStep({
  value,
  onChange,
  need,
  numberKind,
  parseCsv,
  csvInputId = "audience-csv",
}: {
  value: AudienceState;
  onChange: (a: AudienceState) => void;
  need: "phone" | "email";
  /** a phone campaign's number of a contact: "sms" (the default: texts) or "voice" (calls, voicemail) */
  numberKind?: "sms" | "voice";
  parseCsv?: (text: string) => CsvRecipient[];
  csvInputId?: string;
}) {
  const [csvError, setCsvError] = useState<string | null>(null);
  const set = (patch: Partial<AudienceState>) => onChange({ ...value, ...patch });

  async function onFile(file: File | undefined) {
    if (!file) return;
    try {
      const text = await file.text();
      const rows = parseCsv
        ? parseCsv(text)
        : parseRecipientsCsv(
            text,
            need,
            need === "phone"
              ? 'CSV must have a "phone" or "mobile" column'
              : 'CSV must have an "email" column',
          );
      set({ csvRows: rows, csvFileName: file.name });
      setCsvError(null);
    } catch (e) {
      set({ csvRows: [], csvFileName: file.name });
      setCsvError((e as Error).message);
    }
  }

  return (
    <div className="space-y-5">
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Who should receive this campaign?</legend>
        <div className="flex flex-wrap gap-2">
          {SOURCES.map(([source, label]) => (
            <label
              key={source}
              className={cn(
                "cursor-pointer rounded-lg border-2 px-3 py-2 text-sm focus-within:ring-2 focus-within:ring-ring",
                value.source === source
                  ? "border-primary bg-primary/5"
                  : "border-border hover:border-primary/50",
              )}
            >
              <input
                type="radio"
                name="audience-source"
                className="sr-only"
                checked={value.source === source}
                onChange={() => set({ source })}
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>

      {value.source === "csv" && (
        <div className="space-y-2">
          <Label htmlFor={csvInputId}>
            Contacts CSV ({need === "phone" ? "needs a phone or mobile column" : "needs an email column"})
          </Label>
          <Input
            id={csvInputId}
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => void onFile(e.target.files?.[0])}
          />
          {value.csvFileName && !csvError && (
            <div className="text-sm text-muted-foreground">
              <p className="flex items-center gap-2">
                <FileSpreadsheet className="size-4" aria-hidden /> {value.csvFileName}:{" "}
                {plural(value.csvRows.length, "contact")}
              </p>
              <ul className="mt-2 list-disc pl-6">
                {value.csvRows.slice(0, 5).map((c, i) => (
                  <li key={`${i}-${c.email}-${c.phone}`}>
                    {c.name || "(no name)"} &lt;{need === "phone" ? c.phone : c.email}&gt;
                  </li>
                ))}
              </ul>
              {value.csvRows.length > 5 && <p>...and {formatNumber(value.csvRows.length - 5)} more</p>}
            </div>
          )}
          {csvError && <AlertBanner variant="error">{csvError}</AlertBanner>}
          <p className="text-xs text-muted-foreground">
            New addresses in the file become contacts when you launch.
          </p>
        </div>
      )}

      {value.source === "crm" && value.handOff && <HandOffNote handOff={value.handOff} />}
      {value.source === "crm" && (
        <ContactPicker
          need={need}
          numberKind={numberKind}
          picked={value.picked}
          onPicked={(picked) => set({ picked })}
          pickAll={value.pickAll}
          onPickAll={(pickAll) => set({ pickAll })}
        />
      )}

      {value.source === "saved" && (
        <SavedAudiencePicker
          kind={value.savedKind}
          value={value.savedValue}
          onChange={(savedKind, savedValue) => set({ savedKind, savedValue })}
        />
      )}
    </div>
  );
}

/**
 * What another screen's "Start a campaign" handed the builder: "2 selected from Business Search",
 * and when fewer contacts arrived than the owner chose there, how many and why the others are not in
 * the audience (never dropped silently). The contacts stay ticked in the picker below, to change.
 */
export function HandOffNote({ handOff }: { handOff: AudienceHandOff }) {
  const arrived = handOff.contactIds.length;
  const missing = handOff.chosen - arrived;
  const where = HAND_OFF_SOURCES[handOff.from];
  return (
    <AlertBanner
      variant={missing > 0 ? "warning" : "info"}
      title={`${formatNumber(arrived)} selected from ${where}`}
    >
      <span data-testid="audience-hand-off">
        {missing > 0
          ? `${formatNumber(arrived)} of the ${plural(handOff.chosen, "business", "businesses")} you chose in ${where} arrived: ${plural(missing, "business", "businesses")} could not be added to your contacts (the same business chosen twice, or a result no longer stored) and ${missing === 1 ? "is" : "are"} not in this audience. `
          : `The ${plural(arrived, "business", "businesses")} you chose in ${where} ${arrived === 1 ? "is" : "are"} ticked below. `}
        You can untick them or add other contacts.
      </span>
    </AlertBanner>
  );
}

/** Saved segment, tag, lifecycle stage or lead status, with the number of contacts it holds now. */
function SavedAudiencePicker({
  kind,
  value,
  onChange,
}: {
  kind: SavedKind;
  value: string;
  onChange: (kind: SavedKind, value: string) => void;
}) {
  const trpc = useTRPC();
  const segments = useQuery(trpc.crm.lists.queryOptions());
  const tags = useQuery(trpc.crm.tags.queryOptions());
  const options: { value: string; label: string }[] =
    kind === "segment"
      ? (segments.data ?? []).map((s) => ({
          value: String(s.id),
          label: `${s.name} (${formatNumber(s.contact_count)})`,
        }))
      : kind === "tag"
        ? (tags.data ?? []).map((t) => ({
            value: String(t.id),
            label: `${t.name} (${formatNumber(t.contact_count)})`,
          }))
        : (kind === "stage" ? LIFECYCLE_STAGES : LEAD_STATUSES).map((s) => ({
            value: s,
            label: titleCase(s),
          }));
  const loading = (kind === "segment" && segments.isPending) || (kind === "tag" && tags.isPending);
  const empty = !loading && options.length === 0;
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <div className="space-y-1.5">
        <Label htmlFor="audience-saved-kind">Send to contacts by</Label>
        <select
          id="audience-saved-kind"
          className={selectClass}
          value={kind}
          onChange={(e) => onChange(e.target.value as SavedKind, "")}
        >
          <option value="segment">Saved segment</option>
          <option value="tag">Tag</option>
          <option value="stage">Lifecycle stage</option>
          <option value="status">Lead status</option>
        </select>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="audience-saved-value">
          {kind === "segment" ? "Segment" : kind === "tag" ? "Tag" : kind === "stage" ? "Stage" : "Status"}
        </Label>
        {loading ? (
          <Skeleton className="h-10 w-full" />
        ) : (
          <select
            id="audience-saved-value"
            className={selectClass}
            value={value}
            disabled={empty}
            onChange={(e) => onChange(kind, e.target.value)}
          >
            <option value="">{empty ? "None yet" : "Choose..."}</option>
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        )}
      </div>
      {empty && (
        <p className="text-sm text-muted-foreground sm:col-span-2">
          {kind === "segment"
            ? "Save a segment from a filtered contacts list ('Save as segment')."
            : "Tag contacts from the contacts list (select them, then Add Tag)."}{" "}
          <Link to="/contacts" className="underline">
            Go to contacts
          </Link>
        </p>
      )}
    </div>
  );
}

/** The channels whose contacts must have opted in (or the user confirms consent). */
export function needsConsent(channel: string): boolean {
  return channel === "sms" || channel === "video_sms" || channel === "voice" || channel === "voicemail";
}

/**
 * Runs the server's preflight (tRPC `campaigns.preflight`) for a launch body: without consent, and
 * for consent channels also with it, so the review can show how many have not opted in. Returns
 * `{result, withoutConsent, notOptedIn, nobody, ...}`; `nobody` is true when the launch would reach
 * no one (the server refuses such a launch). A text's builder passes its `message`, so the counts
 * leave out, as the launch does, the recipients whose text filled in is too long to send.
 */
export function usePreflight(
  channel: "email" | "sms" | "voice" | "voicemail" | "video_email" | "video_sms",
  audience: AudienceState,
  consent: boolean,
  enabled: boolean,
  /** the launch's scheduled moment (send-time scheduledMoment): quiet hours are read at it */
  scheduledAt?: Date,
  /** an SMS or video SMS launch's message as typed (merge tags unfilled) */
  message?: string,
) {
  const client = useTRPCClient();
  const body = audienceBody(audience);
  const at = scheduledAt?.toISOString();
  const options = (includeNotOptedIn: boolean) => ({
    queryKey: ["campaigns", "preflight", channel, body, includeNotOptedIn, at ?? null, message ?? null],
    queryFn: () =>
      client.campaigns.preflight.mutate({
        channel,
        ...body,
        includeNotOptedIn,
        ...(at ? { scheduledAt: at } : {}),
        ...(message !== undefined ? { message } : {}),
      }),
    enabled: enabled && !!body && (includeNotOptedIn ? needsConsent(channel) : true),
    staleTime: 0,
    retry: false,
  });
  const base = useQuery(options(false));
  const consented = useQuery(options(true));
  const result: PreflightResult | undefined = consent && needsConsent(channel) ? consented.data : base.data;
  const notOptedIn =
    (base.data?.skipped["not opted in to SMS"] ?? 0) + (base.data?.skipped["not opted in to calls"] ?? 0);
  const reach = result ? result.willSendNow + result.deferred.count : 0;
  return {
    result,
    withoutConsent: base.data,
    notOptedIn,
    isPending: base.isPending || (consent && needsConsent(channel) && consented.isPending),
    error: (base.error ?? consented.error) as Error | null,
    nobody: !!result && reach === 0,
    reach,
    /** the preflight was read for a scheduled moment, not now */
    scheduled: !!at,
  };
}

function whenText(iso: string | null): string {
  if (!iso) return "";
  return new Date(iso).toLocaleString(undefined, {
    weekday: "short",
    hour: "numeric",
    minute: "2-digit",
    month: "short",
    day: "numeric",
  });
}

/**
 * The review step's audience summary (issue 14): audience size, sent now, waiting for quiet hours
 * with when sending starts, and skipped by reason; for SMS / calls / voicemail the consent
 * statement as its own labelled step. Shows why a launch would reach nobody.
 */
export function PreflightReview({
  channel,
  preflight,
  consent,
  onConsent,
}: {
  channel: string;
  preflight: ReturnType<typeof usePreflight>;
  consent: boolean;
  onConsent: (v: boolean) => void;
}) {
  const { result, notOptedIn, isPending, error, nobody } = preflight;
  const what = channel === "sms" || channel === "video_sms" ? "text" : "call";
  const optIn = channel === "sms" || channel === "video_sms" ? "SMS" : "calls";
  return (
    <section className="space-y-4" aria-labelledby="preflight-heading">
      <h3 id="preflight-heading" className="text-base font-semibold">
        Audience check
      </h3>
      {error && <AlertBanner variant="error">{error.message || "Could not check the audience"}</AlertBanner>}
      {isPending && !result ? (
        <Skeleton className="h-24 w-full" />
      ) : result ? (
        <>
          <dl className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4" data-testid="preflight">
            <div className="rounded-lg border p-3">
              <dt className="flex items-center gap-1.5 text-sm text-muted-foreground">
                <Users className="size-4" aria-hidden /> Audience
              </dt>
              <dd className="text-lg font-semibold" data-testid="preflight-audience">
                {formatNumber(result.audienceSize)}
              </dd>
            </div>
            <div className="rounded-lg border p-3">
              <dt className="text-sm text-muted-foreground">
                {preflight.scheduled ? "Will send at that time" : "Will send now"}
              </dt>
              <dd className="text-lg font-semibold" data-testid="preflight-now">
                {formatNumber(result.willSendNow)}
              </dd>
            </div>
            <div className="rounded-lg border p-3">
              <dt className="flex items-center gap-1.5 text-sm text-muted-foreground">
                <Clock className="size-4" aria-hidden /> Waiting for quiet hours
              </dt>
              <dd className="text-lg font-semibold" data-testid="preflight-deferred">
                {formatNumber(result.deferred.count)}
              </dd>
              {result.deferred.count > 0 && result.deferred.nextWindowStart && (
                <dd className="text-xs text-muted-foreground" data-testid="preflight-window">
                  Sending starts {whenText(result.deferred.nextWindowStart)} (8am-9pm their time)
                </dd>
              )}
            </div>
            <div className="rounded-lg border p-3">
              <dt className="flex items-center gap-1.5 text-sm text-muted-foreground">
                <UserMinus className="size-4" aria-hidden /> Skipped
              </dt>
              <dd className="text-lg font-semibold" data-testid="preflight-skipped">
                {formatNumber(Object.values(result.skipped).reduce((a, b) => a + b, 0))}
              </dd>
            </div>
          </dl>
          {Object.keys(result.skipped).length > 0 && (
            <ul className="space-y-1 text-sm" aria-label="Skipped by reason" data-testid="preflight-reasons">
              {Object.entries(result.skipped)
                .sort((a, b) => b[1] - a[1])
                .map(([reason, n]) => (
                  <li key={reason}>
                    <span className="font-medium">{formatNumber(n)}</span> skipped: {reason}
                  </li>
                ))}
            </ul>
          )}
        </>
      ) : null}

      {needsConsent(channel) && (
        <fieldset className="space-y-2 rounded-lg border p-4" aria-describedby="consent-help">
          <legend className="flex items-center gap-1.5 px-1 text-sm font-semibold">
            <ShieldCheck className="size-4" aria-hidden /> Consent
          </legend>
          {notOptedIn > 0 ? (
            <label className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                checked={consent}
                onChange={(e) => onConsent(e.target.checked)}
                className="mt-0.5"
              />
              <span>
                I have consent to {what} the {plural(notOptedIn, "contact")} who
                {notOptedIn === 1 ? " has" : " have"} not opted in to {optIn}.
              </span>
            </label>
          ) : (
            <p className="text-sm">
              {result
                ? `Every reachable contact in this audience has opted in to ${optIn}.`
                : "Checking opt-ins..."}
            </p>
          )}
          <p id="consent-help" className="text-xs text-muted-foreground">
            Without consent, contacts who have not opted in are skipped. Contacts who opted out (STOP,
            unsubscribe) are always skipped.
          </p>
        </fieldset>
      )}

      {nobody && result && (
        <AlertBanner variant="error" title="Nobody would receive this campaign">
          {describeSkipped(result.skipped) || "The audience has no contacts."}
          {notOptedIn > 0 && !consent
            ? " Confirm consent above to include contacts who have not opted in."
            : ""}
        </AlertBanner>
      )}
    </section>
  );
}
