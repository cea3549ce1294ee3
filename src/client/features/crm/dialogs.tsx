import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { planRefusalOf } from "@/client/features/billing/plan-refusal";
import { type LaunchError, LaunchErrorBanner } from "@/client/features/campaigns/launch-error";
import { MergeTagTextarea, usePreview } from "@/client/features/campaigns/merge-tag-field";
import { useSender } from "@/client/features/campaigns/sender";
import { errorMessage } from "@/client/lib/errors";
import { rescueFocusWhenGone, useFocusBackWhenIdle, useOpenerRef } from "@/client/lib/focus-rescue";
import { titleCase } from "@/client/lib/format";
import { useClearWhenEdited } from "@/client/lib/use-clear-when-edited";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import { smsSegments } from "@/server/features/campaigns/sms-segments";
import { firstTextBody } from "@/server/features/compliance/sms-keywords";
import { emailSubjectLine } from "@/server/lib/email-subject";
import { type Contact, type CreatedTag, contactName, invalidateCrm, type Tag } from "./api";
import { contactSendNumber } from "./send-number";

/**
 * Add Contact modal: first name and email required; last name, phone, company optional (spec section
 * 5). Each opening starts empty: the form and its error live in AddContactForm, inside the dialog's
 * content, which is unmounted when the dialog closes (Cancel, Escape, outside click), so a cancelled
 * entry's values and error never come back with the next contact.
 */
export function AddContactDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Add Contact</DialogTitle>
          <DialogDescription>First name and email are required.</DialogDescription>
        </DialogHeader>
        <AddContactForm onDone={() => onOpenChange(false)} />
      </DialogContent>
    </Dialog>
  );
}

/** The Add Contact form (tRPC `crm.create`); `onDone` closes the dialog (Cancel, or the contact added). */
function AddContactForm({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const client = useTRPCClient();
  const [form, setForm] = useState({ first_name: "", last_name: "", email: "", phone: "", company: "" });
  // with the contact limit's refusal (billing.plans): the banner adds its link to /pricing, or the
  // owner-only sentence
  const [error, setError] = useState<string | LaunchError | null>(null);
  const [saving, setSaving] = useState(false);
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setForm({ ...form, [k]: e.target.value });

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!form.first_name.trim() || !form.email.trim()) return setError("First name and email are required");
    setSaving(true);
    setError(null);
    try {
      await client.crm.create.mutate(form);
      await invalidateCrm(qc);
      onDone();
    } catch (err) {
      setError({ message: errorMessage(err, "Failed to add contact"), refusal: planRefusalOf(err) });
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} className="grid gap-3" noValidate>
      <LaunchErrorBanner error={error} />
      <div className="grid gap-3 sm:grid-cols-2">
        <FormField label="First name" htmlFor="ac-first">
          <Input id="ac-first" value={form.first_name} onChange={set("first_name")} required autoFocus />
        </FormField>
        <FormField label="Last name" htmlFor="ac-last" optional>
          <Input id="ac-last" value={form.last_name} onChange={set("last_name")} />
        </FormField>
      </div>
      <FormField label="Email" htmlFor="ac-email">
        <Input id="ac-email" type="email" value={form.email} onChange={set("email")} required />
      </FormField>
      <FormField label="Phone" htmlFor="ac-phone" optional>
        <Input id="ac-phone" type="tel" value={form.phone} onChange={set("phone")} />
      </FormField>
      <FormField label="Company" htmlFor="ac-company" optional>
        <Input id="ac-company" value={form.company} onChange={set("company")} />
      </FormField>
      <DialogFooter>
        <Button type="button" variant="outline" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" loading={saving}>
          Add Contact
        </Button>
      </DialogFooter>
    </form>
  );
}

/**
 * A modal with a list of choices and a confirm button that stays disabled until a choice is made
 * (spec section 5: Update stage, status and tag modals). `extra` renders below the choice; as a
 * function it gets `choose(value)`, which selects a value (e.g. a tag created in the modal, issue 14)
 * and moves focus to the confirm button.
 */
