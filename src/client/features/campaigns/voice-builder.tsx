import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { useUsage } from "@/client/features/billing/usage";
import { formatNumber, plural } from "@/client/lib/format";
import { useTRPCClient } from "@/client/trpc";
import {
  type AudienceState,
  audienceChosen,
  createRecipients,
  emptyAudience,
  firstKnownRecipient,
} from "./audience";
import { AudienceStep, PreflightReview, usePreflight } from "./audience-step";
import { launchErrorMessage } from "./launch-error";
import { MergeTagTextarea, usePreview } from "./merge-tag-field";
import { LaunchedCard, useClearWhenEdited, WizardNav, WizardSteps } from "./wizard";

/** Rough vendor cost per attempt in US cents, for the review's estimate (Twilio voice ~1.4 c/min, RVM ~1 c/drop). */
const CENTS = { voice: 1.4, voicemail: 1 } as const;

/**
 * Builders for AI call campaigns (/campaigns/call: a script spoken by TwiML <Say> with
 * answering-machine detection) and ringless voicemail campaigns (/campaigns/voice: an audio URL from
 * the media library or a text-to-speech script), in the same 4 steps: details, script or audio,
 * contacts, review with cost and quota preview. Calls and drops happen 8am-9pm recipient local time.
 */
export function VoiceCampaignBuilder({ kind }: { kind: "voice" | "voicemail" }) {
  // the plan's voice calls come from the server (billing.usage); ringless voicemails count against them
  const { data: usage } = useUsage();
  const client = useTRPCClient();
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
  const [audioUrl, setAudioUrl] = useState("");
  const [audience, setAudience] = useState<AudienceState>(() => emptyAudience("crm"));
  const [consent, setConsent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [launched, setLaunched] = useState<{
    campaignId: number;
    queued: number;
    skipped: Record<string, number>;
  } | null>(null);
  const preflight = usePreflight(kind, audience, consent, step === 3);
  const recipients = preflight.reach;
  const voice = usage?.usage.voice_calls;
  const quota = voice ? voice.limit : undefined;
  const left = voice && voice.limit !== null ? Math.max(0, voice.limit - voice.used) : null;

  useClearWhenEdited(setError, [name, script, audioUrl, audience]);

  function next() {
    if (step === 0 && !name.trim()) return setError("Please enter a campaign name");
    if (step === 1 && kind === "voice" && !script.trim())
      return setError("Please enter a script for the call");
    if (step === 1 && kind === "voicemail" && !script.trim() && !audioUrl.trim())
      return setError("Please choose a recording or write a script");
    if (step === 2 && !audienceChosen(audience)) return setError("Please select at least one contact");
    setError(null);
    setStep((s) => s + 1);
  }

  async function launch() {
    setBusy(true);
    setError(null);
    try {
      const res = await client.campaigns.create.mutate({
        name,
        channel: kind,
        content: {
          script,
          ...(kind === "voicemail" && audioUrl.trim() ? { audioUrl: audioUrl.trim() } : {}),
          ...(kind === "voice" ? { machineDetection: true } : {}),
        },
        ...createRecipients(audience),
        includeNotOptedIn: consent,
      });
      setLaunched({ campaignId: res.campaign.id, queued: res.queued, skipped: res.skipped });
    } catch (e) {
      setError(launchErrorMessage(e, "Campaign failed").message);
    } finally {
      setBusy(false);
    }
  }

  if (launched)
    return (
      <LaunchedCard campaignId={launched.campaignId} queued={launched.queued} skipped={launched.skipped} />
    );
  const sample = firstKnownRecipient(audience) ?? {};

  return (
    <div className="space-y-6">
      <WizardSteps steps={steps} step={step} />
      {error && <AlertBanner variant="error">{error}</AlertBanner>}
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
              {kind === "voicemail" && (
                <div className="space-y-2">
                  <Label htmlFor="voice-audio">Recording URL (from your media library; optional)</Label>
                  <Input
                    id="voice-audio"
                    type="url"
                    value={audioUrl}
                    onChange={(e) => setAudioUrl(e.target.value)}
                    placeholder="https://.../message.mp3"
                  />
                </div>
              )}
              <div className="space-y-2">
                <Label htmlFor="voice-script">
                  {kind === "voice"
                    ? "Script (spoken by the AI voice)"
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
          {step === 2 && <AudienceStep need="phone" value={audience} onChange={setAudience} />}
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
              {left !== null && recipients > left && (
                <AlertBanner variant="warning">
                  {quota === 0
                    ? `Voice campaigns are not included in your ${usage?.plan_name} plan.`
                    : "This campaign is larger than what is left of your plan's monthly calls."}{" "}
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
