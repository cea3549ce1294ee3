import { Link, useNavigate } from "@tanstack/react-router";
import { useRef, useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button, buttonVariants } from "@/client/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import type { Contact } from "@/client/features/crm/api";
import { ApiError, api, NETWORK_ERROR_MESSAGE } from "@/client/lib/api";
import { cn } from "@/client/lib/utils";
import { smsSegments } from "@/server/features/campaigns/sms-segments";
import type { BuilderRecipient, LaunchResponse } from "./api";
import { ContactPicker, contactName } from "./contact-picker";
import { MergeTagTextarea, usePreview } from "./merge-tag-field";
import { useClearWhenEdited, WizardNav, WizardSteps } from "./wizard";

const STEPS = ["Campaign Details", "Message Content", "Select Contacts", "Review & Launch"] as const;

/** Live counter: characters (red past 160, spec section 5) and GSM-7 / UCS-2 segments. */
export function SmsCounter({ text }: { text: string }) {
  const info = smsSegments(text);
  return (
    <p className="text-sm" data-testid="sms-counter">
      <span className={cn(info.characters > 160 ? "font-medium text-destructive" : "text-muted-foreground")}>
        {info.characters} / 160 characters
      </span>
      <span className="text-muted-foreground">
        {" "}
        · {info.segments} segment{info.segments === 1 ? "" : "s"} ({info.encoding})
      </span>
    </p>
  );
}

/**
 * The SMS campaign builder (/campaigns/sms, spec sections 2, 5, 8): details, message with counter,
 * insert buttons and preview, contact selection (CRM table and/or CSV), review with stat cards.
 * After launch it waits 2 seconds, then goes to /dashboard.
 */
