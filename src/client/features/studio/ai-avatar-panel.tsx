import { useQuery } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import type { inferRouterOutputs } from "@trpc/server";
import { Bot, CheckCircle2, Clock, Copy, Download, Loader2, Sparkles, XCircle } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { FormField } from "@/client/components/ui/form-field";
import { Textarea } from "@/client/components/ui/textarea";
import { errorMessage, isServerRefusal } from "@/client/lib/errors";
import { cn } from "@/client/lib/utils";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import type { AppRouter } from "@/server/trpc/router";
import { formatDuration } from "./format";
import { MediaPlayer } from "./media-player";

type AvatarOut = inferRouterOutputs<AppRouter>["avatar"];
/** A recent video as the tRPC `avatar.list` returns it (also the shape of `create` and `status`). */
type RecentVideo = AvatarOut["list"][number];
type ProviderName = RecentVideo["provider"];
type AvatarStatus = RecentVideo["status"];
/** A provider of this deployment (`avatar.providers`). */
type ProviderInfo = AvatarOut["providers"][number];

function fromRecent(v: RecentVideo, startedAt = Date.parse(v.createdAt) || Date.now()): CurrentVideo {
  return {
    provider: v.provider,
    videoId: v.videoId,
    status: v.status,
    videoUrl: v.videoUrl,
    error: v.error,
    startedAt,
  };
}

/** What the panel shows about the current video (spec section 3: avatar video creation response). */
type CurrentVideo = Pick<RecentVideo, "provider" | "videoId" | "status" | "videoUrl" | "error"> & {
  /** when the panel started showing it (ms since epoch), for the elapsed clock */
  startedAt: number;
};

/** Spec section 9: status polling every 5000 ms; processing "is said to take 1 to 2 minutes". */
const POLL_MS = 5000;
const MAX_SCRIPT = 5000;
/** espeak-ng / vendor voices speak about 150-165 words a minute */
const WORDS_PER_MINUTE = 160;

const PROVIDER_TEXT: Record<ProviderName, { title: string; detail: string; vendor?: boolean }> = {
  did: { title: "D-ID", detail: "Standard quality", vendor: true },
  heygen: { title: "HeyGen", detail: "Premium quality", vendor: true },
  local: { title: "Local preview", detail: "Offline: text-to-speech presenter, clearly labelled" },
};

const STATUS_BADGE: Record<
  AvatarStatus,
  { label: string; variant: "secondary" | "warning" | "success" | "destructive" }
> = {
  created: { label: "Created", variant: "secondary" },
  processing: { label: "Processing", variant: "warning" },
  completed: { label: "Completed", variant: "success" },
  error: { label: "Error", variant: "destructive" },
};

/** The error text the spec asks for (section 8): server text, else 'Failed to create video'; network: 'Network error: ' plus detail. */
function createErrorText(error: unknown): string {
  if (isServerRefusal(error)) return errorMessage(error, "Failed to create video");
  if (error instanceof TRPCClientError) return "Network error: the server could not be reached";
  if (error instanceof Error) return `Network error: ${error.message}`;
  return "Failed to create video";
}

function ElapsedClock({ since }: { since: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, []);
  return <span className="tabular-nums">{formatDuration((now - since) / 1000)}</span>;
}

/**
 * AI avatar video tab of /studio (spec sections 2, 4, 5, 8): choose a provider (D-ID standard, HeyGen
 * premium, or the offline local preview), write a script, Generate Video, then a result with the
 * video id, status, player and download link. The status is polled from Pitchwise every 5000 ms while
 * created or processing (never from the vendor); the finished video is stored in the library.
 * `onCreated` refreshes the library when a video lands there.
 */
