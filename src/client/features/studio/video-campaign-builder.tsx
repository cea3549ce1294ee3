import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import type { inferRouterOutputs } from "@trpc/server";
import { CheckCircle2, Mail, MessageSquare, PartyPopper, Video } from "lucide-react";
import { useEffect, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button, buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Skeleton } from "@/client/components/ui/skeleton";
import {
  type AudienceState,
  audienceBody,
  audienceChosen,
  emptyAudience,
  previewRecipient,
} from "@/client/features/campaigns/audience";
import { AudienceStep, PreflightReview, usePreflight } from "@/client/features/campaigns/audience-step";
import { type LaunchError, LaunchErrorBanner, launchError } from "@/client/features/campaigns/launch-error";
import { useLaunchToken } from "@/client/features/campaigns/launch-token";
import { MergeTagTextarea, usePreview } from "@/client/features/campaigns/merge-tag-field";
import { PlanFeatureNotice } from "@/client/features/campaigns/plan-feature-notice";
import { PostalAddressNotice } from "@/client/features/campaigns/postal-address-notice";
import { AlreadyLaunchedCard } from "@/client/features/campaigns/wizard";
import { plural } from "@/client/lib/format";
import { cn } from "@/client/lib/utils";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import { mergeValue } from "@/server/lib/merge-tags";
import type { AppRouter } from "@/server/trpc/router";
import { parseCampaignCsv } from "./campaign-csv";
import { formatDuration } from "./format";

/** What `campaigns.launchVideoCampaign` answers (queued count, skipped counts by reason). */
type LaunchResult = inferRouterOutputs<AppRouter>["campaigns"]["launchVideoCampaign"];

const STEPS = ["Select Video", "Delivery Settings", "Select Contacts", "Review & Launch"] as const;

/**
 * The video campaign builder (spec sections 2, 5, 8): 1 Select Video (name + video; a link to
 * /video-creator when there are none), 2 Delivery Settings (email or sms, optional message with
 * placeholders), 3 Upload Contacts (CSV), 4 Review & Launch; 'Campaign Launched!' with Back to
 * Dashboard. Sent through POST /api/campaigns/video (the campaign engine).
 */
