import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { toast } from "sonner";
import { Button } from "@/client/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/client/components/ui/dialog";
import { Input } from "@/client/components/ui/input";
import { formatDateTime } from "@/client/lib/format";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import { type LaunchError, LaunchErrorBanner, launchError } from "./launch-error";
import { browserTimeZone, localValue, SendTimeHint, scheduledMoment, sendTimeError } from "./send-time";

/**
 * The report's "Reschedule" for a campaign still waiting for its time (status scheduled): a dialog
 * with a date-time input in the user's time zone (named), filled with the current time, refused in
 * plain words unless it is in the future (send-time sendTimeError); saving calls tRPC
 * `campaigns.reschedule`, whose refusals (the campaign started meanwhile, the new time's billing
 * period has no room on the plan) are shown in the dialog, and refreshes the report. Saved with the
 * time it was opened with, it closes and calls nothing (the campaign keeps its time to the second).
 */
export function RescheduleAction({ id, scheduledAt }: { id: number; scheduledAt: Date | string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const campaigns = useTRPCClient().campaigns;
  const inputId = useId();
  const timeInput = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const [local, setLocal] = useState("");
  const [tried, setTried] = useState(false);
  const [error, setError] = useState<LaunchError | null>(null);
  const zone = browserTimeZone();
  const value = { mode: "later" as const, local };
  const timeError = sendTimeError(value);
  const at = scheduledMoment(value);
  const save = useMutation({
    mutationFn: (when: Date) => campaigns.reschedule.mutate({ id, scheduledAt: when }),
    onSuccess: (r) => {
      toast.success(`Rescheduled: sends ${formatDateTime(r.scheduledAt)}.`);
      setOpen(false);
      void qc.invalidateQueries(trpc.campaigns.pathFilter());
    },
    onError: (e) => setError(launchError(e, "Could not reschedule the campaign")),
  });

  function onOpenChange(next: boolean) {
    if (next) {
      setLocal(localValue(new Date(scheduledAt)));
      setTried(false);
      setError(null);
    }
    setOpen(next);
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        <Button variant="outline">Reschedule</Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Reschedule the campaign</DialogTitle>
          <DialogDescription>
            It is scheduled for {formatDateTime(scheduledAt)}. Pick the new time.
          </DialogDescription>
        </DialogHeader>
        {/* noValidate: the input's `min` (for the picker) made the browser refuse a past time with its
            own bubble, worded in its own format, over this dialog's sentence, and the refusal never
            reached the form (no aria-invalid); the sentence below is the one message */}
        <form
          className="space-y-3"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            // the time it has, left as it was (the input shows whole minutes): nothing to move, and
            // saving it would cut the seconds off and tell every webhook of a move
            if (local === localValue(new Date(scheduledAt))) {
              toast.info(`The campaign keeps its time: sends ${formatDateTime(scheduledAt)}.`);
              setOpen(false);
              return;
            }
            setTried(true);
            if (timeError || !at) {
              timeInput.current?.focus();
              return;
            }
            setError(null);
            save.mutate(at);
          }}
        >
          <LaunchErrorBanner error={error} />
          <div className="space-y-1">
            <label htmlFor={inputId} className="text-sm font-medium">
              Date and time ({zone})
            </label>
            <Input
              ref={timeInput}
              id={inputId}
              type="datetime-local"
              value={local}
              min={localValue(new Date())}
              onChange={(e) => setLocal(e.target.value)}
              aria-invalid={tried && !!timeError}
              aria-describedby={`${inputId}-when`}
            />
            <SendTimeHint
              id={`${inputId}-when`}
              error={(tried || local) && timeError ? timeError : null}
              at={at}
              zone={zone}
            />
          </div>
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="outline">
                Keep the time
              </Button>
            </DialogClose>
            <Button type="submit" loading={save.isPending}>
              Reschedule
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
