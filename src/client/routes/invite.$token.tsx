import { useMutation, useQuery } from "@tanstack/react-query";
import { createFileRoute, Link } from "@tanstack/react-router";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { useAuth } from "@/client/features/auth/auth-context";
import { useTRPC } from "@/client/trpc";
import { AuthShell } from "./-components/auth-shell";

export const Route = createFileRoute("/invite/$token")({ component: InvitePage });

const ROLE_WORDS = { admin: "an admin", member: "a member" } as const;

/**
 * The invite link `APP_URL/invite/{token}` (issue 10): who invites you to which workspace. Signed in:
 * accept. Signed out: register (or sign in) first and land back here.
 */
function InvitePage() {
  const { token } = Route.useParams();
  const trpc = useTRPC();
  const { user } = useAuth();
  const invite = useQuery({ ...trpc.workspaces.invitation.queryOptions({ token }), retry: false });
  const accept = useMutation(
    trpc.workspaces.acceptInvite.mutationOptions({
      // a full load: every cached screen belongs to the previous workspace
      onSuccess: () => window.location.assign("/contacts"),
    }),
  );
  const back = { redirect: `/invite/${token}` };

  if (invite.isPending)
    return (
      <AuthShell title="Invitation" subtitle="Checking your invitation...">
        <p className="text-sm text-muted-foreground">Loading...</p>
      </AuthShell>
    );
  if (invite.error)
    return (
      <AuthShell title="Invitation" subtitle="This link cannot be used.">
        <AlertBanner variant="error">{invite.error.message}</AlertBanner>
      </AuthShell>
    );
  const i = invite.data;
  const closed =
    i.status === "accepted"
      ? "This invitation has already been used."
      : i.status === "revoked"
        ? "This invitation was revoked. Ask for a new one."
        : i.status === "expired"
          ? "This invitation has expired. Ask for a new one."
          : null;
  return (
    <AuthShell
      title={`Join ${i.workspace.name}`}
      subtitle={`${i.inviter.name ?? "A teammate"} invited ${i.email} to join as ${ROLE_WORDS[i.role]}.`}
    >
      {closed ? (
        <AlertBanner variant="error">{closed}</AlertBanner>
      ) : user ? (
        <div className="grid gap-3">
          {user.email.toLowerCase() !== i.email.toLowerCase() && (
            <AlertBanner variant="warning">
              You are signed in as {user.email}; the invitation was sent to {i.email}. Accepting adds{" "}
              {user.email}.
            </AlertBanner>
          )}
          {accept.error && <AlertBanner variant="error">{accept.error.message}</AlertBanner>}
          <Button onClick={() => accept.mutate({ token })} disabled={accept.isPending}>
            {accept.isPending ? "Joining..." : `Accept and join ${i.workspace.name}`}
          </Button>
        </div>
      ) : (
        <div className="grid gap-3">
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
