import { Link } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Skeleton } from "@/client/components/ui/skeleton";
import { useUsage } from "@/client/features/billing/usage";
import { useMediaList } from "@/client/features/studio/media-api";
import { formatNumber, plural } from "@/client/lib/format";
import { useTRPCClient } from "@/client/trpc";
import {
  type AudienceState,
  audienceChosen,
  createRecipients,
  emptyAudience,
  previewRecipient,
} from "./audience";
import { AudienceStep, PreflightReview, usePreflight } from "./audience-step";
import { type LaunchError, LaunchErrorBanner, launchError } from "./launch-error";
import { useLaunchToken } from "./launch-token";
import { MergeTagTextarea, usePreview } from "./merge-tag-field";
import { PlanFeatureNotice } from "./plan-feature-notice";
import {
  AlreadyLaunchedCard,
  type EarlierLaunch,
  LaunchedCard,
  useClearWhenEdited,
  WizardNav,
  WizardSteps,
} from "./wizard";

/** Rough vendor cost per attempt in US cents, for the review's estimate (Twilio voice ~1.4 c/min, RVM ~1 c/drop). */
const CENTS = { voice: 1.4, voicemail: 1 } as const;

/**
 * Builders for AI call campaigns (/campaigns/call: a script spoken by TwiML <Say> with
 * answering-machine detection) and ringless voicemail campaigns (/campaigns/voice: an audio recording
 * picked from the media library, or a text-to-speech script), in the same 4 steps: details, script or audio,
 * contacts, review with cost and quota preview. Calls and drops happen 8am-9pm recipient local time.
 * `initialAudioId` preselects a voicemail's recording (the media library's 'Use in Campaign' on an
 * audio file); one that is not a ready recording of the workspace is dropped once the library loads.
 */
export function VoiceCampaignBuilder({
  kind,
  initialAudioId,
}: {
  kind: "voice" | "voicemail";
  initialAudioId?: number;
}) {
  // the plan's voice calls come from the server (billing.usage); ringless voicemails count against them
  const { data: usage } = useUsage();
  const client = useTRPCClient();
  // one token per builder session: a repeated launch answers the first campaign (launch-token.ts)
  const launchToken = useLaunchToken(kind);
  const steps = [
    "Campaign Details",
    kind === "voice" ? "Call Script" : "Audio or Script",
    "Select Contacts",
    "Review & Launch",
  ] as const;
  const [step, setStep] = useState(0);
  const [name, setName] = useState("");
  // the caller is the workspace's business ({{my_business}}), never the recipient's company
  const [script, setScript] = useState(
    "Hello {{first_name|there}}, this is a quick call from {{my_business}}.",
  );
  const preview = usePreview();
  // voicemail: one of the workspace's audio recordings (media library), or none for text to speech
  const [audioMediaId, setAudioMediaId] = useState<number | null>(
    kind === "voicemail" ? (initialAudioId ?? null) : null,
  );
  const [audience, setAudience] = useState<AudienceState>(() => emptyAudience("crm"));
  const [consent, setConsent] = useState(false);
  const [error, setError] = useState<string | LaunchError | null>(null);
  const [busy, setBusy] = useState(false);
  const [launched, setLaunched] = useState<{
    campaignId: number;
    queued: number;
    skipped: Record<string, number>;
  } | null>(null);
  // an identical campaign launched minutes ago from another tab answered the launch (nothing sent)
  const [earlier, setEarlier] = useState<EarlierLaunch | null>(null);
  const preflight = usePreflight(kind, audience, consent, step === 3);
  const recipients = preflight.reach;
  const voice = usage?.usage.voice_calls;
  const quota = voice ? voice.limit : undefined;
  const left = voice && voice.limit !== null ? Math.max(0, voice.limit - voice.used) : null;

  useClearWhenEdited(setError, [name, script, audioMediaId, audience]);

  function next() {
    if (step === 0 && !name.trim()) return setError("Please enter a campaign name");
    if (step === 1 && kind === "voice" && !script.trim())
      return setError("Please enter a script for the call");
    if (step === 1 && kind === "voicemail" && !script.trim() && audioMediaId === null)
      return setError("Please choose a recording or write a script");
    if (step === 2 && !audienceChosen(audience)) return setError("Please select at least one contact");
    setError(null);
    setStep((s) => s + 1);
  }

  /** Launches the draft; `allowRepeat` after "Send it again" on an identical earlier campaign. */
  async function launch(allowRepeat = false) {
    setBusy(true);
    setError(null);
    try {
      const res = await client.campaigns.create.mutate({
        name,
        channel: kind,
        content: {
          script,
          ...(kind === "voicemail" && audioMediaId !== null ? { audioMediaId } : {}),
          ...(kind === "voice" ? { machineDetection: true } : {}),
        },
        ...createRecipients(audience),
        includeNotOptedIn: consent,
        launchToken,
        ...(allowRepeat ? { allowRepeat } : {}),
      });
      if (res.repeated && res.otherLaunch) setEarlier(res.campaign);
      else setLaunched({ campaignId: res.campaign.id, queued: res.queued, skipped: res.skipped });
    } catch (e) {
      setError(launchError(e, "Campaign failed"));
    } finally {
      setBusy(false);
    }
  }

  if (launched)
    return (
      <LaunchedCard campaignId={launched.campaignId} queued={launched.queued} skipped={launched.skipped} />
    );
  if (earlier)
    return <AlreadyLaunchedCard campaign={earlier} sending={busy} onSendAgain={() => void launch(true)} />;
  const sample = previewRecipient(audience, preflight.result) ?? {};

  return (
    <div className="space-y-6">
      <WizardSteps steps={steps} step={step} />
      <PlanFeatureNotice channel={kind} />
      <LaunchErrorBanner error={error} />
      <Card>
        <CardHeader>
          <CardTitle>{steps[step]}</CardTitle>
        </CardHeader>
        <CardContent className="space-y-4">
          {step === 0 && (
            <div className="space-y-2">
              <Label htmlFor="voice-name">Campaign name</Label>
              <Input id="voice-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
            </div>
          )}
          {step === 1 && (
            <>
              {kind === "voicemail" && <RecordingPicker value={audioMediaId} onChange={setAudioMediaId} />}
              <div className="space-y-2">
                <Label htmlFor="voice-script">
                  {kind === "voice"
                    ? "Script (spoken by the AI voice)"
                    : audioMediaId !== null
                      ? "Text-to-speech script (not used: the recording plays)"
                      : "Text-to-speech script (used when there is no recording)"}
                </Label>
                <MergeTagTextarea
                  id="voice-script"
                  rows={6}
                  value={script}
                  onChange={setScript}
                  maxLength={5000}
                />
              </div>
              <div className="rounded-lg border bg-muted/40 p-4 text-sm">
                <p className="text-muted-foreground">Preview</p>
                <p className="mt-1" data-testid="script-preview">
                  {preview(script, sample)}
                </p>
              </div>
            </>
          )}
          {step === 2 && (
            <AudienceStep need="phone" numberKind="voice" value={audience} onChange={setAudience} />
          )}
          {step === 3 && (
            <div className="space-y-4">
              <dl className="grid gap-4 sm:grid-cols-4">
                {[
                  ["Campaign name", name],
                  ["Recipients", preflight.result ? String(recipients) : "..."],
                  ["Estimated cost", `$${((recipients * CENTS[kind]) / 100).toFixed(2)}`],
                  [
                    "Monthly quota",
                    quota === undefined
                      ? "..."
                      : quota === null
                        ? "Unlimited"
                        : `${formatNumber(left ?? 0)} of ${plural(quota, "call")} left (${usage?.plan_name})`,
                  ],
                ].map(([k, v]) => (
                  <div key={k} className="rounded-lg border p-4">
                    <dt className="text-sm text-muted-foreground">{k}</dt>
                    <dd className="text-lg font-semibold">{v}</dd>
                  </div>
                ))}
              </dl>
              {/* a plan without voice campaigns says so at the top (PlanFeatureNotice) */}
              {left !== null && quota !== 0 && recipients > left && (
                <AlertBanner variant="warning">
                  This campaign is larger than what is left of your plan's monthly calls.{" "}
                  <Link to="/pricing">Upgrade</Link>
                </AlertBanner>
              )}
              <PreflightReview
                channel={kind}
                preflight={preflight}
                consent={consent}
                onConsent={setConsent}
              />
            </div>
          )}
        </CardContent>
      </Card>
      <WizardNav
        step={step}
        last={3}
        busy={busy}
        launchDisabled={!preflight.result || preflight.nobody}
        onBack={() => setStep((s) => Math.max(0, s - 1))}
        onNext={next}
        onLaunch={() => void launch()}
        cancel={
          <Link to="/dashboard" className={buttonVariants({ variant: "ghost" })}>
            Cancel
          </Link>
        }
      />
    </div>
  );
}

