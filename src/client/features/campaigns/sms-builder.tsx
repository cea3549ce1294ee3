import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { formatDateTime, formatNumber, plural } from "@/client/lib/format";
import { cn } from "@/client/lib/utils";
import { useTRPCClient } from "@/client/trpc";
import { type SmsSegmentInfo, sentSmsSegments, smsSegments } from "@/server/features/campaigns/sms-segments";
import {
  type AudienceHandOff,
  type AudienceState,
  audienceChosen,
  audienceFromHandOff,
  createRecipients,
  emptyAudience,
  HAND_OFF_SOURCES,
  previewRecipient,
} from "./audience";
import { AudienceStep, PreflightReview, usePreflight } from "./audience-step";
import { type LaunchError, LaunchErrorBanner, launchError } from "./launch-error";
import { useLaunchToken } from "./launch-token";
import { MergeTagTextarea, usePreview, useSender } from "./merge-tag-field";
import { SmsPlanCount } from "./plan-count";
import { PlanFeatureNotice } from "./plan-feature-notice";
import { type SendTime, SendTimeField, scheduledMoment, sendTimeError } from "./send-time";
import {
  AlreadyLaunchedCard,
  type EarlierLaunch,
  useClearWhenEdited,
  WizardNav,
  WizardSteps,
} from "./wizard";

const STEPS = ["Campaign Details", "Message Content", "Select Contacts", "Review & Launch"] as const;

/**
 * Live counter: characters (red past 160, spec section 5) and GSM-7 / UCS-2 segments of the text as
 * typed; with `asSent` (sentSmsSegments of the preview) also what a contact's first text is sent as
 * when that differs (the business's name, tracked links, "Reply STOP to opt out", merged values
 * outside GSM-7).
 */
export function SmsCounter({ text, asSent }: { text: string; asSent?: SmsSegmentInfo }) {
  const info = smsSegments(text);
  const differs = asSent && (asSent.segments !== info.segments || asSent.encoding !== info.encoding);
  return (
    <div className="space-y-1 text-sm">
      <p data-testid="sms-counter">
        <span
          className={cn(info.characters > 160 ? "font-medium text-destructive" : "text-muted-foreground")}
        >
          {info.characters} / 160 characters
        </span>
        <span className="text-muted-foreground">
          {" "}
          · {plural(info.segments, "segment")} ({info.encoding})
        </span>
      </p>
      {differs && (
        <p className="font-medium text-amber-800 dark:text-amber-300" data-testid="sms-counter-sent">
          As a first text, with your business name, tracked links and "Reply STOP to opt out":{" "}
          {plural(asSent.segments, "segment")} ({asSent.encoding})
        </p>
      )}
    </div>
  );
}

/**
 * The SMS campaign builder (/campaigns/sms, spec sections 2, 5, 8): details, message with counter,
 * insert buttons and preview, contact selection (CRM table and/or CSV), review with stat cards.
 * After launch it waits 2 seconds, then goes to /dashboard. `handOff`: the contacts another screen's
 * "Start a campaign" chose (Business Search), ticked in the contact picker when the builder opens.
 */