export function ChoiceDialog({
  open,
  onOpenChange,
  title,
  description,
  label,
  options,
  confirmLabel,
  onConfirm,
  extra,
  focusAfterConfirm,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  title: string;
  description: string;
  label: string;
  options: { value: string; label: string }[];
  confirmLabel: string;
  onConfirm: (value: string) => Promise<void>;
  extra?: React.ReactNode | ((choose: (value: string) => void) => React.ReactNode);
  /** where focus goes when the confirmed action removed the dialog's opener (rescueFocusWhenGone) */
  focusAfterConfirm?: () => HTMLElement | null | undefined;
}) {
  const opener = useOpenerRef(open);
  const [value, setValue] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // a failed confirm leaves the dialog open: focus goes back to its button, not <body> (disabled meanwhile)
  const confirmButton = useRef<HTMLButtonElement>(null);
  useFocusBackWhenIdle(busy, confirmButton);
  // a value chosen from `extra` (a tag just created: its Create button is disabled once its name is
  // cleared, which dropped focus to <body>) moves focus to the confirm button, enabled by that value:
  // the next step, and where a keyboard or screen reader user is still inside the dialog
  const [focusConfirm, setFocusConfirm] = useState(false);
  useEffect(() => {
    if (!focusConfirm || !value) return;
    setFocusConfirm(false);
    confirmButton.current?.focus();
  }, [focusConfirm, value]);
  const choose = (v: string) => {
    setValue(v);
    setFocusConfirm(true);
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (!o) {
          setValue("");
          setError(null);
        }
        onOpenChange(o);
      }}
    >
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        {error && <AlertBanner variant="error">{error}</AlertBanner>}
        <FormField label={label} htmlFor="choice-select">
          <select
            id="choice-select"
            className="h-10 rounded-lg border border-input bg-card px-3 text-sm"
            value={value}
            onChange={(e) => setValue(e.target.value)}
          >
            <option value="">Select...</option>
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </FormField>
        {typeof extra === "function" ? extra(choose) : extra}
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button
            ref={confirmButton}
            disabled={!value}
            loading={busy}
            onClick={async () => {
              setBusy(true);
              setError(null);
              const stopRescue = focusAfterConfirm
                ? rescueFocusWhenGone(opener.current, focusAfterConfirm)
                : null;
              try {
                await onConfirm(value);
                setValue("");
                onOpenChange(false);
              } catch (e) {
                stopRescue?.();
                setError(`Error: ${errorMessage(e, "Something went wrong")}`);
              } finally {
                setBusy(false);
              }
            }}
          >
            {confirmLabel}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/**
 * Inline "create a tag" row for the Add Tag modal (tRPC `crm.createTag`). After the tag lists are
 * refreshed, `onCreated` gets the new tag so the modal can select it.
 */
export function NewTagRow({ onCreated }: { onCreated?: (tag: CreatedTag) => void }) {
  const qc = useQueryClient();
  const client = useTRPCClient();
  const [name, setName] = useState("");
  const [color, setColor] = useState("#4f46e5");
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="grid gap-2 rounded-lg border border-border p-3">
      <p className="text-sm font-medium">Or create a tag</p>
      <div className="flex gap-2">
        <Input
          aria-label="New tag name"
          placeholder="Tag name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <input
          aria-label="Tag colour"
          type="color"
          value={color}
          onChange={(e) => setColor(e.target.value)}
          className="h-10 w-12 rounded"
        />
        <Button
          variant="secondary"
          disabled={!name.trim()}
          onClick={async () => {
            try {
              const tag = await client.crm.createTag.mutate({ name: name.trim(), color });
              setName("");
              setError(null);
              await invalidateCrm(qc);
              onCreated?.(tag);
            } catch (e) {
              setError(errorMessage(e, "Failed to create tag"));
            }
          }}
        >
          Create
        </Button>
      </div>
      {error && <p className="text-sm text-destructive">{error}</p>}
    </div>
  );
}

/** The workspace's tags with their contact counts (tRPC `crm.tags`). */
export function useTags(): Tag[] {
  const trpc = useTRPC();
  return useQuery(trpc.crm.tags.queryOptions()).data ?? [];
}

