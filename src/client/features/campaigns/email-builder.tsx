import { useRef, useState } from "react";
import { toast } from "sonner";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { useAuth } from "@/client/features/auth/auth-context";
import { isServerRefusal } from "@/client/lib/errors";
import { useFocusBackWhenIdle } from "@/client/lib/focus-rescue";
import { formatDateTime, plural } from "@/client/lib/format";
import { useTRPCClient } from "@/client/trpc";
import { emailSubjectLine } from "@/server/lib/email-subject";
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
import { MergeTagTextarea, usePreview, useSender } from "./merge-tag-field";
import { PostalAddressNotice } from "./postal-address-notice";
import { type SendTime, SendTimeField, scheduledMoment, sendTimeError } from "./send-time";
import {
  AlreadyLaunchedCard,
  type EarlierLaunch,
  LaunchedCard,
  useClearWhenEdited,
  WizardNav,
  WizardSteps,
} from "./wizard";

const STEPS = ["Campaign Details", "Email Content", "Select Contacts", "Review & Launch"] as const;

/**
 * The email campaign builder (/email-campaign, spec sections 2, 5, 8): Campaign Details; Email
 * Content (subject, body with merge tags, Send Test to the user's own address); Upload Contacts
 * (CSV with an email column); Review & Launch with a preview for the first contact, headed by a
 * warning while the workspace has no postal address for the footer (PostalAddressNotice).
 */
