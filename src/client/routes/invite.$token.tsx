import { useMutation, useQuery } from "@tanstack/react-query";
import { createFileRoute, Link, useNavigate } from "@tanstack/react-router";
import { useEffect, useRef } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { useAuth } from "@/client/features/auth/auth-context";
import { forgetPendingInvite, rememberPendingInvite } from "@/client/features/workspaces/pending-invite";
import { leaveNoticeAfterReload } from "@/client/lib/notice-after-reload";
import { useTRPC } from "@/client/trpc";
import { AuthShell } from "./-components/auth-shell";

export const Route = createFileRoute("/invite/$token")({ component: InvitePage });

const ROLE_WORDS = { admin: "an admin", member: "a member" } as const;

/**
 * The invite link `APP_URL/invite/{token}` (issue 10): who invites you to which workspace. Only the
 * invited address may join, once verified (the server's `refusal` sentence says what is missing):
 * signed out: register (or sign in) first and land back here; signed in as another account: the
 * masked invited address and a way to switch account; signed in as the invitee before confirming the
 * address: resend the link, and the invitation is remembered so /verify-email leads back here;
 * otherwise: accept. A link that cannot be used (used, revoked, expired, unknown) still leads on: to
 * the dashboard when signed in, to sign in when not; and a signed-in member of the invitation's
 * workspace (the server's `member_workspace`: Back after accepting) is told so and offered to go to it.
 */