/**
 * The Send SMS dialog's counter: characters of the message as typed (at most 160) and, when the text
 * sent would be longer than one segment more than the typed one (its merge tags filled in, `filled`,
 * and on a first text to the number led by "<business>: " and ended with "Reply STOP to opt out":
 * compliance firstTextBody, crm.messages), the segments it would be sent as. The business is the
 * server's (useSender: tRPC campaigns.sender), as the SMS builder's counter shows it.
 */
function SmsDialogCounter({ body, filled }: { body: string; filled: string }) {
  const business = useSender().data?.myBusiness;
  const typed = smsSegments(body);
  const sent = smsSegments(filled);
  const first = business === undefined ? null : smsSegments(firstTextBody(filled, business));
  return (
    <div className="space-y-1 text-right text-xs">
      <p className={body.length >= 160 ? "text-destructive" : "text-muted-foreground"}>{body.length}/160</p>
      {first && body.trim() && first.segments > Math.max(typed.segments, sent.segments) ? (
        <p className="text-left font-medium text-amber-800 dark:text-amber-300" data-testid="sms-first-text">
          If this is your first text to them, it starts with &ldquo;{business}: &rdquo; and ends with
          &ldquo;Reply STOP to opt out&rdquo;, so it is sent as {first.segments} segments.
        </p>
      ) : (
        sent.segments > typed.segments && (
          <p className="text-left text-muted-foreground" data-testid="sms-filled-segments">
            With its merge tags filled in it is sent as {sent.segments} segments.
          </p>
        )
      )}
    </div>
  );
}

/**
 * The message as the contact will get it: `subject` (email) and `body` with their merge tags filled in
 * with the contact's fields (`filled`, merge-tags renderPreview of the contact's JSON: the function and
 * fields the server's crm.messages fills the sent text with). Shown once there is something typed.
 */
function MessagePreview({
  channel,
  name,
  filled,
}: {
  channel: Channel;
  name: string;
  filled: { subject: string; body: string };
}) {
  if (!filled.body && !filled.subject) return null;
  return (
    <section
      aria-label="Preview"
      data-testid="message-preview"
      className="space-y-1 rounded-lg border border-border bg-muted/40 p-3 text-sm"
    >
      <p className="text-xs font-medium text-muted-foreground">
        {channel === "call" ? `What ${name} hears` : `What ${name} receives`} (merge tags filled in)
      </p>
      {channel === "email" && (
        <p className="font-medium" data-testid="message-preview-subject">
          {filled.subject}
        </p>
      )}
      <p className="whitespace-pre-wrap break-words" data-testid="message-preview-body">
        {filled.body}
      </p>
    </section>
  );
}

type Channel = "email" | "sms" | "call";

/**
 * Why the contact may not be texted (`channel` "sms") or called ("call"), as the server says it (tRPC
 * `crm.optOuts` for texts, `crm.doNotCall` for calls: the contact page's queries, so the answers are
 * shared), or null when nothing stops it or the answer has not arrived. `title` says who stopped it:
 * the person ('<name> opted out of texts' / 'of calls') or the owner's Do Not Call mark; `reasons` are
 * the server's sentences, the words the contact page shows beside the opt-in and in Do Not Call.
 * `pending` is true while the answer is loading (for an email, never).
 */
export function useSendBlock(
  channel: Channel,
  contact: Contact,
  enabled: boolean,
): { pending: boolean; block: { title: string; reasons: string[] } | null } {
  const trpc = useTRPC();
  const sms = useQuery({
    ...trpc.crm.optOuts.queryOptions({ id: contact.id }),
    enabled: enabled && channel === "sms",
  });
  const call = useQuery({
    ...trpc.crm.doNotCall.queryOptions({ id: contact.id }),
    enabled: enabled && channel === "call",
  });
  const name = contactName(contact);
  if (channel === "sms") {
    const reasons = sms.data?.sms ?? [];
    return {
      pending: sms.isPending && enabled,
      block: reasons.length ? { title: `${name} opted out of texts`, reasons } : null,
    };
  }
  if (channel === "call") {
    const d = call.data;
    if (!d?.do_not_call) return { pending: call.isPending && enabled, block: null };
    return {
      pending: false,
      block: {
        title: d.opted_out_by_person ? `${name} opted out of calls` : `${name} is marked Do Not Call`,
        reasons: d.reasons,
      },
    };
  }
  return { pending: false, block: null };
}

