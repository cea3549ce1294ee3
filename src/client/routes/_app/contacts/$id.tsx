import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createFileRoute, Link } from "@tanstack/react-router";
import {
  Activity as ActivityIcon,
  ArrowLeft,
  Eye,
  Mail,
  MailOpen,
  MessageSquare,
  MousePointerClick,
  Phone,
  StickyNote,
  Upload,
  X,
} from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import { Input } from "@/client/components/ui/input";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/client/components/ui/tabs";
import { Textarea } from "@/client/components/ui/textarea";
import {
  type Contact,
  contactName,
  invalidateCrm,
  LEAD_STATUSES,
  LIFECYCLE_STAGES,
  type Note,
} from "@/client/features/crm/api";
import { ContactNameText } from "@/client/features/crm/contact-name";
import { MessageDialog } from "@/client/features/crm/dialogs";
import { StageBadge } from "@/client/features/crm/stage-badge";
import { errorMessage } from "@/client/lib/errors";
import { sameSlotOr } from "@/client/lib/focus-rescue";
import { formatDate, titleCase } from "@/client/lib/format";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import { readableTextOn } from "@/server/lib/contrast";

export const Route = createFileRoute("/_app/contacts/$id")({
  component: ContactDetailPage,
});

const ACTIVITY_ICONS: Record<string, typeof Mail> = {
  email_sent: Mail,
  email_opened: MailOpen,
  email_clicked: MousePointerClick,
  call_made: Phone,
  note_added: StickyNote,
  note_edited: StickyNote,
  note_deleted: StickyNote,
  sms_sent: MessageSquare,
  sms_received: MessageSquare,
  imported: Upload,
  video_viewed: Eye,
};

const ACTIVITY_LABELS: Record<string, string> = {
  email_sent: "Email sent",
  email_opened: "Email opened",
  email_clicked: "Email link clicked",
  email_bounced: "Email bounced",
  sms_sent: "SMS sent",
  sms_received: "SMS reply received",
  call_made: "Call made",
  voicemail_sent: "Voicemail sent",
  note_added: "Note added",
  note_edited: "Note edited",
  note_deleted: "Note deleted",
  imported: "Imported",
  opted_out: "Opted out",
  opted_in: "Opted in",
  video_viewed: "Video viewed",
};

/** How an email opt-out came, by the activity's `source` (campaigns.events unsubscribeRecipient). */
const EMAIL_OPT_OUT_SOURCES: Record<string, string> = {
  "unsubscribe page": "unsubscribe page",
  "one-click": "one-click unsubscribe",
  "postmark unsubscribe request": "their mail app's unsubscribe button",
};

/**
 * An `opted_out` / `opted_in` row's words from its metadata (server: campaigns.events
 * applyRecipientEvent, campaigns.webhooks optOutContact, crm.notes recordSmsStart): the channel and
 * how. `channel` "sms" with the `keyword` replied -> "Opted out of SMS (replied STOP)"; "voice" with
 * `method` keypress and `digit` -> "Opted out of calls (pressed 9)"; an email unsubscribe (no
 * channel, a `source`) -> "Unsubscribed from email (unsubscribe page)". Null when the metadata says
 * neither (the generic label then).
 */
export function optActivityLabel(type: "opted_out" | "opted_in", metadata: unknown): string | null {
  const m = (metadata ?? {}) as {
    channel?: unknown;
    keyword?: unknown;
    method?: unknown;
    digit?: unknown;
    source?: unknown;
  };
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
  const channel = str(m.channel);
  const keyword = str(m.keyword);
  const replied = keyword ? ` (replied ${/\s/.test(keyword) ? `“${keyword}”` : keyword.toUpperCase()})` : "";
  if (type === "opted_in") return channel === "sms" ? `Opted back in to SMS${replied}` : null;
  if (channel === "sms") return `Opted out of SMS${replied}`;
  if (channel === "voice" || channel === "voicemail") {
    const digit = str(m.digit) ?? (typeof m.digit === "number" ? String(m.digit) : null);
    return `Opted out of calls${m.method === "keypress" ? ` (pressed ${digit ?? "a key"})` : ""}`;
  }
  const source = str(m.source);
  if (channel === "email" || source)
    return `Unsubscribed from email${source ? ` (${EMAIL_OPT_OUT_SOURCES[source] ?? source})` : ""}`;
  return null;
}