export function EmailCampaignBuilder() {
  const { user } = useAuth();
  const [step, setStep] = useState(0);
  const [name, setName] = useState("");
  const [subject, setSubject] = useState("");
  const [body, setBody] = useState("Hi {{first_name|there}},\n\n");
  const preview = usePreview();
  const { data: sender } = useSender();
  const client = useTRPCClient();
  // one token per builder session: a repeated launch answers the first campaign (launch-token.ts)
  const launchToken = useLaunchToken();
  const [audience, setAudience] = useState<AudienceState>(() => emptyAudience("csv"));
  const [error, setError] = useState<string | LaunchError | null>(null);
  const [busy, setBusy] = useState(false);
  const [testing, setTesting] = useState(false);
  const [launched, setLaunched] = useState<{
    campaignId: number;
    queued: number;
    skipped: Record<string, number>;
    /** the moment a scheduled campaign sends (null: sending now) */
    scheduledAt: Date | null;
  } | null>(null);
  // Send now, or Schedule for later (the review step's When to send)
  const [sendTime, setSendTime] = useState<SendTime>({ mode: "now" });
  const [triedLaunch, setTriedLaunch] = useState(false);
  const scheduledAt = scheduledMoment(sendTime);
  const timeError = sendTimeError(sendTime);
  // an identical campaign launched minutes ago from another tab answered the launch (nothing sent)
  const [earlier, setEarlier] = useState<EarlierLaunch | null>(null);
  const preflight = usePreflight("email", audience, false, step === 3, scheduledAt);

  useClearWhenEdited(setError, [name, subject, body, audience]);
  // Send Test is disabled while it sends, which dropped keyboard focus to <body>: it comes back after
  const testButton = useRef<HTMLButtonElement>(null);
  useFocusBackWhenIdle(testing, testButton);

  function next() {
    if (step === 0 && !name.trim()) return setError("Please enter a campaign name");
    if (step === 1 && (!subject.trim() || !body.trim()))
      return setError("Please write subject and email body first");
    if (step === 2 && !audienceChosen(audience)) return setError("Please select at least one contact");
    setError(null);
    setStep((s) => s + 1);
  }

  async function sendTest() {
    // a missing subject or body is the step's banner (as Next shows it), not a second toast (issue 14)
    if (!subject.trim() || !body.trim()) return setError("Please write subject and email body first");
    setTesting(true);
    try {
      const sent = await client.campaigns.sendTest.mutate({ subject, body, testEmail: user?.email });
      toast.success(`Test email sent to ${sent.email}`);
    } catch (e) {
      toast.error(isServerRefusal(e) ? (e as Error).message || "Failed to send test" : "Network error");
    } finally {
      setTesting(false);
    }
  }

  /** Launches the draft; `allowRepeat` after "Send it again" on an identical earlier campaign. */
  async function launch(allowRepeat = false) {
    if (!name.trim() || !subject.trim() || !body.trim() || !audienceChosen(audience))
      return setError("Please complete all steps");
    // a time picked for later must still be ahead when Launch is pressed (the error is under the input)
    setTriedLaunch(true);
    if (sendTimeError(sendTime)) return;
    const at = scheduledMoment(sendTime);
    setBusy(true);
    setError(null);
    try {
      const res = await client.campaigns.create.mutate({
        name,
        channel: "email",
        content: { subject, body },
        ...createRecipients(audience),
        ...(at ? { scheduledAt: at } : {}),
        launchToken,
        ...(allowRepeat ? { allowRepeat } : {}),
      });
      if (res.repeated && res.otherLaunch) setEarlier(res.campaign);
      else
        setLaunched({
          campaignId: res.campaign.id,
          queued: res.queued,
          skipped: res.skipped,
          scheduledAt: res.campaign.scheduledAt ? new Date(res.campaign.scheduledAt) : null,
        });
    } catch (e) {
      setError(launchError(e, "Campaign failed"));
    } finally {
      setBusy(false);
    }
  }

  if (launched)
    return (
      <LaunchedCard
        campaignId={launched.campaignId}
        queued={launched.queued}
        skipped={launched.skipped}
        note={
          launched.scheduledAt
            ? `Scheduled: sending to ${plural(launched.queued, "contact")} on ${formatDateTime(launched.scheduledAt)}.`
            : undefined
        }
      />
    );
  if (earlier)
    return <AlreadyLaunchedCard campaign={earlier} sending={busy} onSendAgain={() => void launch(true)} />;
  const first = previewRecipient(audience, preflight.result) ?? {};

  return (
    <div className="space-y-6">
      <WizardSteps steps={STEPS} step={step} />
      <LaunchErrorBanner error={error} />
      <Card>
        <CardHeader>
          <CardTitle>{STEPS[step]}</CardTitle>
        </CardHeader>
        <CardContent className="space-y-4">
          {step === 0 && (
            <div className="space-y-2">
              <Label htmlFor="campaign-name">Campaign name</Label>
              <Input
                id="campaign-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="Spring offer"
                maxLength={200}
              />
            </div>
          )}
          {step === 1 && (
            <>
              <div className="space-y-2">
                <Label htmlFor="email-subject">Subject</Label>
                <Input
                  id="email-subject"
                  value={subject}
                  onChange={(e) => setSubject(e.target.value)}
                  placeholder="A quick idea for {{company|your company}}"
                  maxLength={500}
                />
              </div>
              <div className="space-y-2">
                <Label htmlFor="email-body">Email body</Label>
                <MergeTagTextarea id="email-body" rows={10} value={body} onChange={setBody} />
                <p className="text-xs text-muted-foreground">
                  Merge tags work with any contact field; the text after | is used when the contact has no
                  value. Your email signature and an unsubscribe link are added.
                </p>
              </div>
              <Button ref={testButton} variant="outline" onClick={() => void sendTest()} disabled={testing}>
                {testing ? "Sending..." : "Send Test"}
              </Button>
            </>
          )}
          {step === 2 && <AudienceStep need="email" value={audience} onChange={setAudience} />}
          {step === 3 && (
            <div className="space-y-4">
              <PostalAddressNotice />
              <dl className="grid gap-4 sm:grid-cols-3">
                <div className="rounded-lg border p-4">
                  <dt className="text-sm text-muted-foreground">Campaign</dt>
                  <dd className="font-medium">{name}</dd>
                </div>
                <div className="rounded-lg border p-4">
                  <dt className="text-sm text-muted-foreground">Recipients</dt>
                  <dd className="font-medium">{preflight.result ? preflight.reach : "..."}</dd>
                </div>
                <div className="rounded-lg border p-4">
                  <dt className="text-sm text-muted-foreground">From</dt>
                  <dd className="font-medium break-all" data-testid="review-from">
                    {sender?.from ?? "..."}
                  </dd>
                </div>
              </dl>
              <section className="rounded-lg border p-4" aria-label="Preview for the first contact">
                <p className="text-sm text-muted-foreground">
                  Preview for {typeof first.email === "string" && first.email ? first.email : "a contact"}
                </p>
                <p className="mt-2 font-semibold" data-testid="preview-subject">
                  {/* as sent: one header line, cut with an ellipsis past the cap (emailSubjectLine) */}
                  {emailSubjectLine(preview(subject, first ?? null))}
                </p>
                <p className="mt-2 whitespace-pre-line" data-testid="preview-body">
                  {preview(body, first ?? null)}
                </p>
              </section>
              <SendTimeField
                value={sendTime}
                onChange={setSendTime}
                error={triedLaunch || (sendTime.mode === "later" && sendTime.local) ? timeError : null}
              />
              <PreflightReview channel="email" preflight={preflight} consent={false} onConsent={() => {}} />
            </div>
          )}
        </CardContent>
      </Card>
      <WizardNav
        step={step}
        last={STEPS.length - 1}
        busy={busy}
        launchDisabled={!preflight.result || preflight.nobody}
        onBack={() => setStep((s) => Math.max(0, s - 1))}
        onNext={next}
        onLaunch={() => void launch()}
        launchLabel={sendTime.mode === "later" ? "Schedule Campaign" : undefined}
      />
    </div>
  );
}