export function SmsCampaignBuilder() {
  const navigate = useNavigate();
  const [step, setStep] = useState(0);
  const [name, setName] = useState("");
  const [message, setMessage] = useState("");
  const [selected, setSelected] = useState<Contact[]>([]);
  const [csvRows, setCsvRows] = useState<BuilderRecipient[]>([]);
  const [consent, setConsent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** the server refused the launch for the plan (402): the banner links to /pricing */
  const [needsUpgrade, setNeedsUpgrade] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const preview = usePreview();

  const recipients = selected.length + csvRows.length;
  const segments = smsSegments(message).segments;
  const sample = selected[0]
    ? {
        firstName: selected[0].first_name,
        lastName: selected[0].last_name,
        company: selected[0].company,
        phone: selected[0].phone,
        email: selected[0].email,
      }
    : csvRows[0]
      ? {
          name: csvRows[0].name,
          company: csvRows[0].company,
          phone: csvRows[0].phone,
          email: csvRows[0].email,
        }
      : {};
  const notOptedIn = selected.filter((c) => !c.sms_opt_in).length + csvRows.length;

  useClearWhenEdited(setError, [name, message, selected, csvRows]);

  function next() {
    if (step === 0 && !name.trim()) return setError("Please enter a campaign name");
    if (step === 1 && !message.trim()) return setError("Please enter your SMS message");
    if (step === 2 && recipients === 0) return setError("Please select at least one contact");
    setError(null);
    setStep((s) => s + 1);
  }

  async function launch() {
    if (!name.trim()) return setError("Please enter a campaign name");
    if (!message.trim()) return setError("Please enter your SMS message");
    if (recipients === 0) return setError("Please select at least one contact");
    setBusy(true);
    setError(null);
    try {
      const res = await api.post<LaunchResponse>(
        "/api/campaigns/sms/launch",
        {
          campaignName: name,
          message,
          contacts: [
            ...selected.map((c) => ({
              id: c.id,
              name: contactName(c),
              phone: c.phone ?? c.mobile,
              company: c.company,
            })),
            ...csvRows,
          ],
          includeNotOptedIn: consent,
        },
        { fallbackError: "Failed to launch campaign" },
      );
      const text = `Campaign launched! Sending to ${res.recipients} contacts.`;
      setDone(text);
      toast.success(text);
      setTimeout(() => void navigate({ to: "/dashboard" }), 2000);
    } catch (e) {
      setNeedsUpgrade(e instanceof ApiError && e.status === 402);
      setError(
        e instanceof ApiError && e.isNetworkError
          ? NETWORK_ERROR_MESSAGE
          : (e as Error).message || "Failed to launch campaign",
      );
      setBusy(false);
    }
  }

  return (
    <div className="space-y-6">
      <WizardSteps steps={STEPS} step={step} />
      {error && (
        <AlertBanner variant="error">
          {error}
          {needsUpgrade && (
            <>
              {" "}
              <Link to="/pricing" className="font-medium underline">
                See plans
              </Link>
            </>
          )}
        </AlertBanner>
      )}
      {done && <AlertBanner variant="success">{done}</AlertBanner>}
      <Card>
        <CardHeader>
          <CardTitle>{STEPS[step]}</CardTitle>
        </CardHeader>
        <CardContent className="space-y-4">
          {step === 0 && (
            <div className="space-y-2">
              <Label htmlFor="sms-name">Campaign name</Label>
              <Input
                id="sms-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="Weekend promo"
                maxLength={200}
              />
            </div>
          )}
          {step === 1 && (
            <>
              <div className="space-y-2">
                <Label htmlFor="sms-message">Message</Label>
                <MergeTagTextarea
                  id="sms-message"
                  rows={5}
                  value={message}
                  onChange={setMessage}
                  maxLength={1600}
                />
                <SmsCounter text={message} />
              </div>
              <div className="rounded-lg border bg-muted/40 p-4">
                <p className="text-sm text-muted-foreground">Preview</p>
                <p className="mt-1 whitespace-pre-line" data-testid="sms-preview">
                  {preview(message, sample)}
                </p>
                <p className="mt-2 text-xs text-muted-foreground">
                  "Reply STOP to opt out" is added to the first message each contact receives. Texts go out
                  between 8am and 9pm in each contact's time zone.
                </p>
              </div>
            </>
          )}
          {step === 2 && (
            <ContactPicker
              need="phone"
              selected={selected}
              onSelected={setSelected}
              csvRows={csvRows}
              onCsvRows={setCsvRows}
            />
          )}
          {step === 3 && (
            <div className="space-y-4">
              <dl className="grid gap-4 sm:grid-cols-4">
                {[
                  ["Campaign name", name],
                  ["Recipients", String(recipients)],
                  ["Message segments", String(segments)],
                  ["Total messages", String(recipients * segments)],
                ].map(([k, v]) => (
                  <div key={k} className="rounded-lg border p-4">
                    <dt className="text-sm text-muted-foreground">{k}</dt>
                    <dd className="text-lg font-semibold">{v}</dd>
                  </div>
                ))}
              </dl>
              {notOptedIn > 0 && (
                <label className="flex items-start gap-2 rounded-lg border p-4 text-sm">
                  <input
                    type="checkbox"
                    checked={consent}
                    onChange={(e) => setConsent(e.target.checked)}
                    className="mt-0.5"
                  />
                  <span>
                    {notOptedIn} recipient{notOptedIn === 1 ? " has" : "s have"} not opted in to SMS. I have
                    their consent to text them. (Without this they are skipped; contacts who replied STOP are
                    always skipped.)
                  </span>
                </label>
              )}
            </div>
          )}
        </CardContent>
      </Card>
      <WizardNav
        step={step}
        last={STEPS.length - 1}
        busy={busy || !!done}
        onBack={() => setStep((s) => Math.max(0, s - 1))}
        onNext={next}
        onLaunch={() => void launch()}
        cancel={
          <Link to="/dashboard" className={buttonVariants({ variant: "ghost" })}>
            Cancel
          </Link>
        }
      />
    </div>
  );
}
