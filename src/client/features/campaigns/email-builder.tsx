import { Link } from "@tanstack/react-router";
import { FileSpreadsheet } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { useAuth } from "@/client/features/auth/auth-context";
import { ApiError, api } from "@/client/lib/api";
import type { BuilderRecipient, LaunchResponse } from "./api";
import { parseRecipientsCsv } from "./csv";
import { MergeTagTextarea, usePreview, useSender } from "./merge-tag-field";
import { LaunchedCard, useClearWhenEdited, WizardNav, WizardSteps } from "./wizard";

const STEPS = ["Campaign Details", "Email Content", "Upload Contacts", "Review & Launch"] as const;

function previewSource(c: BuilderRecipient | undefined) {
  const [first, ...rest] = (c?.name ?? "").trim().split(/\s+/);
  return {
    firstName: first ?? "",
    lastName: rest.join(" "),
    email: c?.email ?? "",
    company: c?.company ?? "",
    phone: c?.phone ?? "",
  };
}

/**
 * The email campaign builder (/email-campaign, spec sections 2, 5, 8): Campaign Details; Email
 * Content (subject, body with merge tags, Send Test to the user's own address); Upload Contacts
 * (CSV with an email column); Review & Launch with a preview for the first contact.
 */
export function EmailCampaignBuilder() {
  const { user } = useAuth();
  const [step, setStep] = useState(0);
  const [name, setName] = useState("");
  const [subject, setSubject] = useState("");
  const [body, setBody] = useState("Hi {{first_name|there}},\n\n");
  const preview = usePreview();
  const { data: sender } = useSender();
  const [contacts, setContacts] = useState<BuilderRecipient[]>([]);
  const [fileName, setFileName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [testing, setTesting] = useState(false);
  const [launched, setLaunched] = useState<LaunchResponse | null>(null);

  useClearWhenEdited(setError, [name, subject, body, contacts]);

  function next() {
    if (step === 0 && !name.trim()) return setError("Please enter a campaign name");
    if (step === 1 && (!subject.trim() || !body.trim()))
      return setError("Please write subject and email body first");
    if (step === 2 && contacts.length === 0) return setError("Please upload a CSV with at least one contact");
    setError(null);
    setStep((s) => s + 1);
  }

  async function sendTest() {
    if (!subject.trim() || !body.trim()) return toast.error("Please write subject and email body first");
    setTesting(true);
    try {
      await api.post(
        "/api/campaigns/email/test",
        { subject, body, testEmail: user?.email },
        { fallbackError: "Failed to send test" },
      );
      toast.success(`Test email sent to ${user?.email}`);
    } catch (e) {
      toast.error(
        e instanceof ApiError && e.isNetworkError
          ? "Network error"
          : (e as Error).message || "Failed to send test",
      );
    } finally {
      setTesting(false);
    }
  }

  async function onFile(file: File | undefined) {
    if (!file) return;
    setFileName(file.name);
    try {
      setContacts(parseRecipientsCsv(await file.text(), "email", 'CSV must have an "email" column'));
      setError(null);
    } catch (e) {
      setContacts([]);
      setError((e as Error).message);
    }
  }

  async function launch() {
    if (!name.trim() || !subject.trim() || !body.trim() || contacts.length === 0)
      return setError("Please complete all steps");
    setBusy(true);
    setError(null);
    try {
      const res = await api.post<LaunchResponse>(
        "/api/campaigns/email/launch",
        {
          campaignName: name,
          subject,
          body,
          contacts: contacts.map((c) => ({
            name: c.name,
            email: c.email,
            company: c.company,
            phone: c.phone,
          })),
        },
        { fallbackError: "Campaign failed" },
      );
      setLaunched(res);
    } catch (e) {
      setError(
        e instanceof ApiError && e.isNetworkError
          ? "Network error"
          : (e as Error).message || "Campaign failed",
      );
    } finally {
      setBusy(false);
    }
  }

  if (launched)
    return (
      <LaunchedCard
        campaignId={launched.campaignId}
        queued={launched.recipients}
        skipped={launched.skipped}
      />
    );
  const first = previewSource(contacts[0]);

  return (
    <div className="space-y-6">
      <WizardSteps steps={STEPS} step={step} />
      {error && <AlertBanner variant="error">{error}</AlertBanner>}
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
              <Button variant="outline" onClick={() => void sendTest()} disabled={testing}>
                {testing ? "Sending..." : "Send Test"}
              </Button>
            </>
          )}
          {step === 2 && (
            <div className="space-y-2">
              <Label htmlFor="email-csv">Contacts CSV (needs an email column)</Label>
              <Input
                id="email-csv"
                type="file"
                accept=".csv,text/csv"
                onChange={(e) => void onFile(e.target.files?.[0])}
              />
              {fileName && contacts.length > 0 && (
                <div className="text-sm text-muted-foreground">
                  <p className="flex items-center gap-2">
                    <FileSpreadsheet className="size-4" aria-hidden /> {fileName}: {contacts.length} contacts
                  </p>
                  <ul className="mt-2 list-disc pl-6">
                    {contacts.slice(0, 5).map((c) => (
                      <li key={c.email}>
                        {c.name || "(no name)"} &lt;{c.email}&gt;
                      </li>
                    ))}
                  </ul>
                  {contacts.length > 5 && <p>...and {contacts.length - 5} more</p>}
                </div>
              )}
              <p className="text-sm text-muted-foreground">
                Or pick saved contacts in the <Link to="/campaigns/sms">SMS builder</Link> /{" "}
                <Link to="/contacts">Contacts</Link>.
              </p>
            </div>
          )}
          {step === 3 && (
            <div className="space-y-4">
              <dl className="grid gap-4 sm:grid-cols-3">
                <div className="rounded-lg border p-4">
                  <dt className="text-sm text-muted-foreground">Campaign</dt>
                  <dd className="font-medium">{name}</dd>
                </div>
                <div className="rounded-lg border p-4">
                  <dt className="text-sm text-muted-foreground">Recipients</dt>
                  <dd className="font-medium">{contacts.length}</dd>
                </div>
                <div className="rounded-lg border p-4">
                  <dt className="text-sm text-muted-foreground">From</dt>
                  <dd className="font-medium break-all" data-testid="review-from">
                    {sender?.from ?? "..."}
                  </dd>
                </div>
              </dl>
              <section className="rounded-lg border p-4" aria-label="Preview for the first contact">
                <p className="text-sm text-muted-foreground">Preview for {contacts[0]?.email}</p>
                <p className="mt-2 font-semibold" data-testid="preview-subject">
                  {preview(subject, first ?? null)}
                </p>
                <p className="mt-2 whitespace-pre-line" data-testid="preview-body">
                  {preview(body, first ?? null)}
                </p>
              </section>
            </div>
          )}
        </CardContent>
      </Card>
      <WizardNav
        step={step}
        last={STEPS.length - 1}
        busy={busy}
        onBack={() => setStep((s) => Math.max(0, s - 1))}
        onNext={next}
        onLaunch={() => void launch()}
      />
    </div>
  );
}