/**
 * A timeline row's words: the type's label, and for a video's watched milestone its share ("Watched
 * 50 % of the video"; the four milestones all read "Video Progress" before); an opt-out or opt-in
 * names its channel and how (optActivityLabel: two "Opted out" rows said neither).
 */
function activityLabel(a: { activity_type: string; metadata?: unknown }): string {
  if (a.activity_type === "video_progress") {
    const percent = (a.metadata as { percent?: unknown } | null | undefined)?.percent;
    if (typeof percent === "number") return `Watched ${percent} % of the video`;
  }
  if (a.activity_type === "opted_out" || a.activity_type === "opted_in") {
    const label = optActivityLabel(a.activity_type, a.metadata);
    if (label) return label;
  }
  return ACTIVITY_LABELS[a.activity_type] ?? titleCase(a.activity_type);
}

/**
 * The words a person sent, for a timeline row that carries them: an `sms_received` row's reply text
 * (metadata `body`, campaigns.webhooks handleInboundSms, at most 1,600 characters), else the keyword
 * it stands for (a START that left the opt-in off, crm.notes recordSmsStart). Null for other rows and
 * for a reply with neither.
 */
export function activityReplyText(a: { activity_type: string; metadata?: unknown }): string | null {
  if (a.activity_type !== "sms_received") return null;
  const m = (a.metadata ?? {}) as { body?: unknown; keyword?: unknown };
  if (typeof m.body === "string" && m.body.trim()) return m.body;
  if (typeof m.keyword === "string" && m.keyword.trim()) return m.keyword.trim();
  return null;
}

/**
 * The text sent to the person, for a timeline row that carries it: an `sms_sent` row of the contact
 * page's Send SMS (metadata `message` and the number `to`, crm.messages sendSms). Null for other rows
 * (a campaign's text is on its report).
 */
export function activitySentText(a: {
  activity_type: string;
  metadata?: unknown;
}): { text: string; to: string | null } | null {
  if (a.activity_type !== "sms_sent") return null;
  const m = (a.metadata ?? {}) as { message?: unknown; to?: unknown };
  if (typeof m.message !== "string" || !m.message.trim()) return null;
  return { text: m.message, to: typeof m.to === "string" ? m.to : null };
}

/** How the timeline says who did an activity by hand, by its type ("Sent by Cara Member"). */
const ACTIVITY_ACTOR_VERBS: Readonly<Record<string, string>> = {
  email_sent: "Sent by",
  sms_sent: "Sent by",
  call_made: "Sent by",
  note_added: "Written by",
  note_edited: "Edited by",
  note_deleted: "Deleted by",
};

/**
 * Who did a timeline row by hand, from the server's `created_by_name` (activities.created_by: a send
 * from this page, a note): "Sent by Cara Member", "Edited by Ben Admin". Null when nobody is recorded
 * (campaign sends say who launched them on their report; replies and opens are the person's own).
 */
export function activityActorText(a: {
  activity_type: string;
  created_by_name?: string | null;
}): string | null {
  if (!a.created_by_name) return null;
  return `${ACTIVITY_ACTOR_VERBS[a.activity_type] ?? "By"} ${a.created_by_name}`;
}

