import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, KeyRound } from "lucide-react";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/client/components/ui/select";
import { focusLost } from "@/client/lib/focus-rescue";
import { formatDate } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";
import { API_KEY_MAX_EXPIRY_DAYS } from "@/server/features/api/api.schemas";
import { ApiAccessNotice } from "./api-access-notice";
import type { ShowBanner } from "./types";

/** Expiry choices on create: never, a number of days from now, or a chosen date. */
const EXPIRY_CHOICES = [
  { value: "never", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In 1 year" },
  { value: "date", label: "On a date..." },
] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number]["value"];

/** `YYYY-MM-DD` of a local date (what an `<input type="date">` holds). */
function localDay(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The last day a key may expire on: the server's API_KEY_MAX_EXPIRY_DAYS ahead, less a day for time zones. */
function lastExpiryDay(now = new Date()): string {
  return localDay(new Date(now.getTime() + (API_KEY_MAX_EXPIRY_DAYS - 1) * 86_400_000));
}

/**
 * The `expires_at` (ISO 8601) of an expiry choice: null for never; days counted from now; a date
 * expires at the end of that day in the browser's time zone. Undefined when a date is chosen but
 * missing, not after today, or past the server's 10-year limit.
 */
export function expiresAtOf(choice: ExpiryChoice, day: string, now = new Date()): string | null | undefined {
  if (choice === "never") return null;
  if (choice !== "date") return new Date(now.getTime() + Number(choice) * 86_400_000).toISOString();
  if (!/^\d{4}-\d\d-\d\d$/.test(day) || day <= localDay(now) || day > lastExpiryDay(now)) return undefined;
  const end = new Date(`${day}T23:59:59.999`);
  return Number.isNaN(end.getTime()) ? undefined : end.toISOString();
}

/** The accessible name of a key's Revoke button: the visible word first, then which key (name and prefix). */
export function revokeLabel(k: { name: string; prefix: string }): string {
  return `Revoke API key ${k.name} (${k.prefix}...)`;
}

/**
 * Settings > API keys (issue 15, owner and admin): create a key with a name, scopes and an optional
 * expiry (the key shown once, and hidden again if that key is revoked), list keys with prefix, scopes,
 * last use, expiry and creator (their name, "Ben Admin (former member)" once they left the workspace or were
 * removed, which revoked the key), revoke; a revoked key says why. Links to the API reference at /docs/api. Revoking asks first (a dialog
 * naming the key; Escape or Cancel keep it and focus goes back to the key's Revoke button); once
 * revoked, the button is gone and focus moves to the key's name in the list.
 */
export function ApiKeysTab({ onBanner }: { onBanner: ShowBanner }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions(undefined, { retry: false }));
  const scopes = useQuery(trpc.apiKeys.scopes.queryOptions());
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<string[]>(["contacts:read"]);
  const [expiry, setExpiry] = useState<ExpiryChoice>("never");
  const [expiryDay, setExpiryDay] = useState("");
  /** the key just created, shown once (its secret and its id, to hide it once that key is revoked) */
  const [shown, setShown] = useState<{ id: string; key: string } | null>(null);
  /** the key the confirmation dialog asks about */
  const [confirming, setConfirming] = useState<{ id: string; name: string; prefix: string } | null>(null);
  /** a key just revoked: its name takes focus once its Revoke button has left the list */
  const [revokedId, setRevokedId] = useState<string | null>(null);
  const nameRefs = useRef(new Map<string, HTMLElement>());
  const nameId = useId();
  const expiryId = useId();
  const expiryDayId = useId();
  const expiresAt = expiresAtOf(expiry, expiryDay);
  // the new key, shown once: focus goes to its Copy and hide after Create key, whose button turns off
  // with the emptied name and drops keyboard focus to the page's top (only when focus was lost)
  const copyNewKey = useRef<HTMLButtonElement>(null);
  const shownId = shown?.id;
  useEffect(() => {
    if (shownId !== undefined && focusLost()) copyNewKey.current?.focus();
  }, [shownId]);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (r) => {
        setShown({ id: r.apiKey.id, key: r.key });
        setName("");
        setExpiry("never");
        setExpiryDay("");
        onBanner({ variant: "success", message: "API key created. Copy it now: it is shown only once." });
        void refresh();
      },
      onError: (e) => onBanner({ variant: "error", message: e.message, refusal: e.data?.planRefusal }),
    }),
  );
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: (_r, vars) => {
        onBanner({
          variant: "success",
          message: "API key revoked. Requests with it are refused from now on.",
        });
        setRevokedId(vars.id);
        // a revoked key's secret is of no use: stop showing it if it is the one just created
        setShown((s) => (s?.id === vars.id ? null : s));
        void refresh();
      },
      onError: (e) => onBanner({ variant: "error", message: e.message }),
    }),
  );

  // the Revoke button that had focus is replaced by the Revoked badge once the list is read again:
  // then focus the key's name instead of leaving it on the page's body (only when focus was lost, not
  // when the user has moved on)
  useEffect(() => {
    if (!revokedId) return;
    const k = keys.data?.find((x) => x.id === revokedId);
    if (k && !k.revoked_at) return; // the list still shows the key active: wait for the refetch
    setRevokedId(null);
    const active = document.activeElement;
    if (active && active !== document.body) return;
    nameRefs.current.get(revokedId)?.focus();
  }, [revokedId, keys.data]);

  if (keys.error) return <p role="alert">{keys.error.message}</p>;
  // also hidden when the list reads the shown key as revoked (e.g. revoked from another tab)
  const shownKey = shown && !keys.data?.find((k) => k.id === shown.id)?.revoked_at ? shown.key : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (expiresAt === undefined) return;
    create.mutate({ name, scopes: chosen as never, expires_at: expiresAt });
  };

  return (
    <div className="grid grid-cols-1 gap-6">
      <ApiAccessNotice what="keys" />
      <Card>
        <CardHeader>
          <CardTitle>Create an API key</CardTitle>
          <CardDescription>
            Keys call the REST API at /api/v1 with <code>Authorization: Bearer pw_live_...</code>. See the{" "}
            <a className="underline" href="/docs/api" target="_blank" rel="noreferrer">
              API reference
            </a>
            .
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form onSubmit={submit} className="grid gap-4">
            <div className="grid gap-2">
              <Label htmlFor={nameId}>Name</Label>
              <Input
                id={nameId}
                value={name}
                onChange={(e) => setName(e.target.value)}
                maxLength={100}
                required
              />
            </div>
            <fieldset className="grid gap-2">
              <legend className="mb-1 text-sm font-medium">Scopes</legend>
              <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
                {(scopes.data ?? []).map((s) => (
                  <label key={s} className="flex items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      className="size-4"
                      checked={chosen.includes(s)}
                      onChange={(e) =>
                        setChosen((c) => (e.target.checked ? [...c, s] : c.filter((x) => x !== s)))
                      }
                    />
                    <code>{s}</code>
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="flex flex-wrap items-end gap-3">
              <div className="grid gap-2">
                <Label htmlFor={expiryId}>Expires</Label>
                <Select value={expiry} onValueChange={(v) => setExpiry(v as ExpiryChoice)}>
                  <SelectTrigger id={expiryId} className="w-44">
                    <SelectValue />
                  </SelectTrigger>
                  <SelectContent>
                    {EXPIRY_CHOICES.map((c) => (
                      <SelectItem key={c.value} value={c.value}>
                        {c.label}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              </div>
              {expiry === "date" && (
                <div className="grid gap-2">
                  <Label htmlFor={expiryDayId}>Expiry date</Label>
                  <Input
                    id={expiryDayId}
                    type="date"
                    className="w-44"
                    min={localDay(new Date(Date.now() + 86_400_000))}
                    max={lastExpiryDay()}
                    value={expiryDay}
                    onChange={(e) => setExpiryDay(e.target.value)}
                    aria-invalid={expiryDay !== "" && expiresAt === undefined}
                    required
                  />
                </div>
              )}
            </div>
            {expiry === "date" && expiryDay !== "" && expiresAt === undefined && (
              <p className="text-sm text-destructive" role="alert">
                Choose a date after today and within 10 years.
              </p>
            )}
            <div>
              <Button
                type="submit"
                disabled={create.isPending || !name.trim() || chosen.length === 0 || expiresAt === undefined}
              >
                <KeyRound aria-hidden />
                Create key
              </Button>
            </div>
          </form>
          {shownKey && (
            <div className="mt-4 grid gap-2 rounded-md border border-border p-3" data-testid="new-api-key">
              <p className="text-sm font-medium">Your new key (shown once):</p>
              <code className="break-all text-sm">{shownKey}</code>
              <div>
                <Button
                  ref={copyNewKey}
                  variant="outline"
                  size="sm"
                  onClick={() => void navigator.clipboard?.writeText(shownKey).then(() => setShown(null))}
                >
                  <Copy aria-hidden />
                  Copy and hide
                </Button>
              </div>
            </div>
          )}
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>API keys</CardTitle>
          <CardDescription>Revoked keys stop working at once.</CardDescription>
        </CardHeader>
        <CardContent>
          {keys.isPending ? (
            <p className="text-sm text-muted-foreground">Loading keys...</p>
          ) : keys.data.length === 0 ? (
            <p className="text-sm text-muted-foreground">No API keys yet.</p>
          ) : (
            <ul className="divide-y divide-border" aria-label="API keys">
              {keys.data.map((k) => {
                const expired = !!k.expires_at && Date.parse(k.expires_at) <= Date.now();
                return (
                  <li key={k.id} className="flex flex-wrap items-center gap-3 py-3" data-testid="api-key-row">
                    <div className="min-w-0 flex-1">
                      <p
                        className="font-medium break-words outline-none sm:truncate"
                        tabIndex={-1}
                        ref={(el) => {
                          if (el) nameRefs.current.set(k.id, el);
                          else nameRefs.current.delete(k.id);
                        }}
                      >
                        {k.name} <code className="text-sm text-muted-foreground">{k.prefix}...</code>
                      </p>
                      <p className="text-sm text-muted-foreground">
                        {k.scopes.join(", ")} · created {formatDate(k.created_at)} · last used{" "}
                        {k.last_used_at ? formatDate(k.last_used_at) : "never"} ·{" "}
                        {k.expires_at
                          ? `${expired ? "expired" : "expires"} ${formatDate(k.expires_at)}`
                          : "never expires"}{" "}
                        · creator:{" "}
                        {k.creator_name ??
                          (k.former_creator_name
                            ? `${k.former_creator_name} (former member)`
                            : "Former member")}
                      </p>
                      {k.revoked_at && k.revoked_reason && (
                        <p className="text-sm text-muted-foreground">{k.revoked_reason}</p>
                      )}
                      {!k.revoked_at && !expired && !k.creator_active && (
                        <p className="text-sm text-muted-foreground">
                          Not working: the person who created it is no longer an owner or admin here.
                        </p>
                      )}
                    </div>
                    {k.revoked_at ? (
                      <Badge variant="secondary">Revoked</Badge>
                    ) : expired ? (
                      <Badge variant="warning">Expired</Badge>
                    ) : (
                      <>
                        {!k.creator_active && <Badge variant="warning">Inactive</Badge>}
                        <Button
                          variant="outline"
                          size="sm"
                          aria-label={revokeLabel(k)}
                          onClick={() => setConfirming({ id: k.id, name: k.name, prefix: k.prefix })}
                        >
                          Revoke
                        </Button>
                      </>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
        </CardContent>
      </Card>
      <ConfirmDialog
        open={confirming !== null}
        onOpenChange={(open) => !open && setConfirming(null)}
        title={`Revoke API key ${confirming?.name ?? ""}?`}
        description={
          <>
            Requests with the key <code>{confirming?.prefix}...</code> are refused at once. This cannot be
            undone: a revoked key cannot be turned back on.
          </>
        }
        confirmLabel="Revoke key"
        onConfirm={() => {
          if (confirming) revoke.mutate({ id: confirming.id });
        }}
      />
    </div>
  );
}
