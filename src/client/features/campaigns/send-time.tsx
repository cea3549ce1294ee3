import { useId } from "react";
import { Input } from "@/client/components/ui/input";
import { formatDateTime } from "@/client/lib/format";

/**
 * When a builder's campaign goes: now, or at a moment the user picked (`local`: the value of a
 * datetime-local input, "2026-12-01T09:30", a wall time in the browser's time zone; "" until picked).
 */
export type SendTime = { mode: "now" } | { mode: "later"; local: string };

/** The browser's IANA time zone ("America/Chicago"), the zone a picked wall time is read in. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * The moment a SendTime names: undefined for "now", an empty pick or an unreadable one; a wall
 * time in the browser's zone otherwise (a time skipped by a daylight-saving change is read as the
 * browser's Date does, an hour later).
 */
export function scheduledMoment(t: SendTime): Date | undefined {
  if (t.mode === "now" || !t.local) return undefined;
  const d = new Date(t.local);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/**
 * Why a SendTime cannot be launched, or null: "later" needs a date and time, in the future. The
 * server keeps its own bounds (campaigns.schemas scheduledAtInput: at most a year ahead) and
 * answers beyond them with its sentence.
 */
export function sendTimeError(t: SendTime, now: Date = new Date()): string | null {
  if (t.mode === "now") return null;
  const at = scheduledMoment(t);
  if (!at) return "Please pick the date and time to send the campaign.";
  if (at.getTime() <= now.getTime())
    return `Please pick a time in the future: ${formatDateTime(at)} has already passed.`;
  return null;
}

/** The datetime-local value of `d` in the browser's zone, to the minute ("2026-12-01T09:30"). */
export function localValue(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * The line under a send-time input (its `aria-describedby`, `id`): the refusal `error` as an alert,
 * else when the picked moment `at` sends, else the time zone `zone` the input is read in.
 */
export function SendTimeHint({
  id,
  error,
  at,
  zone,
}: {
  id: string;
  error?: string | null;
  at: Date | undefined;
  zone: string;
}) {
  return (
    <p id={id} className="text-xs text-muted-foreground" data-testid="send-time-when">
      {error ? (
        <span className="font-medium text-destructive" role="alert">
          {error}
        </span>
      ) : at ? (
        `Sends ${formatDateTime(at)}.`
      ) : (
        `In your time zone, ${zone}.`
      )}
    </p>
  );
}

/**
 * The review step's "When to send" choice: Send now, or Schedule for later with a date-time input
 * in the user's time zone, labelled with the zone's name, and the moment it reads as. `error` is
 * the builder's sendTimeError for it, shown under the input once the user tried to launch.
 */
export function SendTimeField({
  value,
  onChange,
  error,
}: {
  value: SendTime;
  onChange: (t: SendTime) => void;
  error?: string | null;
}) {
  const id = useId();
  const zone = browserTimeZone();
  const at = scheduledMoment(value);
  return (
    <fieldset className="space-y-3 rounded-lg border p-4" data-testid="send-time">
      <legend className="px-1 text-sm font-semibold">When to send</legend>
      <div className="flex flex-wrap gap-4 text-sm">
        <label className="flex items-center gap-2">
          <input
            type="radio"
            name={`${id}-mode`}
            checked={value.mode === "now"}
            onChange={() => onChange({ mode: "now" })}
          />
          Send now
        </label>
        <label className="flex items-center gap-2">
          <input
            type="radio"
            name={`${id}-mode`}
            checked={value.mode === "later"}
            onChange={() => onChange({ mode: "later", local: value.mode === "later" ? value.local : "" })}
          />
          Schedule for later
        </label>
      </div>
      {value.mode === "later" && (
        <div className="space-y-1">
          <label htmlFor={`${id}-at`} className="text-sm font-medium">
            Date and time ({zone})
          </label>
          <Input
            id={`${id}-at`}
            type="datetime-local"
            className="max-w-xs"
            value={value.local}
            min={localValue(new Date())}
            onChange={(e) => onChange({ mode: "later", local: e.target.value })}
            aria-invalid={!!error}
            aria-describedby={`${id}-when`}
          />
          <SendTimeHint id={`${id}-when`} error={error} at={at} zone={zone} />
        </div>
      )}
    </fieldset>
  );
}