export function SmsCampaignBuilder({ handOff = null }: { handOff?: AudienceHandOff | null } = {}) {
  const navigate = useNavigate();
  const client = useTRPCClient();
  // one token per builder session: a repeated launch answers the first campaign (launch-token.ts)
  const launchToken = useLaunchToken();
  const [step, setStep] = useState(0);
  const [name, setName] = useState("");
  const [message, setMessage] = useState("");
  const [audience, setAudience] = useState<AudienceState>(() =>
    handOff ? audienceFromHandOff(handOff) : emptyAudience("crm"),
  );
  const [consent, setConsent] = useState(false);
  const [error, setError] = useState<string | LaunchError | null>(null);
  /** the server refused the launch for the plan (402): the banner links to /pricing */
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  // an identical campaign launched minutes ago from another tab answered the launch (nothing sent)
  const [earlier, setEarlier] = useState<EarlierLaunch | null>(null);
  const preview = usePreview();
  const business = useSender().data?.myBusiness ?? "";

  // Send now, or Schedule for later (the review step's When to send)
  const [sendTime, setSendTime] = useState<SendTime>({ mode: "now" });
  const [triedLaunch, setTriedLaunch] = useState(false);
  const scheduledAt = scheduledMoment(sendTime);
  const timeError = sendTimeError(sendTime);

  // with the message: recipients whose text filled in passes 1,600 characters are counted as skipped
  const preflight = usePreflight("sms", audience, consent, step === 3, scheduledAt, message);
  const recipients = preflight.reach;
  const sample = previewRecipient(audience, preflight.result) ?? {};
  // what a contact's first text is sent as (merged, the business's name, tracked links, the opt-out
  // notice): the review's segments and total messages count that, not the template as typed
  const asSent = sentSmsSegments(preview(message, sample), window.location.origin, business);
  const segments = asSent.segments;

  useClearWhenEdited(setError, [name, message, audience]);

  function next() {
    if (step === 0 && !name.trim()) return setError("Please enter a campaign name");
    if (step === 1 && !message.trim()) return setError("Please enter your SMS message");
    if (step === 2 && !audienceChosen(audience)) return setError("Please select at least one contact");
    setError(null);
    setStep((s) => s + 1);
  }

  /** Launches the draft; `allowRepeat` after "Send it again" on an identical earlier campaign. */
  async function launch(allowRepeat = false) {
    if (!name.trim()) return setError("Please enter a campaign name");
    if (!message.trim()) return setError("Please enter your SMS message");
    if (!audienceChosen(audience)) return setError("Please select at least one contact");
    // a time picked for later must still be ahead when Launch is pressed (the error is under the input)
    setTriedLaunch(true);
    if (sendTimeError(sendTime)) return;
    const at = scheduledMoment(sendTime);
    setBusy(true);
    setError(null);
    try {
      const res = await client.campaigns.create.mutate({
        name,
        channel: "sms",
        content: { message },
        ...createRecipients(audience),
        ...(at ? { scheduledAt: at } : {}),
        includeNotOptedIn: consent,
        launchToken,
        ...(allowRepeat ? { allowRepeat } : {}),
      });
      if (res.repeated && res.otherLaunch) {
        setEarlier(res.campaign);
        setBusy(false);
        return;
      }
      setEarlier(null);
      const text = res.campaign.scheduledAt
        ? `Campaign scheduled! Sending to ${plural(res.queued, "contact")} on ${formatDateTime(res.campaign.scheduledAt)}.`
        : `Campaign launched! Sending to ${plural(res.queued, "contact")}.`;
      setDone(text);
      toast.success(text);
      setTimeout(() => void navigate({ to: "/dashboard" }), 2000);
    } catch (e) {
      setError(launchError(e, "Failed to launch campaign"));
      setBusy(false);
    }
  }

  if (earlier && !done)
    return <AlreadyLaunchedCard campaign={earlier} sending={busy} onSendAgain={() => void launch(true)} />;
  return (
    <div className="space-y-6">
      <WizardSteps steps={STEPS} step={step} />
      <PlanFeatureNotice channel="sms" />
      <LaunchErrorBanner error={error} />
      {done && <AlertBanner variant="success">{done}</AlertBanner>}
      {handOff && step < 2 && (
        <p className="text-sm text-muted-foreground" data-testid="sms-hand-off">
          Audience: {plural(handOff.contactIds.length, "contact")} from {HAND_OFF_SOURCES[handOff.from]},
          selected in step 3 (Select Contacts), where you can change it.
        </p>
      )}
      <Card>
        <CardHeader>
          <CardTitle>{STEPS[step]}</CardTitle>
        </CardHeader>
        <CardContent className="space-y-4">
          {step === 0 && (
            <div className="space-y-2">
              <Label htmlFor="sms-name">Campaign name</Label>
              <Input
                id="sms-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="Weekend promo"
                maxLength={200}
              />
            </div>
          )}
          {step === 1 && (
            <>
              <div className="space-y-2">
                <Label htmlFor="sms-message">Message</Label>
                <MergeTagTextarea
                  id="sms-message"
                  rows={5}
                  value={message}
                  onChange={setMessage}
                  maxLength={1600}
                />
                <SmsCounter text={message} asSent={asSent} />
              </div>
              <div className="rounded-lg border bg-muted/40 p-4">
                <p className="text-sm text-muted-foreground">Preview</p>
                <p className="mt-1 whitespace-pre-line" data-testid="sms-preview">
                  {preview(message, sample)}
                </p>
                <p className="mt-2 text-xs text-muted-foreground">
                  The first message each number receives starts with your business name
                  {business ? ` ("${business}: ")` : ""} unless the text already names it, and ends with
                  "Reply STOP to opt out". Texts go out between 8am and 9pm in each contact's time zone.
                </p>
              </div>
            </>
          )}
          {step === 2 && <AudienceStep need="phone" value={audience} onChange={setAudience} />}
          {step === 3 && (
            <div className="space-y-6">
              {/* the plan's meter counts messages (one per recipient), the carrier bills segments:
                  the cards and SmsPlanCount keep the two apart */}
              <dl className="grid gap-4 sm:grid-cols-3 lg:grid-cols-5">
                {[
                  ["Campaign name", name, null],
                  ["Recipients", preflight.result ? formatNumber(recipients) : "...", null],
                  ["Message segments", formatNumber(segments), "per message"],
                  [
                    "Total messages",
                    preflight.result ? formatNumber(recipients) : "...",
                    "one per recipient, counted by your plan",
                  ],
                  [
                    "Segments billed",
                    preflight.result ? formatNumber(recipients * segments) : "...",
                    "by the carrier",
                  ],
                ].map(([k, v, note]) => (
                  <div key={k} className="rounded-lg border p-4">
                    <dt className="text-sm text-muted-foreground">{k}</dt>
                    <dd className="text-lg font-semibold break-words">{v}</dd>
                    {note && <dd className="text-xs text-muted-foreground">{note}</dd>}
                  </div>
                ))}
              </dl>
              <SmsPlanCount
                messages={preflight.result ? recipients : null}
                segments={segments}
                scheduledAt={scheduledAt}
              />
              <SendTimeField
                value={sendTime}
                onChange={setSendTime}
                error={triedLaunch || (sendTime.mode === "later" && sendTime.local) ? timeError : null}
              />
              <PreflightReview channel="sms" preflight={preflight} consent={consent} onConsent={setConsent} />
            </div>
          )}
        </CardContent>
      </Card>
      <WizardNav
        step={step}
        last={STEPS.length - 1}
        busy={busy || !!done}
        launchDisabled={!preflight.result || preflight.nobody}
        onBack={() => setStep((s) => Math.max(0, s - 1))}
        onNext={next}
        onLaunch={() => void launch()}
        launchLabel={sendTime.mode === "later" ? "Schedule Campaign" : undefined}
        cancel={
          <Link to="/dashboard" className={buttonVariants({ variant: "ghost" })}>
            Cancel
          </Link>
        }
      />
    </div>
  );
}
