import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { MailPlus, UserMinus } from "lucide-react";
import { type FormEvent, useId, useRef, useState } from "react";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/client/components/ui/select";
import { type PlanRefusal, PlanRefusalLink } from "@/client/features/billing/plan-refusal";
import { OwnerAction, useUsage } from "@/client/features/billing/usage";
import { sameSlotOr, useFocusBackWhenIdle } from "@/client/lib/focus-rescue";
import { formatDate, formatNumber, plural } from "@/client/lib/format";
import { leaveNoticeAfterReload } from "@/client/lib/notice-after-reload";
import { useTRPC } from "@/client/trpc";
import type { ShowBanner } from "./types";

const ROLE_LABEL = { owner: "Owner", admin: "Admin", member: "Member" } as const;
/** A role in a sentence: "Ada is now an admin." */
const ROLE_WORDS = { owner: "the owner", admin: "an admin", member: "a member" } as const;

/**
 * Which of a list's requests (by id) are running, for buttons that must send one request per click:
 * the second click of a double click arrives before React has re-rendered the button disabled, so
 * `start` is checked synchronously (a ref) and refuses an id already running. `running` re-renders.
 */
function useRunning() {
  const ids = useRef(new Set<string>());
  const [, rerender] = useState(0);
  return {
    running: (id: string) => ids.current.has(id),
    /** false when `id` is already running (the click is dropped) */
    start: (id: string) => {
      if (ids.current.has(id)) return false;
      ids.current.add(id);
      rerender((n) => n + 1);
      return true;
    },
    end: (id: string) => {
      ids.current.delete(id);
      rerender((n) => n + 1);
    },
  };
}

/**
 * The sentence a remove or leave confirmation adds about the API keys the departure revokes (the
 * server's count, tRPC apiKeys.revokedOnDeparture): "Their 2 API keys will be revoked." /
 * "Your API key will be revoked."; empty when there are none or the count is not known yet.
 */
export function keysRevokedSentence(count: number | undefined, whose: "Their" | "Your"): string {
  if (!count) return "";
  return ` ${whose} ${count === 1 ? "API key" : plural(count, "API key")} will be revoked.`;
}

/**
 * How many API keys `userId`'s removal or leaving would revoke, asked while `open` (the confirmation
 * is shown) and asked again each time it opens: undefined until known.
 */
function useKeysRevokedOnDeparture(userId: string | undefined, open: boolean): number | undefined {
  const trpc = useTRPC();
  const q = useQuery(
    trpc.apiKeys.revokedOnDeparture.queryOptions(
      { userId: userId ?? "" },
      { enabled: open && !!userId, staleTime: 0, retry: false },
    ),
  );
  return open ? q.data?.count : undefined;
}

/**
 * Settings > Team (issue 10): members with roles, pending invites with resend/revoke, the invite form
 * and seat count, transfer ownership, leave. Buttons the person cannot use are hidden, as the server's
 * `permissions` say (a member reads why instead of the invite form); the server enforces the same rules.
 */