/**
 * Send Email / Send SMS / Call dialog for one contact (spec section 5 validation texts and opt-in
 * confirmations; section 8 success and failure texts). A contact who opted out of texts (calls), or
 * whose numbers are marked Do Not Call, gets no message box and no Send: the dialog says so up front
 * with the server's reasons (useSendBlock), since the server would refuse the send. A contact who has
 * not opted in to SMS (calls) is asked about in an in-app confirmation on top of this dialog ('This
 * contact has not opted in to SMS. Send anyway?'): Cancel or Escape sends nothing and keeps the message.
 * The message box offers the campaigns' merge-tag buttons (MergeTagTextarea) and the dialog previews
 * the text with its tags filled in for this contact (MessagePreview) before it is sent; the server
 * fills the same tags the same way (crm.messages).
 */
export function MessageDialog({
  channel,
  contact,
  open,
  onOpenChange,
  onDone,
}: {
  channel: Channel;
  contact: Contact;
  open: boolean;
  onOpenChange: (o: boolean) => void;
  onDone: (message: string, ok: boolean) => void;
}) {
  const qc = useQueryClient();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const [subject, setSubject] = useState("");
  const [body, setBody] = useState("");
  // with a refused send's plan decision (the month's emails, or SMS and calls on Free): the banner
  // adds its PlanRefusalLink
  const [error, setError] = useState<string | LaunchError | null>(null);
  const [busy, setBusy] = useState(false);
  // the opt-in question is open (send() found the contact has not opted in to this channel)
  const [askOptIn, setAskOptIn] = useState(false);
  // a failed send (also after 'Send anyway') keeps the dialog open: focus goes back to Send, which was
  // disabled while the request ran, instead of staying on <body>
  const sendButton = useRef<HTMLButtonElement>(null);
  useFocusBackWhenIdle(busy, sendButton);
  const hasPhone = !!(contact.phone || contact.mobile);
  // a number the server can dial (E.164): a number an import kept as typed has none, and asking about
  // the opt-in first only led to a second refusal ('not a valid number')
  const hasValidPhone = !!(contact.phone_e164 || contact.mobile_e164);
  const titles = { email: "Send Email", sms: "Send SMS", call: "Call" } as const;
  useClearWhenEdited(setError, [subject, body]);
  const { pending: checking, block } = useSendBlock(channel, contact, open);
  // the text as sent: merge tags filled in with this contact's fields (crm.messages does the same)
  const preview = usePreview();
  const filled = {
    // the subject as one header line, cut past the cap as sent (lib/email-subject emailSubjectLine)
    subject: subject.trim() ? emailSubjectLine(preview(subject, contact)) : "",
    body: body.trim() ? preview(body, contact).trim() : "",
  };

  async function send() {
    setError(null);
    if (block || checking) return;
    if (channel === "email" && (!subject.trim() || !body.trim()))
      return setError("Please fill in subject and message");
    if (channel === "sms" && !body.trim()) return setError("Please enter a message");
    if (channel === "call" && !body.trim()) return setError("Please enter a script for the call");
    if (channel !== "email" && !hasPhone) return setError("This contact has no phone number");
    if (channel !== "email" && !hasValidPhone)
      return setError(
        `${contact.mobile || contact.phone} is not a valid phone number. Fix the number on the contact first.`,
      );
    if ((channel === "sms" && !contact.sms_opt_in) || (channel === "call" && !contact.call_opt_in))
      return setAskOptIn(true);
    await deliver();
  }

  /** Sends (or calls) once the message is valid and, without an opt-in, the person said so. */
  async function deliver() {
    setBusy(true);
    const texts = {
      email: ["Email sent successfully!", "Failed to send email: ", "Error sending email: "],
      sms: ["SMS sent successfully!", "Failed to send SMS: ", "Error sending SMS: "],
      call: ["Call initiated successfully!", "Failed to make call: ", "Error making call: "],
    }[channel];
    try {
      const id = contact.id;
      if (channel === "email") await client.crm.sendEmail.mutate({ id, subject, body });
      else if (channel === "sms") await client.crm.sendSms.mutate({ id, message: body });
      else await client.crm.makeCall.mutate({ id, script: body });
      await qc.invalidateQueries(trpc.crm.get.queryFilter({ id }));
      setSubject("");
      setBody("");
      onOpenChange(false);
      onDone(texts[0] as string, true);
    } catch (e) {
      setError({ message: `${texts[1]}${errorMessage(e, "Unknown error")}`, refusal: planRefusalOf(e) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Dialog open={open} onOpenChange={onOpenChange}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{titles[channel]}</DialogTitle>
            <DialogDescription>
              To{" "}
              {channel === "email"
                ? contact.email || "(no email)"
                : // the number the server sends to (crm/send-number contactSendNumber: a text to the mobile
                  // first, a call to the phone first); a number kept as typed when it has no usable one
                  (contactSendNumber(channel === "sms" ? "sms" : "voice", contact)?.e164 ??
                  (contact.mobile || contact.phone || "(no phone)"))}
            </DialogDescription>
          </DialogHeader>
          {block ? (
            <>
              <AlertBanner variant="warning" title={block.title}>
                <span data-testid="send-blocked">
                  {block.reasons.join(" ")}{" "}
                  {channel === "sms" ? "No texts go to them." : "No calls go to them."}
                </span>
              </AlertBanner>
              <DialogFooter>
                <Button variant="outline" onClick={() => onOpenChange(false)}>
                  Close
                </Button>
              </DialogFooter>
            </>
          ) : (
            <>
              <LaunchErrorBanner error={error} />
              {channel === "email" && (
                <FormField label="Subject" htmlFor="msg-subject">
                  <Input id="msg-subject" value={subject} onChange={(e) => setSubject(e.target.value)} />
                </FormField>
              )}
              <FormField
                label={
                  channel === "email"
                    ? "Message"
                    : channel === "sms"
                      ? "Message"
                      : "Script (spoken by an AI voice)"
                }
                htmlFor="msg-body"
                hint={channel === "sms" ? undefined : undefined}
              >
                <MergeTagTextarea
                  id="msg-body"
                  rows={channel === "email" ? 8 : 4}
                  value={body}
                  maxLength={channel === "sms" ? 160 : undefined}
                  onChange={setBody}
                />
              </FormField>
              {channel === "sms" && <SmsDialogCounter body={body} filled={filled.body} />}
              <MessagePreview channel={channel} name={contactName(contact)} filled={filled} />
              <DialogFooter>
                <Button variant="outline" onClick={() => onOpenChange(false)}>
                  Cancel
                </Button>
                <Button ref={sendButton} loading={busy} disabled={checking} onClick={() => void send()}>
                  {channel === "call" ? "Call" : "Send"}
                </Button>
              </DialogFooter>
            </>
          )}
        </DialogContent>
      </Dialog>
      {channel !== "email" && (
        <ConfirmDialog
          open={askOptIn}
          onOpenChange={setAskOptIn}
          title={
            channel === "sms" ? `Send the SMS to ${contactName(contact)}?` : `Call ${contactName(contact)}?`
          }
          description={
            channel === "sms"
              ? "This contact has not opted in to SMS. Send anyway?"
              : "This contact has not opted in to calls. Call anyway?"
          }
          confirmLabel={channel === "sms" ? "Send anyway" : "Call anyway"}
          confirmVariant="default"
          onConfirm={() => void deliver()}
        />
      )}
    </>
  );
}

export const stageOptions = (values: readonly string[]) =>
  values.map((v) => ({ value: v, label: titleCase(v) }));
