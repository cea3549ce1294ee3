import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
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
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { withShownWorkspace } from "@/client/features/workspaces/shown-workspace";
import { useTRPC } from "@/client/trpc";
import { DELETE_ACCOUNT_WORD } from "@/server/features/account/account.schemas";

/**
 * A deletion that asks for typed confirmation: title, what goes, the server's refusal (`error`), the
 * fields (`children`), Cancel and a destructive submit. While `pending` it cannot be closed (Escape,
 * Cancel, the close button) and its buttons are disabled; `onClosed` resets the caller's fields.
 */
function TypedDeleteDialog({
  open,
  setOpen,
  pending,
  title,
  description,
  error,
  submitLabel,
  onSubmit,
  onClosed,
  children,
}: {
  open: boolean;
  setOpen: (open: boolean) => void;
  pending: boolean;
  title: ReactNode;
  description: ReactNode;
  error: string | null;
  submitLabel: string;
  onSubmit: () => void;
  onClosed: () => void;
  children: ReactNode;
}) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (pending) return;
        setOpen(o);
        if (!o) onClosed();
      }}
    >
      <DialogContent>
        <form onSubmit={submit} className="grid gap-4" noValidate>
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription>{description}</DialogDescription>
          </DialogHeader>
          {error && <AlertBanner variant="error">{error}</AlertBanner>}
          {children}
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="outline" disabled={pending}>
                Cancel
              </Button>
            </DialogClose>
            <Button type="submit" variant="destructive" loading={pending}>
              {pending ? "Deleting..." : submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** A text field whose value is typed to confirm (no autocomplete or spell check). */
function ConfirmField(props: { id: string; label: string; value: string; onChange: (v: string) => void }) {
  return (
    <FormField label={props.label} htmlFor={props.id}>
      <Input
        id={props.id}
        value={props.value}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </FormField>
  );
}

/** The signed-in person's current password, asked again before a deletion. */
function PasswordField(props: { id: string; value: string; onChange: (v: string) => void }) {
  return (
    <FormField label="Current password" htmlFor={props.id}>
      <Input
        id={props.id}
        type="password"
        autoComplete="current-password"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </FormField>
  );
}

/**
 * Settings > Workspace > Delete workspace (shown to the owner only; the server enforces it): a dialog
 * that says what goes (contacts, campaigns, media, the subscription, members' access), offers the
 * contacts' CSV export first, and asks for the workspace's name and the current password before tRPC
 * `account.deleteWorkspace` (with workspace `id`, so only the workspace shown can go), whose sentence a wrong name or password shows. Afterwards
 * the whole app reloads on the dashboard of the workspace the session falls back to.
 */
export function DeleteWorkspaceCard({ id, name, members }: { id: string; name: string; members: number }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const ids = { name: useId(), password: useId() };
  const remove = useMutation(
    trpc.account.deleteWorkspace.mutationOptions({
      onSuccess: () => window.location.assign("/dashboard"),
      onError: (e) => setError(e.message),
    }),
  );
  const others = members - 1;
  return (
    <Card className="border-destructive/40">
      <CardHeader>
        <CardTitle>Delete workspace</CardTitle>
        <CardDescription>
          Deletes {name} with its contacts, campaigns, media and API keys, and ends its subscription now. This
          cannot be undone.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <Button variant="destructive" onClick={() => setOpen(true)}>
          Delete workspace
        </Button>
      </CardContent>
      <TypedDeleteDialog
        open={open}
        setOpen={setOpen}
        pending={remove.isPending}
        title={`Delete ${name}?`}
        description={
          <>
            Its contacts, campaigns (scheduled and sending ones stop now), videos and API keys are deleted,
            and a paid subscription ends today without a refund.
            {others > 0
              ? ` ${others} other ${others === 1 ? "member loses" : "members lose"} access at once and ${others === 1 ? "is" : "are"} told by email.`
              : ""}{" "}
            This cannot be undone.
          </>
        }
        error={error}
        submitLabel="Delete this workspace"
        onSubmit={() => {
          // the server checks the name and the password and answers with the sentence to show
          setError(null);
          remove.mutate({ workspace_id: id, confirm_name: typed, password });
        }}
        onClosed={() => {
          setTyped("");
          setPassword("");
          setError(null);
        }}
      >
        <p className="text-sm">
          Want a copy first?{" "}
          <a
            href={withShownWorkspace("/api/contacts/export.csv")}
            download
            className="font-medium text-primary-text underline"
          >
            Export all contacts (CSV)
          </a>
        </p>
        <ConfirmField
          id={ids.name}
          label={`Type ${name.trim()} to confirm`}
          value={typed}
          onChange={setTyped}
        />
        <PasswordField id={ids.password} value={password} onChange={setPassword} />
      </TypedDeleteDialog>
    </Card>
  );
}

/**
 * Settings > Profile > Delete account: what deleting the account does to each workspace (tRPC
 * `account.deletionPreview`: owned ones with members block it, owned ones alone are deleted, the rest
 * are left), then a dialog asking for the current password and DELETE before `account.deleteAccount`
 * (its sentence shows a wrong password or word). Afterwards the browser goes to the sign-in page,
 * which says the account was deleted.
 */
export function DeleteAccountCard() {
  const trpc = useTRPC();
  const preview = useQuery(trpc.account.deletionPreview.queryOptions());
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string | null>(null);
  const ids = { password: useId(), word: useId() };
  const remove = useMutation(
    trpc.account.deleteAccount.mutationOptions({
      onSuccess: () => window.location.assign("/login?deleted=account"),
      onError: (e) => setError(e.message),
    }),
  );
  const p = preview.data;
  const blocked = (p?.blocking.length ?? 0) > 0;
  return (
    <Card className="border-destructive/40 xl:col-span-2">
      <CardHeader>
        <CardTitle>Delete account</CardTitle>
        <CardDescription>
          Deletes your Pitchwise account and signs you out everywhere. This cannot be undone.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {preview.isPending && <p className="text-sm text-muted-foreground">Checking your workspaces...</p>}
        {preview.error && <AlertBanner variant="error">{preview.error.message}</AlertBanner>}
        {p && (
          <ul className="grid gap-1 text-sm">
            {p.blocking.map((w) => (
              <li key={w.id}>
                <strong>{w.name}</strong>: you own it and{" "}
                {w.other_members === 1
                  ? "1 other person is a member"
                  : `${w.other_members} other people are members`}
                . Transfer its ownership (Team tab) or delete it (Workspace tab) first.
              </li>
            ))}
            {p.deleted.map((w) => (
              <li key={w.id}>
                <strong>{w.name}</strong> is deleted with its contacts, campaigns and media
                {w.subscribed ? ", and its subscription ends today" : ""}.
              </li>
            ))}
            {p.left.map((w) => (
              <li key={w.id}>
                You leave <strong>{w.name}</strong> (your API keys there stop working); it stays with its
                owner.
              </li>
            ))}
          </ul>
        )}
        <div>
          <Button variant="destructive" disabled={!p || blocked} onClick={() => setOpen(true)}>
            Delete account
          </Button>
        </div>
      </CardContent>
      <TypedDeleteDialog
        open={open}
        setOpen={setOpen}
        pending={remove.isPending}
        title="Delete your account?"
        description={
          <>
            {p && p.deleted.length > 0
              ? `${p.deleted.map((w) => w.name).join(", ")} ${p.deleted.length === 1 ? "is" : "are"} deleted with everything in ${p.deleted.length === 1 ? "it" : "them"}. `
              : ""}
            You are signed out everywhere and cannot sign in again. This cannot be undone.
          </>
        }
        error={error}
        submitLabel="Delete my account"
        onSubmit={() => {
          // the server checks the word and the password and answers with the sentence to show
          setError(null);
          remove.mutate({ password, confirm: typed });
        }}
        onClosed={() => {
          setPassword("");
          setTyped("");
          setError(null);
        }}
      >
        <PasswordField id={ids.password} value={password} onChange={setPassword} />
        <ConfirmField
          id={ids.word}
          label={`Type ${DELETE_ACCOUNT_WORD} to confirm`}
          value={typed}
          onChange={setTyped}
        />
      </TypedDeleteDialog>
    </Card>
  );
}