export function AiAvatarPanel({ onCreated }: { onCreated?: () => void }) {
  const trpc = useTRPC();
  const trpcClient = useTRPCClient();
  const providersQuery = useQuery(trpc.avatar.providers.queryOptions());
  const providers: ProviderInfo[] = providersQuery.data ?? [];
  const [provider, setProvider] = useState<ProviderName | null>(null);
  const [script, setScript] = useState("");
  const [scriptError, setScriptError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [current, setCurrent] = useState<CurrentVideo | null>(null);
  const notified = useRef<string | null>(null);
  const restored = useRef(false);
  const recentQuery = useQuery(trpc.avatar.list.queryOptions({ limit: 5 }));
  const recent: RecentVideo[] = recentQuery.data ?? [];

  // coming back to the tab: pick up a video that is still being made
  useEffect(() => {
    if (restored.current || !recentQuery.data) return;
    restored.current = true;
    // (or shows the last one made, without announcing it again)
    const pick = recent.find((v) => v.status === "created" || v.status === "processing") ?? recent[0];
    if (pick && !current) {
      if (pick.status === "completed") notified.current = pick.videoId;
      setCurrent(fromRecent(pick));
    }
  }, [recentQuery.data, recent, current]);

  // default choice: AVATAR_PROVIDER if configured, else the first configured one
  useEffect(() => {
    if (provider || !providers.length) return;
    const pick = providers.find((p) => p.isDefault && p.configured) ?? providers.find((p) => p.configured);
    if (pick) setProvider(pick.name);
  }, [providers, provider]);

  const polling = current !== null && (current.status === "created" || current.status === "processing");
  const statusQuery = useQuery({
    ...trpc.avatar.status.queryOptions({
      provider: current?.provider ?? "",
      videoId: current?.videoId ?? "",
    }),
    enabled: polling,
    refetchInterval: polling ? POLL_MS : false,
    refetchIntervalInBackground: true,
  });

  useEffect(() => {
    const s = statusQuery.data;
    if (!s || !current) return;
    if (s.status !== current.status || s.videoUrl !== current.videoUrl || s.error !== current.error)
      setCurrent({ ...current, status: s.status, videoUrl: s.videoUrl, error: s.error });
  }, [statusQuery.data, current]);

  useEffect(() => {
    if (current?.status === "completed" && notified.current !== current.videoId) {
      notified.current = current.videoId;
      toast.success("Your avatar video is ready and saved to the library");
      onCreated?.();
      void recentQuery.refetch();
    }
    if (current?.status === "error") void recentQuery.refetch();
  }, [current, onCreated, recentQuery.refetch]);

  async function generate() {
    setFormError(null);
    if (!script.trim()) {
      setScriptError("Please enter a script");
      return;
    }
    if (!provider) {
      setFormError("Choose a provider");
      return;
    }
    setScriptError(null);
    setSubmitting(true);
    try {
      // a video the vendor refused comes back with status `error` and the vendor's reason
      const res = await trpcClient.avatar.create.mutate({ provider, script: script.trim() });
      setCurrent(fromRecent(res, Date.now()));
      void recentQuery.refetch();
    } catch (error) {
      setFormError(createErrorText(error));
    } finally {
      setSubmitting(false);
    }
  }

  const words = script.trim() ? script.trim().split(/\s+/).length : 0;
  const estimate = Math.round((words / WORDS_PER_MINUTE) * 60);

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <Bot className="size-5 text-primary-text" aria-hidden /> AI Avatar Video
          </CardTitle>
        </CardHeader>
        <CardContent className="space-y-5">
          {formError && (
            <AlertBanner variant="error" onDismiss={() => setFormError(null)}>
              {formError}
            </AlertBanner>
          )}
          <fieldset className="space-y-2">
            <legend className="mb-2 text-sm font-medium">Provider</legend>
            {providersQuery.isLoading && (
              <p className="text-sm text-muted-foreground">Loading providers...</p>
            )}
            {providersQuery.isError && (
              <AlertBanner variant="error">
                Could not load the avatar providers. Please refresh the page.
              </AlertBanner>
            )}
            <div className="grid gap-2 sm:grid-cols-3" role="radiogroup" aria-label="Avatar provider">
              {providers.map((p) => {
                const text = PROVIDER_TEXT[p.name];
                const selected = provider === p.name;
                return (
                  <label
                    key={p.name}
                    className={cn(
                      "flex cursor-pointer flex-col gap-1 rounded-lg border border-border p-3 text-sm transition focus-within:ring-2 focus-within:ring-ring",
                      selected && "border-primary bg-primary/5",
                      !p.configured && "cursor-not-allowed opacity-60",
                    )}
                  >
                    <span className="flex items-center gap-2 font-medium">
                      <input
                        type="radio"
                        name="avatar-provider"
                        value={p.name}
                        checked={selected}
                        disabled={!p.configured}
                        onChange={() => setProvider(p.name)}
                        className="accent-[var(--color-primary)]"
                        data-testid={`avatar-provider-${p.name}`}
                      />
                      {text.title}
                    </span>
                    <span className="text-xs text-muted-foreground">{text.detail}</span>
                    {!p.configured && text.vendor && (
                      <span className="text-xs text-muted-foreground">Not available yet on this account</span>
                    )}
                  </label>
                );
              })}
            </div>
          </fieldset>
          <FormField
            label="Script"
            htmlFor="avatar-script"
            error={scriptError ?? undefined}
            hint={
              <span>
                {script.length}/{MAX_SCRIPT} characters
                {words > 0 && ` · about ${formatDuration(estimate)} of speech`}
              </span>
            }
          >
            <Textarea
              id="avatar-script"
              rows={7}
              maxLength={MAX_SCRIPT}
              value={script}
              placeholder="Hi there, I recorded this quick video for you..."
              aria-invalid={scriptError ? true : undefined}
              onChange={(e) => {
                setScript(e.target.value);
                if (scriptError && e.target.value.trim()) setScriptError(null);
              }}
            />
          </FormField>
          <Button
            onClick={() => void generate()}
            loading={submitting}
            disabled={polling}
            data-testid="avatar-generate"
          >
            <Sparkles className="size-4" aria-hidden /> {submitting ? "Generating..." : "Generate Video"}
          </Button>
          {polling && (
            <p className="text-xs text-muted-foreground">
              One video at a time here: wait for this one to finish (you can leave this page, it keeps going).
            </p>
          )}
        </CardContent>
      </Card>

      <Card aria-live="polite" data-testid="avatar-result">
        <CardHeader>
          <CardTitle>Result</CardTitle>
        </CardHeader>
        <CardContent className="space-y-4">
          {!current ? (
            <div className="flex flex-col items-center gap-2 py-10 text-center text-sm text-muted-foreground">
              <Bot className="size-10 text-primary/60" aria-hidden />
              <p>Your avatar video appears here. Processing usually takes 1 to 2 minutes.</p>
            </div>
          ) : (
            <>
              <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
                <dt className="text-muted-foreground">Video ID</dt>
                <dd className="flex items-center gap-2">
                  <code className="truncate text-xs" data-testid="avatar-video-id">
                    {current.videoId}
                  </code>
                  <Button
                    variant="ghost"
                    size="icon-sm"
                    aria-label="Copy video id"
                    onClick={() =>
                      void navigator.clipboard
                        ?.writeText(current.videoId)
                        .then(() => toast.success("Video ID copied"))
                    }
                  >
                    <Copy className="size-3.5" aria-hidden />
                  </Button>
                </dd>
                <dt className="text-muted-foreground">Provider</dt>
                <dd>{PROVIDER_TEXT[current.provider].title}</dd>
                <dt className="text-muted-foreground">Status</dt>
                <dd>
                  <Badge variant={STATUS_BADGE[current.status].variant} data-testid="avatar-status">
                    {current.status === "completed" ? (
                      <CheckCircle2 aria-hidden />
                    ) : current.status === "error" ? (
                      <XCircle aria-hidden />
                    ) : (
                      <Loader2 className="animate-spin" aria-hidden />
                    )}
                    {STATUS_BADGE[current.status].label}
                  </Badge>
                </dd>
              </dl>
              {polling && (
                <div className="space-y-2">
                  <div
                    role="progressbar"
                    aria-label="Avatar video progress"
                    aria-valuetext={current.status === "created" ? "Queued" : "Rendering"}
                    className="h-2 w-full overflow-hidden rounded-full bg-muted"
                  >
                    <div
                      className={cn(
                        "h-full animate-pulse rounded-full bg-primary transition-[width] duration-700",
                        current.status === "created" ? "w-1/3" : "w-2/3",
                      )}
                    />
                  </div>
                  <p className="text-xs font-medium">
                    {current.status === "created"
                      ? "Queued at the provider"
                      : "Rendering and saving to your library"}
                  </p>
                  <p className="flex items-center gap-1.5 text-xs text-muted-foreground">
                    <Clock className="size-3.5" aria-hidden /> <ElapsedClock since={current.startedAt} />{" "}
                    elapsed. Processing usually takes 1 to 2 minutes; status refreshes every 5 seconds.
                  </p>
                </div>
              )}
              {statusQuery.isError && polling && (
                <AlertBanner variant="warning">
                  {!isServerRefusal(statusQuery.error)
                    ? "Network error: lost contact with the server, retrying..."
                    : `Could not refresh the status: ${statusQuery.error.message}`}
                </AlertBanner>
              )}
              {current.status === "error" && (
                <AlertBanner variant="error" title="Video generation failed">
                  {current.error && current.error !== "Video generation failed" ? current.error : null}
                </AlertBanner>
              )}
              {current.status === "completed" && current.videoUrl && (
                <div className="space-y-3">
                  <MediaPlayer src={current.videoUrl} type="video" mime="video/mp4" title="AI avatar video" />
                  <Button asChild variant="outline">
                    <a
                      href={current.videoUrl}
                      download={`avatar-${current.videoId}.mp4`}
                      data-testid="avatar-download"
                    >
                      <Download className="size-4" aria-hidden /> Download video
                    </a>
                  </Button>
                </div>
              )}
            </>
          )}
        </CardContent>
      </Card>

      {recent.length > 0 && (
        <section aria-labelledby="avatar-recent-heading" className="lg:col-span-2">
          <h3 id="avatar-recent-heading" className="mb-2 text-sm font-semibold">
            Recent avatar videos
          </h3>
          <ul className="divide-y divide-border rounded-lg border border-border" data-testid="avatar-recent">
            {recent.map((v) => (
              <li key={v.videoId} className="flex items-center gap-3 px-3 py-2 text-sm">
                <Badge variant={STATUS_BADGE[v.status].variant}>{STATUS_BADGE[v.status].label}</Badge>
                <span className="min-w-0 flex-1 truncate" title={v.title}>
                  {v.title}
                </span>
                <span className="hidden text-xs text-muted-foreground sm:inline">
                  {PROVIDER_TEXT[v.provider].title} · {new Date(v.createdAt).toLocaleString()}
                </span>
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={`Show ${v.title}`}
                  disabled={current?.videoId === v.videoId}
                  onClick={() => setCurrent(fromRecent(v))}
                >
                  Show
                </Button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
