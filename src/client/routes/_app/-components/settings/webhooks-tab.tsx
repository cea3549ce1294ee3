import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, Send, Trash2, Webhook } from "lucide-react";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/client/components/ui/select";
import { Switch } from "@/client/components/ui/switch";
import type { PlanRefusal } from "@/client/features/billing/plan-refusal";
import { focusLost } from "@/client/lib/focus-rescue";
import { formatDate, formatDateTime } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";
import {
  type WebhookEventType as EventType,
  ROLL_SECRET_DEFAULT_HOURS,
  ROLL_SECRET_MAX_HOURS,
} from "@/server/features/webhooks/webhooks.schemas";
import { ApiAccessNotice } from "./api-access-notice";
import { describeDelivery, type describeSchedule, logRefetchMs } from "./delivery-schedule";
import type { ShowBanner } from "./types";

/**
 * Settings > Webhooks (issue 15, owner and admin): endpoints (https URL, events, secret shown once),
 * enable/disable, roll the signing secret (RollSecretDialog: the new secret shown once under its row,
 * the row saying until when the previous one still signs), delivery log (status, response code,
 * duration, attempts, next attempt or gave up), resend, test event. An error banner (e.g. a URL refused as not public) goes once the form is edited.
 */
export function WebhooksTab({ onBanner: showBanner }: { onBanner: ShowBanner }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const endpoints = useQuery(trpc.webhooks.list.queryOptions(undefined, { retry: false }));
  const types = useQuery(trpc.webhooks.eventTypes.queryOptions());
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["contact.created"]);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  /** the endpoint whose roll dialog is open */
  const [rolling, setRolling] = useState<{ id: string; url: string } | null>(null);
  /** the secret a roll returned, shown once under its endpoint's row */
  const [rolled, setRolled] = useState<{ id: string; secret: string } | null>(null);
  const urlId = useId();
  /** whether the page's banner shows an error this tab reported (cleared when the form is edited) */
  const errorShown = useRef(false);
  const onBanner: ShowBanner = (banner) => {
    errorShown.current = banner?.variant === "error";
    showBanner(banner);
  };
  /** a change to the form: the error of the last refused submit no longer applies */
  const edited = () => {
    if (errorShown.current) onBanner(null);
  };
  // the new endpoint's secret, shown once: focus goes to it after Add endpoint, whose button turns off
  // with the emptied URL field and drops keyboard focus to the page's top (only when focus was lost)
  const secretBox = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (secret && focusLost()) secretBox.current?.focus();
  }, [secret]);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
  const fail = (e: { message: string; data?: { planRefusal?: PlanRefusal | null } | null }) =>
    onBanner({ variant: "error", message: e.message, refusal: e.data?.planRefusal });
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (r) => {
        setSecret(r.secret);
        setUrl("");
        onBanner({
          variant: "success",
          message: "Endpoint added. Copy its signing secret now: it is shown once.",
        });
        void refresh();
      },
      onError: fail,
    }),
  );
  const setEnabled = useMutation(
    trpc.webhooks.setEnabled.mutationOptions({ onSuccess: () => void refresh(), onError: fail }),
  );
  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: (r) => {
        setRolled({ id: r.id, secret: r.secret });
        onBanner({
          variant: "success",
          message: r.previous_secret_expires_at
            ? `Secret rolled. Copy the new signing secret now: it is shown once. The previous secret also signs deliveries until ${formatDateTime(r.previous_secret_expires_at)}.`
            : "Secret rolled. Copy the new signing secret now: it is shown once. The previous secret no longer signs deliveries.",
        });
        void refresh();
      },
      onError: fail,
    }),
  );
  const remove = useMutation(
    trpc.webhooks.remove.mutationOptions({ onSuccess: () => void refresh(), onError: fail }),
  );
  // the event type each endpoint's Test sends (its first subscribed type until another is chosen)
  const [testTypes, setTestTypes] = useState<Record<string, EventType>>({});
  const test = useMutation(
    trpc.webhooks.test.mutationOptions({
      onSuccess: (r, v) => {
        onBanner(null);
        toast.success(`Test ${r.type} event queued. Its delivery shows in the log below.`);
        setOpen(v.id);
        void qc.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey({ id: v.id }) });
      },
      onError: fail,
    }),
  );

  if (endpoints.error) return <p role="alert">{endpoints.error.message}</p>;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ url, events: events as never });
  };

  return (
    <div className="grid grid-cols-1 gap-6">
      <ApiAccessNotice what="webhooks" />
      <Card>
        <CardHeader>
          <CardTitle>Add a webhook endpoint</CardTitle>
          <CardDescription>
            Events are POSTed as JSON and signed per the Standard Webhooks specification (webhook-id,
            webhook-timestamp, webhook-signature).
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form onSubmit={submit} className="grid gap-4">
            <div className="grid gap-2">
              <Label htmlFor={urlId}>Endpoint URL (https)</Label>
              <Input
                id={urlId}
                type="url"
                placeholder="https://example.com/hooks/pitchwise"
                value={url}
                onChange={(e) => {
                  setUrl(e.target.value);
                  edited();
                }}
                required
              />
            </div>
            <fieldset className="grid gap-2">
              <legend className="mb-1 text-sm font-medium">Events</legend>
              <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
                {(types.data ?? []).map((t) => (
                  <label key={t} className="flex items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      className="size-4"
                      checked={events.includes(t)}
                      onChange={(e) => {
                        setEvents((c) => (e.target.checked ? [...c, t] : c.filter((x) => x !== t)));
                        edited();
                      }}
                    />
                    <code>{t}</code>
                  </label>
                ))}
              </div>
            </fieldset>
            <div>
              <Button type="submit" disabled={create.isPending || !url || events.length === 0}>
                <Webhook aria-hidden />
                Add endpoint
              </Button>
            </div>
          </form>
          {secret && (
            <div
              ref={secretBox}
              tabIndex={-1}
              className="mt-4 grid gap-2 rounded-md border border-border p-3 outline-none focus-visible:ring-2 focus-visible:ring-ring"
              data-testid="webhook-secret"
            >
              <p className="text-sm font-medium">Signing secret (shown once):</p>
              <code className="break-all text-sm">{secret}</code>
            </div>
          )}
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Endpoints</CardTitle>
          <CardDescription>
            An endpoint whose deliveries fail for 5 days is disabled and the owner emailed.
          </CardDescription>
        </CardHeader>
        <CardContent>
          {endpoints.isPending ? (
            <p className="text-sm text-muted-foreground">Loading endpoints...</p>
          ) : endpoints.data.length === 0 ? (
            <p className="text-sm text-muted-foreground">No webhook endpoints yet.</p>
          ) : (
            <ul className="divide-y divide-border" aria-label="Webhook endpoints">
              {endpoints.data.map((e) => (
                <li key={e.id} className="grid gap-2 py-3" data-testid="webhook-row">
                  <div className="flex flex-wrap items-center gap-3">
                    {/* the URL takes its own line on a phone, the controls wrap under it */}
                    <div className="min-w-0 flex-1 basis-full sm:basis-0">
                      <p className="break-all font-medium">{e.url}</p>
                      <p className="text-sm text-muted-foreground">{e.events.join(", ")}</p>
                      {e.creator_name && (
                        <p className="text-sm text-muted-foreground">
                          Added by {e.creator_name}
                          {e.creator_member ? "" : " (former member)"}
                        </p>
                      )}
                      {/* who turned it back on (it then delivers for them); the adder is kept above */}
                      {e.reenabled_by_name && (
                        <p className="text-sm text-muted-foreground" data-testid="webhook-reenabled-by">
                          Re-enabled by {e.reenabled_by_name}
                        </p>
                      )}
                      {e.disabled_reason && <p className="text-sm text-destructive">{e.disabled_reason}</p>}
                      {e.previous_secret_expires_at && (
                        <p className="text-sm text-muted-foreground" data-testid="webhook-previous-secret">
                          Previous secret valid until {formatDateTime(e.previous_secret_expires_at)}
                        </p>
                      )}
                      {/* an enabled endpoint whose deliveries are failing: said before the 5 days run out */}
                      {e.enabled && e.failing_since && (
                        <p className="text-sm text-destructive" data-testid="webhook-failing">
                          Deliveries failing since {formatDateTime(e.failing_since)}. It is disabled after 5
                          days of failures: see Deliveries for the errors.
                        </p>
                      )}
                    </div>
                    <Switch
                      checked={e.enabled}
                      aria-label={`Enabled: ${e.url}`}
                      onCheckedChange={(v) => setEnabled.mutate({ id: e.id, enabled: v })}
                    />
                    {/* a test of one of the endpoint's event types: that type's example data, test: true */}
                    {e.events.length > 1 && (
                      <Select
                        value={testTypes[e.id] ?? e.events[0]}
                        onValueChange={(v) => setTestTypes((m) => ({ ...m, [e.id]: v as EventType }))}
                      >
                        <SelectTrigger
                          className="h-8 w-auto min-w-44"
                          aria-label={`Test event type: ${e.url}`}
                        >
                          <SelectValue />
                        </SelectTrigger>
                        <SelectContent>
                          {e.events.map((type) => (
                            <SelectItem key={type} value={type}>
                              {type}
                            </SelectItem>
                          ))}
                        </SelectContent>
                      </Select>
                    )}
                    <Button
                      variant="outline"
                      size="sm"
                      disabled={test.isPending && test.variables?.id === e.id}
                      onClick={() => test.mutate({ id: e.id, type: testTypes[e.id] ?? e.events[0] })}
                    >
                      <Send aria-hidden />
                      Test
                    </Button>
                    <Button
                      variant="outline"
                      size="sm"
                      aria-label={`Roll secret: ${e.url}`}
                      disabled={rotate.isPending && rotate.variables?.id === e.id}
                      onClick={() => setRolling({ id: e.id, url: e.url })}
                    >
                      <KeyRound aria-hidden />
                      Roll secret
                    </Button>
                    <Button variant="outline" size="sm" onClick={() => setOpen(open === e.id ? null : e.id)}>
                      Deliveries
                    </Button>
                    <Button
                      variant="outline"
                      size="sm"
                      aria-label={`Delete ${e.url}`}
                      onClick={() => remove.mutate({ id: e.id })}
                    >
                      <Trash2 aria-hidden />
                    </Button>
                  </div>
                  {rolled?.id === e.id && (
                    <div
                      className="grid gap-2 rounded-md border border-border p-3"
                      data-testid="webhook-rolled-secret"
                    >
                      <p className="text-sm font-medium">New signing secret (shown once):</p>
                      <code className="break-all text-sm">{rolled.secret}</code>
                    </div>
                  )}
                  {open === e.id && <Deliveries endpointId={e.id} onBanner={onBanner} />}
                </li>
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
      <RollSecretDialog
        endpoint={rolling}
        onClose={() => setRolling(null)}
        onConfirm={(id, expiresInHours) => {
          setRolled(null);
          rotate.mutate({ id, expiresInHours });
        }}
      />
    </div>
  );
}

/**
 * How long a rolled secret's predecessor may keep signing (hours, webhooks.rotateSecret's
 * `expiresInHours`; the server allows 0 to ROLL_SECRET_MAX_HOURS and defaults to ROLL_SECRET_DEFAULT_HOURS).
 */
const ROLL_CHOICES = [
  { hours: 0, label: "Now", hint: "deliveries are signed with the new secret only" },
  { hours: 1, label: "In 1 hour", hint: "" },
  { hours: ROLL_SECRET_DEFAULT_HOURS, label: `In ${ROLL_SECRET_DEFAULT_HOURS} hours`, hint: "" },
  { hours: ROLL_SECRET_MAX_HOURS, label: "In 7 days", hint: "" },
] as const;

/**
 * The confirmation of rolling an endpoint's signing secret (open while `endpoint` is set): what
 * happens, and when the previous secret stops working (ROLL_CHOICES, the server's default preselected). Until
 * then deliveries carry a signature with each secret, so the receiver can switch to the new one.
 */
function RollSecretDialog({
  endpoint,
  onClose,
  onConfirm,
}: {
  endpoint: { id: string; url: string } | null;
  onClose: () => void;
  onConfirm: (id: string, expiresInHours: number) => void;
}) {
  const [hours, setHours] = useState<number>(ROLL_SECRET_DEFAULT_HOURS);
  const name = useId();
  const endpointId = endpoint?.id;
  // each opening starts from the default choice
  useEffect(() => {
    if (endpointId) setHours(ROLL_SECRET_DEFAULT_HOURS);
  }, [endpointId]);
  return (
    <Dialog open={endpoint !== null} onOpenChange={(o) => !o && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Roll the signing secret?</DialogTitle>
          <DialogDescription>
            A new secret is made for {endpoint?.url} and shown once. Until the previous secret stops working,
            each delivery is signed with both, so your receiver keeps verifying while you switch it to the new
            one.
          </DialogDescription>
        </DialogHeader>
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium">The previous secret stops working</legend>
          {ROLL_CHOICES.map((c) => (
            <label key={c.hours} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                className="size-4"
                name={name}
                value={c.hours}
                checked={hours === c.hours}
                onChange={() => setHours(c.hours)}
              />
              {c.label}
              {c.hint && <span className="text-muted-foreground">({c.hint})</span>}
            </label>
          ))}
        </fieldset>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button
            variant="destructive"
            onClick={() => {
              if (endpoint) onConfirm(endpoint.id, hours);
              onClose();
            }}
          >
            Roll secret
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/**
 * The current time (epoch ms), updated every second while `soonest` (the nearest future time shown
 * relative to now, epoch ms) is under 2 minutes away, every 30 seconds while it is further, and not
 * at all without one.
 */
function useNow(soonest: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  const tick = soonest === null ? null : soonest - Date.now() < 120_000 ? 1000 : 30_000;
  useEffect(() => {
    if (tick === null) return;
    const id = setInterval(() => setNow(Date.now()), tick);
    return () => clearInterval(id);
  }, [tick]);
  return now;
}

/**
 * An endpoint's delivery log. While any delivery shown is pending it is read again (logRefetchMs:
 * every 2 s while one is queued or due, so a queued test event or resend turns to its result without
 * a reload; when the pending ones wait for later retries, when the first comes due, at most a minute
 * later); the polling stops once none is pending. Each entry is told by describeDelivery: its state
 * (Queued, Sending, Retrying, Delivered, Failed), its latest outcome and, for a pending or failed
 * one, where it stands in its retry schedule (its one attempt count), the next attempt's full time
 * in its tooltip.
 */
function Deliveries({ endpointId, onBanner }: { endpointId: string; onBanner: ShowBanner }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const log = useQuery(
    trpc.webhooks.deliveries.queryOptions(
      { id: endpointId },
      { refetchInterval: (query) => logRefetchMs(query.state.data ?? [], Date.now()) },
    ),
  );
  const upcoming = (log.data ?? [])
    .map((d) => (d.status === "pending" && d.next_attempt_at ? Date.parse(d.next_attempt_at) : null))
    .filter((t): t is number => t !== null && t > Date.now());
  const now = useNow(upcoming.length ? Math.min(...upcoming) : null);
  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSuccess: () => {
        onBanner(null);
        toast.success("Delivery queued again. The log updates when it is sent.");
        void qc.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey({ id: endpointId }) });
      },
      onError: (e) => onBanner({ variant: "error", message: e.message }),
    }),
  );
  if (log.isPending) return <p className="text-sm text-muted-foreground">Loading deliveries...</p>;
  if (log.error) return <p role="alert">{log.error.message}</p>;
  if (log.data.length === 0) return <p className="text-sm text-muted-foreground">No deliveries yet.</p>;
  return (
    <ul className="grid gap-1 text-sm" aria-label="Delivery log">
      {log.data.map((d) => {
        const shown = describeDelivery(d, now);
        return (
          <li
            key={d.id}
            className="flex flex-wrap items-center gap-2 rounded border border-border px-2 py-1"
            data-testid="webhook-delivery"
          >
            <Badge variant={shown.tone} data-testid="webhook-delivery-status">
              {shown.label}
            </Badge>
            <code>{d.event_type}</code>
            <span className="min-w-0 break-words text-muted-foreground">
              {shown.result ? `${shown.result} · ` : ""}
              {formatDate(d.created_at)}
            </span>
            <DeliveryScheduleText s={shown.schedule} />
            <Button
              variant="ghost"
              size="sm"
              disabled={resend.isPending && resend.variables?.id === d.id}
              onClick={() => resend.mutate({ id: d.id })}
            >
              Resend
            </Button>
          </li>
        );
      })}
    </ul>
  );
}

/** A delivery's place in its retry schedule (describeSchedule), or nothing when there is none to tell. */
function DeliveryScheduleText({ s }: { s: ReturnType<typeof describeSchedule> }) {
  if (!s) return null;
  return (
    <span className="min-w-0 basis-full break-words sm:basis-auto" data-testid="webhook-delivery-schedule">
      {s.nextAt ? (
        <time dateTime={s.nextAt} title={s.nextTitle}>
          {s.text}
          <span className="sr-only"> ({s.nextTitle})</span>
        </time>
      ) : (
        s.text
      )}
    </span>
  );
}