type FieldDef = {
  key: keyof Contact;
  label: string;
  type?: "text" | "email" | "tel" | "url" | "number" | "bool" | "stage" | "status";
};
const SECTIONS: { title: string; fields: FieldDef[] }[] = [
  {
    title: "Contact Information",
    fields: [
      { key: "first_name", label: "First name" },
      { key: "last_name", label: "Last name" },
      { key: "email", label: "Email", type: "email" },
      { key: "phone", label: "Phone", type: "tel" },
      { key: "mobile", label: "Mobile", type: "tel" },
      { key: "company", label: "Company" },
      { key: "job_title", label: "Job title" },
      { key: "website", label: "Website", type: "url" },
    ],
  },
  {
    title: "Address",
    fields: [
      { key: "street_address", label: "Street" },
      { key: "city", label: "City" },
      { key: "state", label: "State" },
      { key: "postal_code", label: "Postal code" },
      { key: "country", label: "Country" },
    ],
  },
  {
    title: "Lead Information",
    fields: [
      { key: "lifecycle_stage", label: "Lifecycle stage", type: "stage" },
      { key: "lead_status", label: "Lead status", type: "status" },
      { key: "lead_source", label: "Lead source" },
      { key: "lead_score", label: "Lead score", type: "number" },
      { key: "engagement_score", label: "Engagement score", type: "number" },
    ],
  },
  {
    title: "Social Media",
    fields: [
      { key: "linkedin_url", label: "LinkedIn", type: "url" },
      { key: "twitter_handle", label: "Twitter" },
      { key: "facebook_url", label: "Facebook", type: "url" },
      { key: "instagram_handle", label: "Instagram" },
    ],
  },
  {
    title: "Preferences",
    fields: [
      { key: "email_opt_in", label: "Email opt-in", type: "bool" },
      { key: "sms_opt_in", label: "SMS opt-in", type: "bool" },
      { key: "call_opt_in", label: "Call opt-in", type: "bool" },
      { key: "preferred_language", label: "Language" },
      { key: "timezone", label: "Timezone" },
    ],
  },
];

function display(c: Contact, f: FieldDef): string {
  const v = c[f.key];
  if (f.type === "bool") return v ? "Yes" : "No";
  if (f.type === "stage" || f.type === "status") return v ? titleCase(String(v)) : "-";
  if (v === null || v === undefined || v === "") return "-";
  return String(v);
}