export function TeamTab({ onBanner }: { onBanner: ShowBanner }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const members = useQuery(trpc.workspaces.members.queryOptions());
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.workspaces.members.queryKey() });
  // what this person may do here is the server's decision (workspaces listMembers permissions)
  const permissions = members.data?.permissions;
  const canManage = permissions?.manage_members === true;
  const done = (message: string) => ({
    onSuccess: () => {
      onBanner({ variant: "success", message });
      void refresh();
    },
    onError: (e: { message: string }) => onBanner({ variant: "error", message: e.message }),
  });
  const changeRole = useMutation(
    trpc.workspaces.changeRole.mutationOptions({
      onSuccess: (changed) => {
        const m = members.data?.members.find((x) => x.user_id === changed.user_id);
        const who = m ? m.name || m.email : "The member";
        onBanner({ variant: "success", message: `${who} is now ${ROLE_WORDS[changed.role]}.` });
        void refresh();
      },
      onError: (e) => onBanner({ variant: "error", message: e.message }),
    }),
  );
  const resending = useRunning();
  const resend = useMutation(
    trpc.workspaces.resendInvite.mutationOptions({
      onSuccess: (inv) => {
        onBanner({
          variant: "success",
          message: `Invitation sent again to ${inv.email}. The link in the earlier email no longer works.`,
        });
        void refresh();
      },
      onError: (e) => onBanner({ variant: "error", message: e.message }),
      onSettled: (_data, _error, input) => resending.end(input.inviteId),
    }),
  );
  const revoke = useMutation(trpc.workspaces.revokeInvite.mutationOptions(done("Invitation revoked.")));
  const remove = useMutation(
    trpc.workspaces.removeMember.mutationOptions(done("Member removed. Their access ended.")),
  );
  // both end with a full load (every cached screen has the old role or workspace), whose page then
  // says what happened (lib/notice-after-reload)
  const transfer = useMutation(
    trpc.workspaces.transferOwnership.mutationOptions({
      onSuccess: (moved) => {
        leaveNoticeAfterReload(
          `Ownership of ${moved.workspace.name} moved to ${moved.new_owner.name}. You are now ${ROLE_WORDS[moved.previous_owner_role]}.`,
        );
        window.location.assign("/settings?tab=team");
      },
      onError: (e) => onBanner({ variant: "error", message: e.message }),
    }),
  );
  const leftName = me.data?.workspace.name;
  const leave = useMutation(
    trpc.workspaces.leave.mutationOptions({
      onSuccess: () => {
        if (leftName) leaveNoticeAfterReload(`You left ${leftName}.`);
        window.location.assign("/dashboard");
      },
      onError: (e) => onBanner({ variant: "error", message: e.message }),
    }),
  );
  const [removing, setRemoving] = useState<{ user_id: string; name: string; index: number } | null>(null);
  const [revokingInvite, setRevokingInvite] = useState<{ id: string; email: string; index: number } | null>(
    null,
  );
  const [leaving, setLeaving] = useState(false);
  const removingKeys = useKeysRevokedOnDeparture(removing?.user_id, removing !== null);
  const leavingKeys = useKeysRevokedOnDeparture(me.data?.user.id, leaving);
  // stable places for focus after a confirmed removal (rescueFocusWhenGone in ConfirmDialog)
  const membersList = useRef<HTMLUListElement>(null);
  const membersHeading = useRef<HTMLHeadingElement>(null);
  const invitesList = useRef<HTMLUListElement>(null);
  const invitesHeading = useRef<HTMLHeadingElement>(null);

  if (members.isPending || me.isPending)
    return <p className="text-sm text-muted-foreground">Loading team...</p>;
  if (members.error) return <p role="alert">{members.error.message}</p>;
  const { seats } = members.data;
  const others = members.data.members.filter((m) => m.user_id !== me.data?.user.id);
  const removable = members.data.members.filter(
    (m) => canManage && m.role !== "owner" && m.user_id !== me.data?.user.id,
  );

  return (
    <div className="grid grid-cols-1 gap-6">
      {canManage && <InviteForm onBanner={onBanner} onInvited={refresh} seats={seats} />}
      <Card>
        <CardHeader>
          <CardTitle ref={membersHeading} tabIndex={-1} className="outline-none">
            Members
          </CardTitle>
          <CardDescription>
            {seats.limit === null
              ? `${plural(seats.used, "seat")} used (unlimited on your plan)`
              : `${formatNumber(seats.used)} of ${plural(seats.limit, "seat")} used, pending invitations included`}
          </CardDescription>
          {permissions?.manage_members_refusal && (
            <p className="text-sm text-muted-foreground">
              {permissions.manage_members_refusal} Ask one of them to invite a teammate or change a role.
            </p>
          )}
        </CardHeader>
        <CardContent>
          <ul ref={membersList} className="divide-y divide-border" aria-label="Members">
            {members.data.members.map((m) => (
              <li key={m.user_id} className="flex flex-wrap items-center gap-3 py-3" data-testid="member-row">
                {/* basis-48: on a phone the role picker and Remove wrap below instead of squeezing this */}
                <div className="min-w-0 flex-1 basis-48">
                  <p className="font-medium break-words sm:truncate">
                    {m.name || m.email}
                    {m.user_id === me.data?.user.id && <span className="text-muted-foreground"> (you)</span>}
                  </p>
                  {/* the address may break anywhere on a phone; "joined <date>" never inside */}
                  <p className="text-sm text-muted-foreground sm:truncate">
                    <span className="[overflow-wrap:anywhere]">{m.email}</span> ·{" "}
                    <span className="whitespace-nowrap">joined {formatDate(m.joined_at)}</span>
                  </p>
                </div>
                {canManage && m.role !== "owner" && m.user_id !== me.data?.user.id ? (
                  <>
                    <Select
                      value={m.role}
                      onValueChange={(r) =>
                        changeRole.mutate({ userId: m.user_id, role: r as "admin" | "member" })
                      }
                    >
                      <SelectTrigger className="w-32" aria-label={`Role of ${m.name || m.email}`}>
                        <SelectValue />
                      </SelectTrigger>
                      <SelectContent>
                        <SelectItem value="admin">Admin</SelectItem>
                        <SelectItem value="member">Member</SelectItem>
                      </SelectContent>
                    </Select>
                    <Button
                      variant="outline"
                      size="sm"
                      data-remove-member
                      onClick={() =>
                        setRemoving({
                          user_id: m.user_id,
                          name: m.name || m.email,
                          index: removable.indexOf(m),
                        })
                      }
                    >
                      <UserMinus aria-hidden />
                      Remove
                    </Button>
                  </>
                ) : (
                  <Badge variant={m.role === "owner" ? "default" : "secondary"}>{ROLE_LABEL[m.role]}</Badge>
                )}
              </li>
            ))}
          </ul>
        </CardContent>
      </Card>

      {canManage && members.data.invites.length > 0 && (
        <Card>
          <CardHeader>
            <CardTitle ref={invitesHeading} tabIndex={-1} className="outline-none">
              Pending invitations
            </CardTitle>
            <CardDescription>Each link works once and expires after 7 days.</CardDescription>
          </CardHeader>
          <CardContent>
            <ul ref={invitesList} className="divide-y divide-border" aria-label="Pending invitations">
              {members.data.invites.map((i, index) => (
                <li key={i.id} className="flex flex-wrap items-center gap-3 py-3" data-testid="invite-row">
                  <div className="min-w-0 flex-1 basis-48">
                    <p className="font-medium break-all sm:truncate">{i.email}</p>
                    <p className="text-sm text-muted-foreground">
                      {ROLE_LABEL[i.role]} · expires {formatDate(i.expires_at)}
                    </p>
                  </div>
                  <Button
                    variant="outline"
                    size="sm"
                    aria-label={`Resend the invitation to ${i.email}`}
                    loading={resending.running(i.id)}
                    onClick={() => resending.start(i.id) && resend.mutate({ inviteId: i.id })}
                  >
                    Resend
                  </Button>
                  <Button
                    variant="outline"
                    size="sm"
                    aria-label={`Revoke the invitation to ${i.email}`}
                    data-revoke-invite
                    onClick={() => setRevokingInvite({ id: i.id, email: i.email, index })}
                  >
                    Revoke
                  </Button>
                </li>
              ))}
            </ul>
          </CardContent>
        </Card>
      )}

      {permissions?.transfer_ownership && others.length > 0 && (
        <TransferOwnership
          members={others}
          pending={transfer.isPending}
          onTransfer={(userId) => transfer.mutate({ user_id: userId })}
        />
      )}
      {permissions?.leave_workspace && (
        <Card>
          <CardHeader>
            <CardTitle>Leave workspace</CardTitle>
            <CardDescription>You lose access to {me.data?.workspace.name} at once.</CardDescription>
          </CardHeader>
          <CardContent>
            {/* aria-disabled, not disabled: a disabled button drops the focus it got back from the dialog */}
            <Button
              variant="destructive"
              aria-disabled={leave.isPending || undefined}
              onClick={() => !leave.isPending && setLeaving(true)}
            >
              {leave.isPending ? "Leaving..." : "Leave workspace"}
            </Button>
          </CardContent>
        </Card>
      )}

      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={`Remove ${removing?.name ?? ""}?`}
        description={`Their access to this workspace ends at once, including any open sessions. Their contacts, notes and campaigns stay in the workspace; campaigns they scheduled that have not started are paused until an owner or admin resumes them.${keysRevokedSentence(removingKeys, "Their")}`}
        confirmLabel="Remove member"
        onConfirm={() => {
          if (removing) remove.mutate({ userId: removing.user_id });
        }}
        focusAfterConfirm={
          removing
            ? sameSlotOr(membersList, "[data-remove-member]", removing.index, () => membersHeading.current)
            : undefined
        }
      />
      <ConfirmDialog
        open={revokingInvite !== null}
        onOpenChange={(open) => !open && setRevokingInvite(null)}
        title={`Revoke the invitation to ${revokingInvite?.email ?? ""}?`}
        description="Its link stops working at once and the seat it held is free again. You can invite them again later."
        confirmLabel="Revoke invitation"
        onConfirm={() => {
          if (revokingInvite) revoke.mutate({ inviteId: revokingInvite.id });
        }}
        focusAfterConfirm={
          revokingInvite
            ? sameSlotOr(invitesList, "[data-revoke-invite]", revokingInvite.index, () =>
                invitesHeading.current?.isConnected ? invitesHeading.current : membersHeading.current,
              )
            : undefined
        }
      />
      <ConfirmDialog
        open={leaving}
        onOpenChange={setLeaving}
        title={`Leave ${me.data?.workspace.name ?? "this workspace"}?`}
        description={`You lose access to its contacts, campaigns and media at once; campaigns you scheduled that have not started are paused until an owner or admin resumes them. An owner or admin can invite you again.${keysRevokedSentence(leavingKeys, "Your")}`}
        confirmLabel="Leave workspace"
        onConfirm={() => leave.mutate()}
      />
    </div>
  );
}