/**
 * The voicemail recording: a choice among the workspace's ready audio recordings (tRPC `studio.list`;
 * ringless voicemail plays MP3 audio, so videos are not offered), or none (text to speech), with a
 * preview player and a link to record one in Studio. The launch sends the media id; the server
 * accepts only the workspace's own audio items (campaigns.voicemail.ts).
 */
function RecordingPicker({
  value,
  onChange,
}: {
  value: number | null;
  onChange: (id: number | null) => void;
}) {
  const { data, isPending, isError } = useMediaList();
  const recordings = (data ?? []).filter((m) => m.type === "audio" && m.processing_status === "ready");
  const chosen = recordings.find((m) => m.id === value) ?? null;
  // a preselected id that is no ready recording (deleted, still processing, a stale link) is dropped,
  // so the select shows what will be sent
  const unknown = !isPending && !isError && value !== null && chosen === null;
  useEffect(() => {
    if (unknown) onChange(null);
  }, [unknown, onChange]);
  return (
    <div className="space-y-2">
      <Label htmlFor="voice-audio">Recording from your media library (optional)</Label>
      {isError ? (
        <AlertBanner variant="error">Could not load your recordings. Please try again.</AlertBanner>
      ) : isPending ? (
        <Skeleton className="h-10 w-full" />
      ) : (
        <select
          id="voice-audio"
          className="h-10 w-full rounded-lg border border-input bg-card px-3 text-sm"
          value={value === null ? "" : String(value)}
          onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
        >
          <option value="">No recording: speak the script below (text to speech)</option>
          {recordings.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
              {m.duration ? ` (${formatDuration(m.duration)})` : ""}
            </option>
          ))}
        </select>
      )}
      {chosen && (
        <audio controls src={chosen.url} className="w-full" aria-label={`Preview of ${chosen.name}`} />
      )}
      <p className="text-sm text-muted-foreground">
        {!isPending && recordings.length === 0 ? "You have no audio recordings yet. " : ""}
        <Link to="/studio" search={{ tab: "record-audio" }} className="font-medium text-primary underline">
          Record one in Studio
        </Link>
        , then come back and pick it here.
      </p>
    </div>
  );
}

/** Seconds as m:ss. */
function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