function ContactDetailPage() {
  const { id } = Route.useParams();
  const contactId = Number(id);
  const qc = useQueryClient();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const valid = Number.isSafeInteger(contactId) && contactId > 0;
  const { data, isPending, isError } = useQuery({
    ...trpc.crm.get.queryOptions({ id: contactId }),
    retry: false,
    enabled: valid,
  });
  // opt-outs on the suppression list, which the opt-in flags alone do not show (an unsubscribe, a STOP)
  const { data: optOuts } = useQuery({ ...trpc.crm.optOuts.queryOptions({ id: contactId }), enabled: valid });
  const { data: doNotCall } = useQuery({
    ...trpc.crm.doNotCall.queryOptions({ id: contactId }),
    enabled: valid,
  });
  /**
   * The opt-in flags the edit form cannot turn on: the person opted out of that channel (only they can
   * opt back in; the server refuses it with 409), or the number is marked Do Not Call.
   */
  const lockedOptIn = (key: keyof Contact) =>
    (key === "email_opt_in" && !!optOuts?.email.length) ||
    (key === "sms_opt_in" && !!optOuts?.sms.length) ||
    (key === "call_opt_in" && !!doNotCall?.do_not_call);
  const refreshDetail = () =>
    Promise.all([
      qc.invalidateQueries(trpc.crm.get.queryFilter({ id: contactId })),
      qc.invalidateQueries(trpc.crm.optOuts.queryFilter({ id: contactId })),
    ]);
  /** Takes a tag off this contact (crm.bulk remove_tag; the tag itself stays). */
  async function removeTag(tagId: number, name: string, index: number) {
    try {
      await client.crm.bulk.mutate({
        contactIds: [contactId],
        operation: "remove_tag",
        data: { tag_id: tagId },
      });
      // the removed chip's button had focus: once the chip has left the page (the effect below)
      setRefocusTag({ removedId: tagId, index });
      await qc.invalidateQueries(trpc.crm.pathFilter());
      setBanner({ variant: "success", message: `Removed the tag ${name}` });
    } catch (e) {
      setBanner({ variant: "error", message: `Failed to remove the tag: ${(e as Error).message}` });
    }
  }
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState<Record<string, unknown>>({});
  const [saving, setSaving] = useState(false);
  const [note, setNote] = useState("");
  // one note per press: a double click's second click comes before the button re-renders busy
  const [addingNote, setAddingNote] = useState(false);
  const addingNoteNow = useRef(false);
  const newNoteBox = useRef<HTMLTextAreaElement>(null);
  const [banner, setBanner] = useState<{ variant: "success" | "error"; message: string } | null>(null);
  const [dialog, setDialog] = useState<null | "email" | "sms" | "call">(null);
  // after a confirmed note delete: the next note's Delete, else the Notes tab panel
  const notesList = useRef<HTMLUListElement>(null);
  const notesBox = useRef<HTMLDivElement>(null);
  const tagRow = useRef<HTMLDivElement>(null);
  // after a tag's removal, focus goes to the next chip's remove button, else the tag row itself: once
  // the refetched contact no longer carries the tag (a render before that still shows its chip)
  const [refocusTag, setRefocusTag] = useState<{ removedId: number; index: number } | null>(null);
  const shownTagIds = (data?.tags ?? []).map((t) => t.id).join(",");
  useEffect(() => {
    if (!refocusTag || shownTagIds.split(",").includes(String(refocusTag.removedId))) return;
    const left = tagRow.current?.querySelectorAll<HTMLButtonElement>("button") ?? [];
    (left[Math.min(refocusTag.index, left.length - 1)] ?? tagRow.current)?.focus();
    setRefocusTag(null);
  }, [refocusTag, shownTagIds]);

  if (isPending && valid) return <p className="p-6 text-muted-foreground">Loading contact...</p>;
  if (isError || !data)
    return (
      <div className="grid gap-4 p-6">
        <p className="text-lg font-medium">Contact not found</p>
        <Button variant="outline" asChild className="w-fit">
          <Link to="/contacts">
            <ArrowLeft aria-hidden /> Back to Contacts
          </Link>
        </Button>
      </div>
    );

  const {
    contact: c,
    tags,
    activities,
    notes,
    added_by_name: addedBy,
    added_by_api_key_name: addedThroughKey,
  } = data;
  const name = contactName(c);

  function startEdit() {
    setDraft(
      Object.fromEntries(
        SECTIONS.flatMap((s) => s.fields).map((f) => [
          f.key,
          // an opted-out channel's flag is off, whatever was stored
          f.type === "bool" && lockedOptIn(f.key) ? false : (c[f.key] ?? (f.type === "bool" ? false : "")),
        ]),
      ),
    );
    setEditing(true);
  }

  async function save() {
    setSaving(true);
    setBanner(null);
    try {
      const body: Record<string, unknown> = { ...draft };
      for (const k of ["lead_score", "engagement_score"]) body[k] = body[k] === "" ? 0 : Number(body[k]);
      await client.crm.update.mutate({ id: c.id, data: body });
      await invalidateCrm(qc);
      setEditing(false);
      setBanner({ variant: "success", message: "Contact saved" });
    } catch (e) {
      setBanner({ variant: "error", message: `Error: ${errorMessage(e, "Failed to save contact")}` });
    } finally {
      setSaving(false);
    }
  }

  /**
   * Adds the typed note once (a second press while it is being added does nothing), then empties the
   * box and puts focus back in it: the emptied box turns Add Note off, and a focused button that
   * turns off drops keyboard focus to the page's top.
   */
  async function addNote() {
    const text = note.trim();
    if (!text || addingNoteNow.current) return; // empty notes are not sent (spec section 5)
    addingNoteNow.current = true;
    setAddingNote(true);
    try {
      await client.crm.addNote.mutate({ id: c.id, note_text: text });
      setNote("");
      newNoteBox.current?.focus();
      await refreshDetail();
    } catch (e) {
      setBanner({ variant: "error", message: `Error: ${errorMessage(e, "Failed to add note")}` });
    } finally {
      addingNoteNow.current = false;
      setAddingNote(false);
    }
  }

  function editor(f: FieldDef) {
    const id = `edit-${f.key}`;
    const value = draft[f.key];
    if (f.type === "bool") {
      const locked = lockedOptIn(f.key);
      return (
        <>
          <input
            id={id}
            type="checkbox"
            checked={!locked && !!value}
            disabled={locked}
            aria-describedby={locked ? `${id}-locked` : undefined}
            onChange={(e) => setDraft({ ...draft, [f.key]: e.target.checked })}
          />
          {locked && (
            <span id={`${id}-locked`} className="ml-2 text-xs text-muted-foreground">
              {f.key === "call_opt_in" && doNotCall?.marked_by_owner && !doNotCall.opted_out_by_person
                ? "Marked Do Not Call: remove your mark first."
                : "They opted out: only they can opt back in."}
            </span>
          )}
        </>
      );
    }
    if (f.type === "stage" || f.type === "status")
      return (
        <select
          id={id}
          className="h-9 rounded-md border border-input bg-card px-2 text-sm"
          value={String(value ?? "")}
          onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
        >
          {(f.type === "stage" ? LIFECYCLE_STAGES : LEAD_STATUSES).map((v) => (
            <option key={v} value={v}>
              {titleCase(v)}
            </option>
          ))}
        </select>
      );
    return (
      <Input
        id={id}
        type={f.type === "number" ? "number" : (f.type ?? "text")}
        min={f.type === "number" ? 0 : undefined}
        max={f.type === "number" ? 100 : undefined}
        className="h-9"
        value={String(value ?? "")}
        onChange={(e) => setDraft({ ...draft, [f.key]: e.target.value })}
      />
    );
  }

  return (
    <div className="grid gap-6">
      <div>
        <Button variant="ghost" size="sm" asChild>
          <Link to="/contacts">
            <ArrowLeft aria-hidden /> Back to Contacts
          </Link>
        </Button>
      </div>
      <header className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
        <div className="flex items-center gap-4">
          <div className="flex size-14 shrink-0 items-center justify-center rounded-full bg-primary/15 text-xl font-semibold text-primary-text">
            {(name[0] ?? "?").toUpperCase()}
          </div>
          <div className="min-w-0">
            <h1 className="text-2xl font-semibold break-words">
              <ContactNameText contact={c} />
            </h1>
            <p className="text-sm break-all text-muted-foreground">{c.email || "-"}</p>
            {/* who brought the contact in (the server's added_by_name: by hand, or the CSV file's importer;
                added_by_api_key_name: the API key it came through) */}
            {/* an API key's name may be one long word ("ZapierWebsiteForm..."): it wraps, not the page at 390 px */}
            <p className="text-xs text-muted-foreground wrap-anywhere" data-testid="contact-added">
              Added{" "}
              {addedBy ? `by ${addedBy} ` : addedThroughKey ? `through API key '${addedThroughKey}' ` : ""}on{" "}
              {formatDate(c.created_at)}
            </p>
            <div
              ref={tagRow}
              tabIndex={-1}
              role="group"
              aria-label="Tags"
              className="mt-1 flex flex-wrap gap-1 outline-none"
              data-testid="contact-tags"
            >
              {tags.map((t, i) => {
                // text in near-black or white, whichever reads on the tag's own colour (white on a
                // yellow tag was 1.07:1), as Business Search's tag chips do
                const color = t.tag_color || "#6366f1";
                return (
                  <span
                    key={t.id}
                    className="inline-flex items-center gap-0.5 rounded-full py-0.5 pr-1 pl-2 text-xs font-medium"
                    style={{ backgroundColor: color, color: readableTextOn(color) }}
                  >
                    {t.tag_name}
                    <button
                      type="button"
                      className="rounded-full p-0.5 hover:bg-black/10 focus-visible:outline-2 focus-visible:outline-current"
                      aria-label={`Remove tag ${t.tag_name}`}
                      onClick={() => void removeTag(t.id, t.tag_name, i)}
                    >
                      <X className="size-3" aria-hidden />
                    </button>
                  </span>
                );
              })}
              <StageBadge stage={c.lifecycle_stage} />
            </div>
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" onClick={() => (editing ? setEditing(false) : startEdit())}>
            {editing ? "Cancel" : "Edit"}
          </Button>
          <Button variant="outline" onClick={() => setDialog("email")}>
            <Mail aria-hidden /> Send Email
          </Button>
          <Button variant="outline" onClick={() => setDialog("sms")}>
            <MessageSquare aria-hidden /> Send SMS
          </Button>
          <Button variant="outline" onClick={() => setDialog("call")}>
            <Phone aria-hidden /> Call
          </Button>
        </div>
      </header>

      {banner && (
        <AlertBanner variant={banner.variant} onDismiss={() => setBanner(null)}>
          {banner.message}
        </AlertBanner>
      )}

      <Tabs defaultValue="overview">
        <TabsList>
          <TabsTrigger value="overview">Overview</TabsTrigger>
          <TabsTrigger value="activity">Activity</TabsTrigger>
          <TabsTrigger value="notes">Notes ({notes.length})</TabsTrigger>
        </TabsList>
        <TabsContent value="overview">
          <div className="grid gap-4 md:grid-cols-2">
            {SECTIONS.map((s) => (
              <Card key={s.title}>
                <CardHeader>
                  <CardTitle className="text-base">{s.title}</CardTitle>
                </CardHeader>
                <CardContent>
                  <dl className="grid grid-cols-[10rem_1fr] gap-x-4 gap-y-2 text-sm">
                    {s.fields.map((f) => (
                      <div key={f.key} className="contents">
                        <dt className="text-muted-foreground">
                          {editing ? <label htmlFor={`edit-${f.key}`}>{f.label}</label> : f.label}
                        </dt>
                        <dd className="min-w-0 break-words">
                          {editing ? editor(f) : display(c, f)}
                          {f.key === "email_opt_in" && <OptOutNote reasons={optOuts?.email} what="emails" />}
                          {f.key === "sms_opt_in" && <OptOutNote reasons={optOuts?.sms} what="texts" />}
                        </dd>
                      </div>
                    ))}
                  </dl>
                </CardContent>
              </Card>
            ))}
            <DoNotCallCard
              contactId={c.id}
              hasPhone={!!(c.phone_e164 || c.mobile_e164)}
              onError={(message) => setBanner({ variant: "error", message })}
              onChanged={refreshDetail}
            />
          </div>
          {editing && (
            <div className="mt-4 flex justify-end gap-2">
              <Button variant="outline" onClick={() => setEditing(false)}>
                Cancel
              </Button>
              <Button loading={saving} onClick={() => void save()}>
                Save Contact
              </Button>
            </div>
          )}
        </TabsContent>
        <TabsContent value="activity">
          {activities.length === 0 ? (
            <p className="py-8 text-center text-muted-foreground">No activity yet</p>
          ) : (
            <ol className="grid gap-2">
              {activities.map((a) => {
                const Icon = ACTIVITY_ICONS[a.activity_type] ?? ActivityIcon;
                const reply = activityReplyText(a);
                const sent = activitySentText(a);
                const actor = activityActorText(a);
                return (
                  <li key={a.id} className="flex items-start gap-3 rounded-lg border border-border p-3">
                    <Icon className="mt-1 size-4 shrink-0 text-primary-text" aria-hidden />
                    <div className="grid min-w-0 flex-1 gap-1">
                      <div className="flex flex-wrap items-baseline gap-x-3">
                        <span className="font-medium">{activityLabel(a)}</span>
                        <span className="ml-auto text-sm text-muted-foreground">
                          {new Date(a.created_at).toLocaleString()}
                        </span>
                      </div>
                      {/* who did it from this page (the server's created_by_name) */}
                      {actor !== null && (
                        <span className="text-xs text-muted-foreground" data-testid="activity-actor">
                          {actor}
                        </span>
                      )}
                      {/* the person's own words, as text (React escapes it), wrapped however long */}
                      {reply !== null && (
                        <blockquote
                          className="rounded-md border-l-2 border-primary/40 bg-muted/50 px-3 py-1.5 text-sm whitespace-pre-wrap wrap-anywhere"
                          data-testid="activity-reply"
                        >
                          {reply}
                        </blockquote>
                      )}
                      {/* the text the page sent, and to which number (both sides of the conversation) */}
                      {sent !== null && (
                        <div className="grid gap-0.5" data-testid="activity-sent">
                          {sent.to && <span className="text-xs text-muted-foreground">To {sent.to}</span>}
                          <p className="rounded-md bg-primary/5 px-3 py-1.5 text-sm whitespace-pre-wrap wrap-anywhere">
                            {sent.text}
                          </p>
                        </div>
                      )}
                    </div>
                  </li>
                );
              })}
            </ol>
          )}
        </TabsContent>
        <TabsContent value="notes">
          <div className="grid gap-3" ref={notesBox}>
            <Textarea
              ref={newNoteBox}
              rows={4}
              aria-label="New note"
              placeholder="Write a note..."
              value={note}
              onChange={(e) => setNote(e.target.value)}
            />
            <Button
              className="w-fit"
              onClick={() => void addNote()}
              disabled={!note.trim()}
              loading={addingNote}
            >
              Add Note
            </Button>
            {notes.length === 0 ? (
              <p className="py-6 text-center text-muted-foreground">No notes yet</p>
            ) : (
              <ul className="grid gap-2" ref={notesList}>
                {notes.map((n, index) => (
                  <NoteItem
                    key={n.id}
                    contactId={c.id}
                    note={n}
                    // the slot among the Delete buttons (notes the reader may not delete have none)
                    focusAfterDelete={sameSlotOr(
                      notesList,
                      "[data-delete-note]",
                      notes.slice(0, index).filter((o) => o.can_delete).length,
                      () => notesBox.current?.closest<HTMLElement>("[role=tabpanel]"),
                    )}
                    onChanged={refreshDetail}
                    onError={(message) => setBanner({ variant: "error", message })}
                  />
                ))}
              </ul>
            )}
          </div>
        </TabsContent>
      </Tabs>

      {(["email", "sms", "call"] as const).map((ch) => (
        <MessageDialog
          key={ch}
          channel={ch}
          contact={c}
          open={dialog === ch}
          onOpenChange={(o) => setDialog(o ? ch : null)}
          onDone={(message, ok) => setBanner({ variant: ok ? "success" : "error", message })}
        />
      ))}
    </div>
  );
}