export function VideoCampaignBuilder({ initialVideoId }: { initialVideoId?: number }) {
  const trpc = useTRPC();
  const { data: videos, isLoading, isError } = useQuery(trpc.studio.myVideos.queryOptions());
  const [step, setStep] = useState(0);
  const [name, setName] = useState("");
  const [videoId, setVideoId] = useState<number | null>(initialVideoId ?? null);
  /** "library": one video for everyone; "avatar": a personalised AI avatar video per recipient */
  const [source, setSource] = useState<"library" | "avatar">("library");
  const [avatarScript, setAvatarScript] = useState(
    "Hi {{name|there}}, thanks for taking a minute. I made this short video just for you.",
  );
  const [delivery, setDelivery] = useState<"email" | "sms">("email");
  const [subject, setSubject] = useState("");
  const [message, setMessage] = useState(
    "Hi {{first_name|there}}, I recorded a quick video for {{company|your company}}. Have a look!",
  );
  const preview = usePreview();
  const [ctaLabel, setCtaLabel] = useState("");
  const [ctaUrl, setCtaUrl] = useState("");
  const client = useTRPCClient();
  // one token per builder session: a repeated launch answers the first campaign (launch-token.ts)
  const launchToken = useLaunchToken();
  const [csvText, setCsvText] = useState<string | null>(null);
  const [audience, setAudience] = useState<AudienceState>(() => emptyAudience("csv"));
  const [consent, setConsent] = useState(false);
  const [error, setError] = useState<string | LaunchError | null>(null);
  const [launching, setLaunching] = useState(false);
  const [launched, setLaunched] = useState<LaunchResult | null>(null);

  useEffect(() => {
    if (initialVideoId) setVideoId(initialVideoId);
  }, [initialVideoId]);

  // re-check the CSV when the delivery method changes (the needed column differs)
  useEffect(() => {
    if (csvText === null) return;
    try {
      const csvRows = parseCampaignCsv(csvText, delivery);
      setAudience((a) => ({ ...a, csvRows }));
      setError(null);
    } catch (e) {
      setAudience((a) => ({ ...a, csvRows: [] }));
      setError((e as Error).message);
    }
  }, [csvText, delivery]);
  const channel = delivery === "email" ? "video_email" : "video_sms";
  // a video SMS's message: recipients whose text (with its video link) filled in is too long are skipped
  const preflight = usePreflight(
    channel,
    audience,
    consent,
    step === 3,
    undefined,
    delivery === "sms" ? message : undefined,
  );
  /**
   * the first recipient, for the previews: the preflight's (every field the send merges, the CRM's
   * values for a CSV row of an existing contact), else the first one known on the client
   */
  const first = previewRecipient(audience, preflight.result);

  const video = videos?.find((v) => v.id === videoId) ?? null;
  const avatar = source === "avatar";
  const hasVideo = avatar ? avatarScript.trim().length > 0 : !!video;

  function next() {
    setError(null);
    if (step === 0 && (!name.trim() || !hasVideo))
      return setError(
        avatar
          ? "Please enter a campaign name and a script"
          : "Please enter a campaign name and choose a video",
      );
    if (step === 2 && !audienceChosen(audience))
      return setError(
        audience.source !== "csv"
          ? "Please select at least one contact"
          : csvText === null
            ? "Please upload a CSV file with your contacts"
            : "No contacts with the needed column were found in this CSV",
      );
    setStep((s) => Math.min(3, s + 1));
  }

  /** Launches the draft; `allowRepeat` after "Send it again" on an identical earlier campaign. */
  async function launch(allowRepeat = false) {
    setError(null);
    const recipients = audienceBody(audience);
    if (!name.trim() || !hasVideo || !recipients) return setError("Please complete all steps");
    setLaunching(true);
    try {
      const res = await client.campaigns.launchVideoCampaign.mutate({
        campaignName: name.trim(),
        ...(avatar || !video
          ? { avatarScript: avatarScript.trim(), avatarProvider: "local" }
          : { videoId: video.id, videoUrl: video.url }),
        deliveryMethod: delivery,
        message,
        ...(delivery === "email" && subject.trim() ? { subject: subject.trim() } : {}),
        ...(ctaUrl.trim() ? { ctaUrl: ctaUrl.trim(), ctaLabel: ctaLabel.trim() || undefined } : {}),
        includeNotOptedIn: delivery === "sms" ? consent : undefined,
        ...(recipients.contacts
          ? {
              contacts: recipients.contacts.map((c) => ({
                name: c.name,
                company: c.company,
                email: c.email || null,
                phone: c.phone || null,
              })),
            }
          : { audience: recipients.audience }),
        launchToken,
        ...(allowRepeat ? { allowRepeat } : {}),
      });
      setLaunched(res);
    } catch (e) {
      setError(launchError(e, "Campaign failed"));
    } finally {
      setLaunching(false);
    }
  }

  // an identical campaign launched minutes ago from another tab answered the launch (nothing sent)
  if (launched?.repeated && launched.otherLaunch)
    return (
      <AlreadyLaunchedCard
        campaign={launched.campaign}
        sending={launching}
        onSendAgain={() => void launch(true)}
      />
    );
  if (launched) {
    const skipped = Object.entries(launched.skipped ?? {});
    return (
      <Card className="mx-auto max-w-lg text-center">
        <CardContent className="flex flex-col items-center gap-4 p-10">
          <PartyPopper className="size-12 text-primary" aria-hidden />
          <h2 className="text-2xl font-semibold">Campaign Launched!</h2>
          <p className="text-muted-foreground">Sending your video to {plural(launched.queued, "contact")}.</p>
          {skipped.length > 0 && (
            <ul className="text-sm text-muted-foreground">
              {skipped.map(([reason, n]) => (
                <li key={reason}>
                  Skipped {n}: {reason}
                </li>
              ))}
            </ul>
          )}
          <Link to="/dashboard" className={buttonVariants()}>
            Back to Dashboard
          </Link>
        </CardContent>
      </Card>
    );
  }

  return (
    <div className="space-y-6">
      <PlanFeatureNotice channel="video" />
      <ol className="grid grid-cols-2 gap-2 sm:grid-cols-4" aria-label="Steps">
        {STEPS.map((label, i) => (
          <li
            key={label}
            aria-current={i === step ? "step" : undefined}
            className={cn(
              "flex items-center gap-2 rounded-lg border px-3 py-2 text-sm",
              i === step
                ? "border-primary bg-primary/5 font-medium"
                : i < step
                  ? "border-border text-foreground"
                  : "border-border text-muted-foreground",
            )}
          >
            <span
              className={cn(
                "flex size-6 items-center justify-center rounded-full text-xs",
                i <= step ? "bg-primary text-primary-foreground" : "bg-muted",
              )}
            >
              {i < step ? <CheckCircle2 className="size-4" aria-hidden /> : i + 1}
            </span>
            {label}
          </li>
        ))}
      </ol>

      <LaunchErrorBanner error={error} />

      <Card>
        <CardHeader>
          <CardTitle>
            Step {step + 1}: {STEPS[step]}
          </CardTitle>
        </CardHeader>
        <CardContent className="space-y-5">
          {step === 0 && (
            <>
              <div className="space-y-1.5">
                <Label htmlFor="vc-name">Campaign name</Label>
                <Input
                  id="vc-name"
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                  placeholder="Spring promotion"
                  maxLength={200}
                />
              </div>
              <fieldset className="space-y-2">
                <legend className="text-sm font-medium">Video</legend>
                <div className="flex flex-wrap gap-2">
                  {(
                    [
                      ["library", "A video from my library"],
                      ["avatar", "Personalised AI avatar"],
                    ] as const
                  ).map(([value, label]) => (
                    <label
                      key={value}
                      className={cn(
                        "cursor-pointer rounded-lg border-2 px-3 py-2 text-sm focus-within:ring-2 focus-within:ring-ring",
                        source === value ? "border-primary" : "border-border hover:border-primary/50",
                      )}
                    >
                      <input
                        type="radio"
                        name="video-source"
                        className="sr-only"
                        checked={source === value}
                        onChange={() => setSource(value)}
                      />
                      {label}
                    </label>
                  ))}
                </div>
              </fieldset>
              {avatar && (
                <div className="space-y-2">
                  <Label htmlFor="vc-avatar-script">Avatar script</Label>
                  <MergeTagTextarea
                    id="vc-avatar-script"
                    value={avatarScript}
                    onChange={setAvatarScript}
                    rows={5}
                    maxLength={5000}
                  />
                  <p className="text-xs text-muted-foreground">
                    Each recipient gets their own AI avatar video speaking this script with their details
                    filled in (local preview avatar). Their message is sent as soon as their video is ready.
                    Counts toward your plan's monthly video messages.
                  </p>
                </div>
              )}
              {!avatar && isLoading && <Skeleton className="h-40 w-full" />}
              {!avatar && isError && <AlertBanner variant="error">Failed to load videos</AlertBanner>}
              {!avatar && videos && videos.length === 0 && (
                <EmptyState
                  icon={Video}
                  title="No videos yet"
                  description="Record, upload or generate a video first."
                  action={
                    <Link to="/video-creator" className={buttonVariants({ variant: "outline" })}>
                      Create a video
                    </Link>
                  }
                />
              )}
              {!avatar && videos && videos.length > 0 && (
                <fieldset>
                  <legend className="mb-2 text-sm font-medium">Choose a video</legend>
                  <div className="grid gap-3 [grid-template-columns:repeat(auto-fill,minmax(220px,1fr))]">
                    {videos.map((v) => (
                      <label
                        key={v.id}
                        className={cn(
                          "cursor-pointer overflow-hidden rounded-xl border-2 transition focus-within:ring-2 focus-within:ring-ring",
                          videoId === v.id ? "border-primary" : "border-border hover:border-primary/50",
                        )}
                      >
                        <input
                          type="radio"
                          name="video"
                          className="sr-only"
                          checked={videoId === v.id}
                          onChange={() => setVideoId(v.id)}
                        />
                        <div className="aspect-video bg-black">
                          {v.thumbnail_url && (
                            <img src={v.thumbnail_url} alt="" className="size-full object-cover" />
                          )}
                        </div>
                        <div className="flex items-center justify-between gap-2 p-2 text-sm">
                          <span className="truncate font-medium">{v.title}</span>
                          <span className="text-muted-foreground">{formatDuration(v.duration)}</span>
                        </div>
                      </label>
                    ))}
                  </div>
                </fieldset>
              )}
            </>
          )}

          {step === 1 && (
            <>
              <fieldset className="space-y-2">
                <legend className="text-sm font-medium">Delivery method</legend>
                <div className="flex gap-3">
                  {(
                    [
                      ["email", "Email", Mail],
                      ["sms", "SMS", MessageSquare],
                    ] as const
                  ).map(([value, label, Icon]) => (
                    <label
                      key={value}
                      className={cn(
                        "flex flex-1 cursor-pointer items-center gap-2 rounded-lg border-2 px-4 py-3 focus-within:ring-2 focus-within:ring-ring",
                        delivery === value ? "border-primary bg-primary/5" : "border-border",
                      )}
                    >
                      <input
                        type="radio"
                        name="delivery"
                        value={value}
                        checked={delivery === value}
                        onChange={() => setDelivery(value)}
                        className="sr-only"
                      />
                      <Icon className="size-4" aria-hidden /> {label}
                    </label>
                  ))}
                </div>
              </fieldset>
              {delivery === "email" && (
                <div className="space-y-1.5">
                  <Label htmlFor="vc-subject">Subject (optional)</Label>
                  <Input
                    id="vc-subject"
                    value={subject}
                    onChange={(e) => setSubject(e.target.value)}
                    placeholder="A quick video for you"
                    maxLength={300}
                  />
                </div>
              )}
              <div className="space-y-1.5">
                <Label htmlFor="vc-message">Message (optional)</Label>
                <MergeTagTextarea
                  id="vc-message"
                  rows={4}
                  value={message}
                  onChange={setMessage}
                  maxLength={1600}
                />
                <p className="text-xs text-muted-foreground">
                  Merge tags such as {"{{first_name|there}}"} are filled in per contact (the text after | is
                  used when the contact has no value). The video link is added automatically.
                </p>
              </div>
              <div className="grid gap-4 sm:grid-cols-2">
                <div className="space-y-1.5">
                  <Label htmlFor="vc-cta-label">Landing page button (optional)</Label>
                  <Input
                    id="vc-cta-label"
                    value={ctaLabel}
                    onChange={(e) => setCtaLabel(e.target.value)}
                    placeholder="Book a call"
                    maxLength={60}
                  />
                </div>
                <div className="space-y-1.5">
                  <Label htmlFor="vc-cta-url">Button link</Label>
                  <Input
                    id="vc-cta-url"
                    type="url"
                    value={ctaUrl}
                    onChange={(e) => setCtaUrl(e.target.value)}
                    placeholder="https://calendly.com/you"
                    maxLength={2000}
                  />
                </div>
              </div>
            </>
          )}

          {step === 2 && (
            <AudienceStep
              need={delivery === "email" ? "email" : "phone"}
              value={audience}
              onChange={setAudience}
              csvInputId="vc-csv"
              parseCsv={(text) => {
                const rows = parseCampaignCsv(text, delivery);
                setCsvText(text);
                return rows;
              }}
            />
          )}

          {step === 3 && hasVideo && (
            <div className="grid gap-6 md:grid-cols-2">
              {delivery === "email" && <PostalAddressNotice className="md:col-span-2" />}
              <dl className="space-y-3 text-sm">
                <div>
                  <dt className="text-muted-foreground">Campaign</dt>
                  <dd className="font-medium">{name}</dd>
                </div>
                <div>
                  <dt className="text-muted-foreground">Video</dt>
                  <dd className="font-medium">
                    {avatar || !video
                      ? "Personalised AI avatar (one video per recipient)"
                      : `${video.title} (${formatDuration(video.duration)})`}
                  </dd>
                </div>
                <div>
                  <dt className="text-muted-foreground">Delivery</dt>
                  <dd>
                    <Badge variant="secondary">{delivery === "email" ? "Email" : "SMS"}</Badge>
                  </dd>
                </div>
                <div>
                  <dt className="text-muted-foreground">Recipients</dt>
                  <dd className="font-medium">{preflight.result ? preflight.reach : "..."}</dd>
                </div>
              </dl>
              <div className="space-y-2">
                <p className="text-sm text-muted-foreground">
                  Preview for {(first && mergeValue(first, "name")) || "the first contact"}
                </p>
                <div className="rounded-xl border border-border p-4 text-sm">
                  {avatar && (
                    <p className="mb-3 rounded-lg bg-muted p-3 italic">
                      Avatar says: “{preview(avatarScript, first)}”
                    </p>
                  )}
                  {!avatar && video?.thumbnail_url && (
                    <img
                      src={video.gif_url ?? video.thumbnail_url}
                      alt=""
                      className="mb-3 w-full rounded-lg"
                    />
                  )}
                  <p className="whitespace-pre-line">{preview(message, first) || "(no message)"}</p>
                  <p className="mt-2 text-primary-text underline">Watch the video</p>
                </div>
              </div>
              <div className="md:col-span-2">
                <PreflightReview
                  channel={channel}
                  preflight={preflight}
                  consent={consent}
                  onConsent={setConsent}
                />
              </div>
            </div>
          )}
        </CardContent>
      </Card>

      <div className="flex justify-between">
        <Button
          variant="outline"
          onClick={() => setStep((s) => Math.max(0, s - 1))}
          disabled={step === 0 || launching}
        >
          Back
        </Button>
        {step < 3 ? (
          <Button onClick={next}>Next</Button>
        ) : (
          <Button
            onClick={() => void launch()}
            loading={launching}
            disabled={launching || !preflight.result || preflight.nobody}
          >
            Launch Campaign
          </Button>
        )}
      </div>
    </div>
  );
}
