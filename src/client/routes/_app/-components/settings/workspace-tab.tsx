import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type FormEvent, useEffect, useId, useMemo, useState } from "react";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Switch } from "@/client/components/ui/switch";
import { Textarea } from "@/client/components/ui/textarea";
import { useTRPC } from "@/client/trpc";
import { DeleteWorkspaceCard } from "./danger-zone";
import type { ShowBanner } from "./types";

/**
 * Settings > Workspace (issue 10): name and the branding recipients see on landing pages and emails
 * (sender name, brand colour, logo); the business's postal address, which every campaign email's footer
 * shows (CAN-SPAM, 15 U.S.C. 7704(a)(5)(A)(iii)); Enterprise may hide 'Powered by Pitchwise'; the phone country
 * national numbers are read in (issue 14: `020 7946 0018` is a UK number once it is GB). Owners and
 * admins edit; members read. The owner also sees Delete workspace (danger-zone DeleteWorkspaceCard).
 */
export function WorkspaceTab({ onBanner }: { onBanner: ShowBanner }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const current = useQuery(trpc.workspaces.current.queryOptions());
  const countries = usePhoneCountries();
  // how many people lose access if the owner deletes the workspace (Delete workspace)
  const members = useQuery({
    ...trpc.workspaces.members.queryOptions(),
    enabled: current.data?.role === "owner",
  });
  const ids = {
    name: useId(),
    sender: useId(),
    address: useId(),
    addressHelp: useId(),
    color: useId(),
    logo: useId(),
    hide: useId(),
    country: useId(),
    countryHelp: useId(),
  };
  const [form, setForm] = useState({
    name: "",
    sender_name: "",
    postal_address: "",
    brand_color: "",
    logo_url: "",
    hide_branding: false,
    phone_country: "US",
  });
  useEffect(() => {
    if (current.data)
      setForm({
        name: current.data.name,
        sender_name: current.data.sender_name ?? "",
        postal_address: current.data.postal_address ?? "",
        brand_color: current.data.brand_color ?? "",
        logo_url: current.data.logo_url ?? "",
        hide_branding: current.data.hide_branding,
        phone_country: current.data.phone_country,
      });
  }, [current.data]);
  const save = useMutation(
    trpc.workspaces.update.mutationOptions({
      onSuccess: () => {
        onBanner({ variant: "success", message: "Workspace settings saved." });
        void qc.invalidateQueries();
      },
      onError: (e) => onBanner({ variant: "error", message: e.message, refusal: e.data?.planRefusal }),
    }),
  );
  if (!current.data) return <p className="text-sm text-muted-foreground">Loading workspace...</p>;
  const canEdit = current.data.role !== "member";
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onBanner(null);
    save.mutate(form);
  };
  const field = (key: "name" | "sender_name" | "brand_color" | "logo_url") => ({
    value: form[key],
    disabled: !canEdit,
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [key]: e.target.value })),
  });
  return (
    <div className="grid gap-6">
      <Card>
        <CardHeader>
          <CardTitle>Workspace</CardTitle>
          <CardDescription>
            {canEdit
              ? "Your business as recipients see it on video pages and in emails."
              : "Only the owner or an admin can change these settings."}
          </CardDescription>
        </CardHeader>
        <CardContent>
          <form onSubmit={submit} className="grid max-w-xl gap-4" noValidate>
            <div className="grid gap-1.5">
              <Label htmlFor={ids.name}>Workspace name</Label>
              <Input id={ids.name} {...field("name")} maxLength={80} />
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor={ids.sender}>Sender name</Label>
              <Input id={ids.sender} {...field("sender_name")} maxLength={80} placeholder={form.name} />
              <p className="text-xs text-muted-foreground">
                Shown as the sender of emails and on video pages.
              </p>
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor={ids.address}>Postal address</Label>
              <Textarea
                id={ids.address}
                aria-describedby={ids.addressHelp}
                value={form.postal_address}
                disabled={!canEdit}
                onChange={(e) => setForm((f) => ({ ...f, postal_address: e.target.value }))}
                maxLength={300}
                rows={3}
                className="min-h-20"
                placeholder={"12 Baker St\nSpringfield, IL 62701\nUSA"}
              />
              <p id={ids.addressHelp} className="text-xs text-muted-foreground">
                The law (CAN-SPAM) requires a postal address in marketing email; it is shown in the footer of
                every campaign email.
              </p>
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor={ids.color}>Brand colour</Label>
              <div className="flex items-center gap-3">
                <Input id={ids.color} {...field("brand_color")} placeholder="#1a2b3c" className="max-w-40" />
                <span
                  aria-hidden
                  className="size-8 rounded-md border border-border"
                  style={{
                    background: /^#[0-9a-f]{6}$/i.test(form.brand_color) ? form.brand_color : "transparent",
                  }}
                />
              </div>
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor={ids.logo}>Logo URL</Label>
              <Input
                id={ids.logo}
                type="url"
                {...field("logo_url")}
                placeholder="https://example.com/logo.png"
              />
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor={ids.country}>Phone country</Label>
              <select
                id={ids.country}
                aria-describedby={ids.countryHelp}
                className="h-10 w-full min-w-0 max-w-sm rounded-lg border border-input bg-card px-3 text-sm disabled:cursor-not-allowed disabled:opacity-50"
                value={form.phone_country}
                disabled={!canEdit}
                onChange={(e) => setForm((f) => ({ ...f, phone_country: e.target.value }))}
              >
                {countries.length === 0 && <option value={form.phone_country}>{form.phone_country}</option>}
                {countries.map((c) => (
                  <option key={c.code} value={c.code}>
                    {c.name} (+{c.callingCode})
                  </option>
                ))}
              </select>
              <p id={ids.countryHelp} className="text-xs text-muted-foreground">
                Phone numbers typed without a + country code (on contacts, imports and campaigns) are read as
                numbers of this country.
              </p>
            </div>
            <div className="flex items-center gap-3">
              <Switch
                id={ids.hide}
                checked={form.hide_branding}
                disabled={!canEdit || !current.data.white_label_available}
                onCheckedChange={(v) => setForm((f) => ({ ...f, hide_branding: v }))}
              />
              <Label htmlFor={ids.hide}>Hide 'Powered by Pitchwise'</Label>
            </div>
            {!current.data.white_label_available && (
              <p className="text-xs text-muted-foreground">
                White-label options come with the Enterprise plan.{" "}
                <Link to="/pricing" className="underline">
                  See plans
                </Link>
              </p>
            )}
            {canEdit && (
              <div>
                <Button type="submit" disabled={save.isPending}>
                  {save.isPending ? "Saving..." : "Save workspace"}
                </Button>
              </div>
            )}
          </form>
        </CardContent>
      </Card>
      {current.data.role === "owner" && (
        <DeleteWorkspaceCard
          id={current.data.id}
          name={current.data.name}
          members={members.data?.members.length ?? 1}
        />
      )}
    </div>
  );
}

/**
 * The countries the workspace may read phone numbers in (server: libphonenumber-js's list with calling
 * codes), named in the reader's language by Intl.DisplayNames and sorted by that name.
 */
function usePhoneCountries(): { code: string; callingCode: string; name: string }[] {
  const trpc = useTRPC();
  const list = useQuery({
    ...trpc.workspaces.phoneCountries.queryOptions(),
    staleTime: Number.POSITIVE_INFINITY,
  });
  return useMemo(() => {
    let names: Intl.DisplayNames | null = null;
    try {
      names = new Intl.DisplayNames(undefined, { type: "region" });
    } catch {
      names = null;
    }
    return (list.data ?? [])
      .map((c) => ({ ...c, name: names?.of(c.code) ?? c.code }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }, [list.data]);
}