function InvitePage() {
  const { token } = Route.useParams();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { user, logout } = useAuth();
  const invite = useQuery({
    ...trpc.workspaces.invitation.queryOptions({ token }),
    retry: false,
    // coming back from the verification link in another tab: ask again whether accepting is allowed
    refetchOnWindowFocus: true,
  });
  const accept = useMutation(
    trpc.workspaces.acceptInvite.mutationOptions({
      onSuccess: (joined) => {
        forgetPendingInvite();
        // the page it lands on says where they are now (the switcher is behind the menu on a phone)
        leaveNoticeAfterReload(
          `You joined ${joined.name} as ${ROLE_WORDS[joined.role === "admin" ? "admin" : "member"]} and are working in it now.`,
        );
        // a full load: every cached screen belongs to the previous workspace
        window.location.assign("/contacts");
      },
      onError: () => void invite.refetch(),
    }),
  );
  const resend = useMutation(trpc.auth.resendVerification.mutationOptions());
  // "Go to <workspace>": make it the session's workspace, then a full load (cached screens are another's)
  const goTo = useMutation(
    trpc.workspaces.switch.mutationOptions({ onSuccess: () => window.location.assign("/dashboard") }),
  );
  const back = { redirect: `/invite/${token}` };
  const signedInAs = user?.id ?? null;
  const seenUser = useRef(signedInAs);
  const { refetch } = invite;
  // the answer depends on who is signed in: ask again after signing in, registering or out
  useEffect(() => {
    if (seenUser.current === signedInAs) return;
    seenUser.current = signedInAs;
    void refetch();
  }, [signedInAs, refetch]);

  const i = invite.data;
  // an answer cached before signing in (or out) is not about this viewer: ask again, show it once known
  // (once per viewer: a session the server no longer knows must not make it ask forever)
  const askedAgainFor = useRef<string | null | undefined>(undefined);
  const mismatch = !!i && (user ? i.viewer === "signed_out" : i.viewer !== "signed_out");
  const fetching = invite.isFetching;
  const viewerKnown = !mismatch || (askedAgainFor.current === signedInAs && !fetching);
  useEffect(() => {
    if (mismatch && !fetching && askedAgainFor.current !== signedInAs) {
      askedAgainFor.current = signedInAs;
      void refetch();
    }
  }, [mismatch, fetching, signedInAs, refetch]);
  const pendingForInvitee = i?.status === "pending" && i.viewer !== "other_account";
  useEffect(() => {
    if (i && pendingForInvitee) rememberPendingInvite(token, i.workspace.name);
  }, [i, pendingForInvitee, token]);

  if (invite.isPending || !viewerKnown)
    return (
      <AuthShell title="Invitation" subtitle="Checking your invitation...">
        <p className="text-sm text-muted-foreground">Loading...</p>
      </AuthShell>
    );
  // where a link that cannot be used leads: the dashboard when signed in, else sign in
  const wayOn = user ? (
    <Button asChild>
      <Link to="/dashboard">Go to dashboard</Link>
    </Button>
  ) : (
    <Button asChild>
      <Link to="/login">Sign in</Link>
    </Button>
  );
  if (invite.error || !i)
    return (
      <AuthShell title="Invitation" subtitle="This link cannot be used.">
        <div className="grid gap-3">
          <AlertBanner variant="error">
            {invite.error?.message ?? "This invitation cannot be read."}
          </AlertBanner>
          {wayOn}
        </div>
      </AuthShell>
    );
  const closed =
    i.status === "accepted"
      ? "This invitation has already been used."
      : i.status === "revoked"
        ? "This invitation was revoked. Ask for a new one."
        : i.status === "expired"
          ? "This invitation has expired. Ask for a new one."
          : null;
  const switchAccount = async () => {
    await logout();
    await navigate({ to: "/login", search: back });
  };
  return (
    <AuthShell
      title={`Join ${i.workspace.name}`}
      subtitle={`${i.inviter.name ?? "A teammate"} invited ${i.email} to join as ${ROLE_WORDS[i.role]}.`}
    >
      {user && i.member_workspace ? (
        <div className="grid gap-3">
          <AlertBanner variant="info">{`You're already a member of ${i.member_workspace.name}.`}</AlertBanner>
          {goTo.error && <AlertBanner variant="error">{goTo.error.message}</AlertBanner>}
          <Button
            loading={goTo.isPending}
            onClick={() => i.member_workspace && goTo.mutate({ workspaceId: i.member_workspace.id })}
          >
            Go to {i.member_workspace.name}
          </Button>
        </div>
      ) : closed ? (
        <div className="grid gap-3">
          <AlertBanner variant="error">{closed}</AlertBanner>
          {wayOn}
        </div>
      ) : user && i.viewer === "other_account" ? (
        <div className="grid gap-3">
          <AlertBanner variant="warning" title={`You are signed in as ${user.email}`}>
            {i.refusal}
          </AlertBanner>
          <Button onClick={() => void switchAccount()}>Sign out and switch account</Button>
          <Button asChild variant="outline">
            <Link to="/dashboard">Back to my dashboard</Link>
          </Button>
        </div>
      ) : user && i.refusal_kind === "no_seat" ? (
        <div className="grid gap-3">
          <AlertBanner variant="warning" title={`${i.workspace.name} has no free seat`}>
            {i.refusal}
          </AlertBanner>
          <Button onClick={() => void invite.refetch()} disabled={invite.isFetching}>
            {invite.isFetching ? "Checking..." : "Check again"}
          </Button>
          <Button asChild variant="outline">
            <Link to="/dashboard">Back to my dashboard</Link>
          </Button>
        </div>
      ) : user && i.refusal ? (
        <div className="grid gap-3">
          <AlertBanner variant="warning" title="Confirm your email to join">
            {i.refusal}
          </AlertBanner>
          <Button variant="outline" onClick={() => resend.mutate()} loading={resend.isPending}>
            {resend.isPending ? "Sending..." : "Send the link again"}
          </Button>
          <Button onClick={() => void invite.refetch()} disabled={invite.isFetching}>
            {invite.isFetching ? "Checking..." : "I have confirmed my email"}
          </Button>
          <p aria-live="polite" className="text-sm text-muted-foreground">
            {resend.isSuccess ? resend.data.message : resend.error ? resend.error.message : ""}
          </p>
        </div>
      ) : user ? (
        <div className="grid gap-3">
          {accept.error && <AlertBanner variant="error">{accept.error.message}</AlertBanner>}
          <Button onClick={() => accept.mutate({ token })} disabled={accept.isPending}>
            {accept.isPending ? "Joining..." : `Accept and join ${i.workspace.name}`}
          </Button>
        </div>
      ) : (
        <div className="grid gap-3">
          <p className="text-sm text-muted-foreground">
            Use the address the invitation was sent to: only that account can join.
          </p>
          <Button asChild>
            <Link to="/register" search={back}>
              Create an account to join
            </Link>
          </Button>
          <Button asChild variant="outline">
            <Link to="/login" search={back}>
              I already have an account
            </Link>
          </Button>
        </div>
      )}
    </AuthShell>
  );
}
