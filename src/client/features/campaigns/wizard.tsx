import { Link } from "@tanstack/react-router";
import { CheckCircle2, CopyCheck, PartyPopper } from "lucide-react";
import { type ReactNode, useEffect, useRef } from "react";
import { Button, buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent } from "@/client/components/ui/card";
import { formatDateTime, formatRelativeTime, plural } from "@/client/lib/format";
import { cn } from "@/client/lib/utils";

const FIELD =
  "input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=file]), select, textarea";

/**
 * The 4-step indicator shared by the campaign builders, and the wizard's keyboard behaviour (issue 14)
 * for the builder it sits in (its parent element): after Next or Back the new step's heading (the first
 * card title after the indicator) takes focus, so screen readers announce the step; Enter in the step's
 * last field (Ctrl/Cmd+Enter in a text area) presses Next.
 */
export function WizardSteps({ steps, step }: { steps: readonly string[]; step: number }) {
  const ref = useRef<HTMLOListElement>(null);
  const shown = useRef(step);

  useEffect(() => {
    if (shown.current === step) return; // first render: leave focus where the page put it
    shown.current = step;
    const heading = ref.current?.parentElement?.querySelector<HTMLElement>("[data-slot=card-title]");
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus();
  }, [step]);

  useEffect(() => {
    const root = ref.current?.parentElement;
    if (!root) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Enter" || e.isComposing || !(e.target instanceof HTMLElement)) return;
      const target = e.target;
      if (!target.matches(FIELD)) return;
      if (target instanceof HTMLTextAreaElement && !(e.ctrlKey || e.metaKey)) return;
      const fields = [...root.querySelectorAll<HTMLElement>(FIELD)].filter(
        (f) => !f.closest("[role=dialog]") && !(f as HTMLInputElement).disabled,
      );
      if (fields[fields.length - 1] !== target) return;
      const next = root.querySelector<HTMLButtonElement>("[data-wizard-next]");
      if (!next || next.disabled) return;
      e.preventDefault();
      next.click();
    };
    root.addEventListener("keydown", onKey);
    return () => root.removeEventListener("keydown", onKey);
  }, []);

  return (
    <ol ref={ref} className="grid grid-cols-2 gap-2 sm:grid-cols-4" aria-label="Steps">
      {steps.map((label, i) => (
        <li
          key={label}
          aria-current={i === step ? "step" : undefined}
          className={cn(
            "flex items-center gap-2 rounded-lg border px-3 py-2 text-sm",
            i === step ? "border-primary bg-primary/5 font-medium" : "text-muted-foreground",
          )}
        >
          <span
            className={cn(
              "flex size-6 items-center justify-center rounded-full border text-xs",
              i < step && "border-primary bg-primary text-primary-foreground",
            )}
          >
            {i < step ? <CheckCircle2 className="size-4" aria-hidden /> : i + 1}
          </span>
          {label}
        </li>
      ))}
    </ol>
  );
}

export { useClearWhenEdited } from "@/client/lib/use-clear-when-edited";

/** Back / Next / Launch row. A launch in progress disables the buttons (spec section 4). */
export function WizardNav({
  step,
  last,
  busy,
  onBack,
  onNext,
  onLaunch,
  cancel,
  launchDisabled = false,
  launchLabel = "Launch Campaign",
}: {
  step: number;
  last: number;
  busy: boolean;
  onBack: () => void;
  onNext: () => void;
  onLaunch: () => void;
  cancel?: ReactNode;
  /** the review found nobody to send to (issue 14) */
  launchDisabled?: boolean;
  /** the last step's button ("Schedule Campaign" for a campaign scheduled for later) */
  launchLabel?: string;
}) {
  return (
    <div className="flex items-center justify-between gap-2">
      <div className="flex gap-2">
        {cancel}
        <Button variant="outline" onClick={onBack} disabled={step === 0 || busy}>
          Back
        </Button>
      </div>
      {step < last ? (
        <Button onClick={onNext} disabled={busy} data-wizard-next>
          Next
        </Button>
      ) : (
        <Button onClick={onLaunch} disabled={busy || launchDisabled}>
          {busy ? "Launching..." : launchLabel}
        </Button>
      )}
    </div>
  );
}

/** 'Campaign Launched!' with Back to Dashboard and a link to the live report. */
export function LaunchedCard({
  campaignId,
  queued,
  skipped,
  note,
}: {
  campaignId: number;
  queued: number;
  skipped: Record<string, number>;
  note?: string;
}) {
  const skippedList = Object.entries(skipped);
  return (
    <Card className="mx-auto max-w-lg text-center">
      <CardContent className="flex flex-col items-center gap-4 p-10">
        <PartyPopper className="size-12 text-primary" aria-hidden />
        <h2 className="text-2xl font-semibold">Campaign Launched!</h2>
        <p className="text-muted-foreground">{note ?? `Sending to ${plural(queued, "contact")}.`}</p>
        {skippedList.length > 0 && (
          <ul className="text-sm text-muted-foreground">
            {skippedList.map(([reason, n]) => (
              <li key={reason}>
                Skipped {n}: {reason}
              </li>
            ))}
          </ul>
        )}
        <div className="flex gap-2">
          <Link
            to="/campaigns/$id"
            params={{ id: String(campaignId) }}
            className={buttonVariants({ variant: "outline" })}
          >
            View report
          </Link>
          <Link to="/dashboard" className={buttonVariants()}>
            Back to Dashboard
          </Link>
        </div>
      </CardContent>
    </Card>
  );
}

/** An earlier identical campaign a launch was answered with (the server's `repeated` + `otherLaunch`). */
export interface EarlierLaunch {
  id: number;
  name: string;
  createdAt: Date | string;
}

/**
 * The launch was answered by an identical campaign (same channel, name, content and contacts)
 * launched within the last 10 minutes from another tab or draft: the server sent nothing again.
 * Says so, links the earlier campaign's report, and 'Send it again' launches once more with
 * `allowRepeat` (the builder's `onSendAgain`; `sending` while it runs).
 */
export function AlreadyLaunchedCard({
  campaign,
  onSendAgain,
  sending,
}: {
  campaign: EarlierLaunch;
  onSendAgain: () => void;
  sending: boolean;
}) {
  return (
    <Card className="mx-auto max-w-lg text-center" data-testid="already-launched">
      <CardContent className="flex flex-col items-center gap-4 p-10">
        <CopyCheck className="size-12 text-primary" aria-hidden />
        <h2 className="text-2xl font-semibold">Already launched</h2>
        <p className="text-muted-foreground">
          The same campaign, &ldquo;{campaign.name}&rdquo;, to the same contacts was launched{" "}
          <time
            dateTime={new Date(campaign.createdAt).toISOString()}
            title={formatDateTime(campaign.createdAt)}
          >
            {formatRelativeTime(campaign.createdAt)}
          </time>{" "}
          from another tab or window. Nothing was sent twice.
        </p>
        <div className="flex flex-wrap justify-center gap-2">
          <Link
            to="/campaigns/$id"
            params={{ id: String(campaign.id) }}
            className={buttonVariants({ variant: "outline" })}
          >
            View report
          </Link>
          <Button onClick={onSendAgain} loading={sending}>
            Send it again
          </Button>
        </div>
      </CardContent>
    </Card>
  );
}