function InviteForm({
  onBanner,
  onInvited,
  seats,
}: {
  onBanner: ShowBanner;
  onInvited: () => void;
  seats: { full: boolean };
}) {
  const trpc = useTRPC();
  const emailId = useId();
  const fullId = useId();
  const roleId = useId();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"admin" | "member">("member");
  // a plan refusal carries the server's decision (`data.planRefusal`), which PlanRefusalLink follows:
  // an upgrade to /pricing, a paid plan held by an unpaid or paused subscription to Billing, and for
  // an admin neither (only the owner can)
  const [error, setError] = useState<{ message: string; refusal?: PlanRefusal | null } | null>(null);
  const usage = useUsage();
  const held = usage.data?.held_plan_name ?? null;
  // who may pay or change the plan is the server's decision (billing.usage actor_can_pay), so the
  // full-seats hint offers a link only to whoever can follow it
  const canPay = usage.data?.actor_can_pay === true;
  // one request per click: a double click's second click arrives before the button renders disabled
  const sending = useRef(false);
  const invite = useMutation(
    trpc.workspaces.invite.mutationOptions({
      onSettled: () => {
        sending.current = false;
      },
      onSuccess: (inv) => {
        setEmail("");
        // back to the least access: the next invitation is not an admin's because this one was
        setRole("member");
        setError(null);
        onBanner({
          variant: "success",
          message: `Invitation sent to ${inv.email} as ${ROLE_WORDS[inv.role]}.`,
        });
        onInvited();
      },
      onError: (e) => setError({ message: e.message, refusal: e.data?.planRefusal }),
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (sending.current) return;
    if (!email.trim()) {
      setError({ message: "Please enter an email address" });
      return;
    }
    sending.current = true;
    invite.mutate({ email, role });
  };
  // the server's seat check (workspaces listMembers seats.full): the button stays off while the
  // hint below says why, instead of offering a send the server refuses
  const full = seats.full;
  // Send invitation is disabled while the request runs, which drops its keyboard focus to the page's
  // top: focus goes back to the Email field, emptied for the next teammate or marked with the refusal
  const emailField = useRef<HTMLInputElement>(null);
  useFocusBackWhenIdle(invite.isPending, emailField);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Invite a teammate</CardTitle>
        <CardDescription>
          Admins manage members and settings; members work with contacts, media and campaigns.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={submit} className="flex flex-wrap items-end gap-3" noValidate>
          <div className="grid min-w-56 flex-1 gap-1.5">
            <Label htmlFor={emailId}>Email</Label>
            <Input
              ref={emailField}
              id={emailId}
              type="email"
              value={email}
              autoComplete="off"
              onChange={(e) => {
                setEmail(e.target.value);
                setError(null);
              }}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${emailId}-error` : undefined}
              placeholder="teammate@example.com"
            />
          </div>
          <div className="grid w-36 gap-1.5">
            <Label htmlFor={roleId}>Role</Label>
            <Select value={role} onValueChange={(v) => setRole(v as "admin" | "member")}>
              <SelectTrigger id={roleId}>
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value="member">Member</SelectItem>
                <SelectItem value="admin">Admin</SelectItem>
              </SelectContent>
            </Select>
          </div>
          <Button
            type="submit"
            disabled={invite.isPending || full}
            aria-describedby={full && !error ? fullId : undefined}
          >
            <MailPlus aria-hidden />
            {invite.isPending ? "Sending..." : "Send invitation"}
          </Button>
        </form>
        {error && (
          <p id={`${emailId}-error`} role="alert" className="mt-3 text-sm text-destructive">
            {error.message} <PlanRefusalLink refusal={error.refusal} />
          </p>
        )}
        {!error && full && held && (
          <p id={fullId} className="mt-3 text-sm text-muted-foreground">
            Every seat of the {usage.data?.plan_name} plan is in use while your {held} subscription waits for
            a payment.{" "}
            <OwnerAction canPay={canPay}>
              <Link to="/settings" search={{ tab: "billing" }} className="font-medium underline">
                Pay in Billing to restore {held}
              </Link>
            </OwnerAction>
          </p>
        )}
        {!error && full && !held && (
          <p id={fullId} className="mt-3 text-sm text-muted-foreground">
            Every seat of your plan is in use.{" "}
            <OwnerAction canPay={canPay}>
              <Link to="/pricing" className="font-medium underline">
                Upgrade for more seats
              </Link>
            </OwnerAction>
          </p>
        )}
      </CardContent>
    </Card>
  );
}

function TransferOwnership({
  members,
  pending,
  onTransfer,
}: {
  members: { user_id: string; name: string; email: string }[];
  pending: boolean;
  onTransfer: (userId: string) => void;
}) {
  const id = useId();
  const [target, setTarget] = useState("");
  const [confirming, setConfirming] = useState(false);
  const chosen = members.find((m) => m.user_id === target);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Transfer ownership</CardTitle>
        <CardDescription>The new owner manages billing; you become an admin.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-wrap items-end gap-3">
        <div className="grid min-w-56 flex-1 gap-1.5">
          <Label htmlFor={id}>New owner</Label>
          <Select value={target} onValueChange={setTarget}>
            <SelectTrigger id={id}>
              <SelectValue placeholder="Choose a member" />
            </SelectTrigger>
            <SelectContent>
              {members.map((m) => (
                <SelectItem key={m.user_id} value={m.user_id}>
                  {m.name || m.email}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
        <Button variant="outline" disabled={!target || pending} onClick={() => setConfirming(true)}>
          Transfer
        </Button>
      </CardContent>
      <Dialog open={confirming} onOpenChange={setConfirming}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Make {chosen?.name || chosen?.email} the owner?</DialogTitle>
            <DialogDescription>You will become an admin and can no longer manage billing.</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <Button
              onClick={() => {
                setConfirming(false);
                onTransfer(target);
              }}
            >
              Transfer ownership
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