/**
 * One note with Edit (inline, Save / Cancel, Escape cancels) and Delete (confirmed); both through
 * tRPC `crm.editNote` / `crm.deleteNote`, which record note_edited / note_deleted on the timeline.
 */
/**
 * Whether the contact may be called (AI calls and ringless voicemail): the suppression list for calls
 * (a keypress opt-out, an SMS STOP, the owner's own mark) with the reasons, and the owner's switch.
 * A person's own opt-out cannot be lifted here.
 */
function DoNotCallCard({
  contactId,
  hasPhone,
  onError,
  onChanged,
}: {
  contactId: number;
  hasPhone: boolean;
  onError: (message: string) => void;
  onChanged: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const { data } = useQuery(trpc.crm.doNotCall.queryOptions({ id: contactId }));
  async function toggle(on: boolean) {
    setBusy(true);
    try {
      const next = await client.crm.setDoNotCall.mutate({ id: contactId, do_not_call: on });
      qc.setQueryData(trpc.crm.doNotCall.queryKey({ id: contactId }), next);
      await onChanged();
    } catch (e) {
      onError(`Error: ${errorMessage(e, "Failed to update do not call")}`);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card data-testid="do-not-call">
      <CardHeader>
        <CardTitle className="text-base">Do Not Call</CardTitle>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">
        <p>
          <span className="font-medium">{data?.do_not_call ? "Yes" : "No"}</span>
          <span className="text-muted-foreground">
            {data?.do_not_call
              ? ": no AI calls or ringless voicemails go to this contact's numbers."
              : ": AI calls and voicemails may reach this contact (within their opt-in and quiet hours)."}
          </span>
        </p>
        {data?.reasons.length ? (
          <ul className="list-disc pl-5 text-muted-foreground">
            {data.reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        ) : null}
        {data && hasPhone && !data.marked_by_owner && (
          <Button variant="outline" className="w-fit" loading={busy} onClick={() => void toggle(true)}>
            Mark Do Not Call
          </Button>
        )}
        {data?.marked_by_owner && (
          <Button variant="outline" className="w-fit" loading={busy} onClick={() => void toggle(false)}>
            Remove Your Do Not Call Mark
          </Button>
        )}
        {data?.opted_out_by_person && (
          <p className="text-muted-foreground">The person opted out themselves: only they can undo it.</p>
        )}
      </CardContent>
    </Card>
  );
}

/**
 * Beside an opt-in flag: that the contact opted out of `what` (emails or texts) through the suppression
 * list (crm.optOuts), with the reasons, since campaigns and single sends skip them whatever the flag
 * says. Nothing when `reasons` is empty or not loaded.
 */
function OptOutNote({ reasons, what }: { reasons: string[] | undefined; what: "emails" | "texts" }) {
  if (!reasons?.length) return null;
  return (
    <span className="mt-1 block text-muted-foreground" data-testid={`opt-out-${what}`}>
      <Badge variant="destructive" className="mr-1">
        Opted out
      </Badge>
      {reasons.join(" ")} No {what} go to them.
    </span>
  );
}

/**
 * One note: its text, who wrote it and when, Edit (in place) and Delete, which asks first in a ConfirmDialog quoting
 * the note ('Delete this note?', spec section 5); once it is gone focus goes to `focusAfterDelete()`. Edit and
 * Delete show only when the server's `can_edit` / `can_delete` allow them for the reader.
 */
function NoteItem({
  contactId,
  note,
  onChanged,
  onError,
  focusAfterDelete,
}: {
  contactId: number;
  note: Note;
  onChanged: () => Promise<unknown>;
  onError: (message: string) => void;
  focusAfterDelete: () => HTMLElement | null | undefined;
}) {
  const crm = useTRPCClient().crm;
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [text, setText] = useState(note.note_text);
  const [busy, setBusy] = useState(false);
  // leaving the edit (Save, Cancel, Escape) puts focus back on Edit: the editor that had it is gone
  const editButton = useRef<HTMLButtonElement>(null);
  const refocusEdit = useRef(false);
  useEffect(() => {
    if (editing || !refocusEdit.current) return;
    refocusEdit.current = false;
    editButton.current?.focus();
  }, [editing]);
  /** Closes the editor (keeping `text` as is) and returns focus to the note's Edit button. */
  function stopEditing() {
    refocusEdit.current = true;
    setEditing(false);
  }

  async function save() {
    if (!text.trim()) return;
    setBusy(true);
    try {
      await crm.editNote.mutate({ id: contactId, noteId: note.id, note_text: text });
      await onChanged();
      stopEditing();
    } catch (e) {
      onError(`Error: ${errorMessage(e, "Failed to save the note")}`);
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setBusy(true);
    try {
      await crm.deleteNote.mutate({ id: contactId, noteId: note.id });
      await onChanged();
    } catch (e) {
      onError(`Error: ${errorMessage(e, "Failed to delete the note")}`);
      setBusy(false);
    }
  }

  return (
    <li className="rounded-lg border border-border p-3" data-testid="note">
      {editing ? (
        <div className="grid gap-2">
          <Textarea
            rows={3}
            aria-label="Edit note"
            value={text}
            autoFocus
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                setText(note.note_text);
                stopEditing();
              }
            }}
          />
          <div className="flex gap-2">
            <Button size="sm" onClick={() => void save()} loading={busy} disabled={!text.trim()}>
              Save
            </Button>
            <Button
              size="sm"
              variant="ghost"
              onClick={() => {
                setText(note.note_text);
                stopEditing();
              }}
            >
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <>
          {/* a pasted link or a key's long name wraps anywhere instead of widening the page at 390 px */}
          <p className="whitespace-pre-wrap wrap-anywhere">{note.note_text}</p>
          <div className="mt-1 flex flex-wrap items-center gap-2">
            {/* who wrote it (the server's author_name), or the API key it came through (author_api_key_name);
                neither for notes from before they were kept */}
            <p className="min-w-0 text-xs text-muted-foreground wrap-anywhere">
              {note.author_name ? (
                <span className="font-medium">{note.author_name} · </span>
              ) : (
                note.author_api_key_name && (
                  <span className="font-medium">Added through API key '{note.author_api_key_name}' · </span>
                )
              )}
              {new Date(note.created_at).toLocaleString()}
            </p>
            {/* only what the server says this reader may do (its can_edit / can_delete: the note's
                author, or an owner or admin) */}
            {(note.can_edit || note.can_delete) && (
              <span className="ml-auto flex gap-1">
                {note.can_edit && (
                  <Button
                    ref={editButton}
                    size="sm"
                    variant="ghost"
                    onClick={() => setEditing(true)}
                    aria-label="Edit note"
                  >
                    Edit
                  </Button>
                )}
                {note.can_delete && (
                  <Button
                    size="sm"
                    variant="ghost"
                    onClick={() => setConfirming(true)}
                    loading={busy}
                    aria-label="Delete note"
                    data-delete-note
                  >
                    Delete
                  </Button>
                )}
              </span>
            )}
          </div>
        </>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Delete this note?"
        description={
          <>
            <span className="line-clamp-3 italic">"{note.note_text}"</span> This cannot be undone.
          </>
        }
        confirmLabel="Delete note"
        onConfirm={() => void remove()}
        focusAfterConfirm={focusAfterDelete}
      />
    </li>
  );
}
