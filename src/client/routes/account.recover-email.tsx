import { useMutation, useQuery } from "@tanstack/react-query";
import { createFileRoute, Link, useNavigate } from "@tanstack/react-router";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { useAuth } from "@/client/features/auth/auth-context";
import { useTRPC } from "@/client/trpc";
import { AuthShell } from "./-components/auth-shell";

export const Route = createFileRoute("/account/recover-email")({
  validateSearch: (s: Record<string, unknown>): { token?: string } =>
    typeof s.token === "string" && s.token ? { token: s.token } : {},
  component: RecoverEmailPage,
});

/**
 * /account/recover-email?token=... : the "this wasn't me" link of the email-changed notice (public).
 * Reads what the link would restore (auth.checkEmailRecovery, nothing used), explains it, and on
 * confirmation (auth.recoverEmail) moves the account back to the old address, which signs out every
 * device, then opens /reset-password with a fresh reset token so the person chooses a new password.
 * A used, expired or invalid link, or an address another account now has, is said in a sentence.
 */
function RecoverEmailPage() {
  const { token } = Route.useSearch();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { setUser } = useAuth();
  const check = useQuery({
    ...trpc.auth.checkEmailRecovery.queryOptions({ token: token ?? "" }),
    enabled: !!token,
    retry: false,
    refetchOnWindowFocus: false,
  });
  const recover = useMutation(
    trpc.auth.recoverEmail.mutationOptions({
      onSuccess: async (r) => {
        // every session ended, this browser's too
        setUser(null);
        await navigate({
          to: "/reset-password",
          search: { token: r.resetToken, recovered: r.email },
          replace: true,
        });
      },
    }),
  );

  const signIn = (
    <Link to="/login" className="font-medium text-primary-text hover:underline">
      Go to sign in
    </Link>
  );
  const title = "Secure your account";
  if (!token)
    return (
      <AuthShell title={title} subtitle="This page needs the link from the email.">
        <div className="grid grid-cols-1 gap-4">
          <AlertBanner variant="error">
            This link is incomplete. Please open the link from the email exactly as it is.
          </AlertBanner>
          <p className="text-sm">{signIn}</p>
        </div>
      </AuthShell>
    );
  if (check.isPending)
    return (
      <AuthShell title={title} subtitle="Checking the link from the email...">
        <p className="text-sm text-muted-foreground" aria-live="polite">
          Checking your link...
        </p>
      </AuthShell>
    );
  if (check.error)
    return (
      <AuthShell title={title} subtitle="This link cannot be used.">
        <div className="grid grid-cols-1 gap-4">
          <AlertBanner variant="error">{check.error.message}</AlertBanner>
          <p className="text-sm">{signIn}</p>
        </div>
      </AuthShell>
    );
  const { email, available } = check.data;
  if (!available)
    return (
      <AuthShell title={title} subtitle="This link cannot be used now.">
        <div className="grid grid-cols-1 gap-4">
          <AlertBanner variant="error">
            <span className="break-words">
              We cannot move the account back to {email}: that address now belongs to another Pitchwise
              account. Nothing was changed. Reply to the email we sent so we can help you get the account
              back.
            </span>
          </AlertBanner>
          <p className="text-sm">{signIn}</p>
        </div>
      </AuthShell>
    );
  return (
    <AuthShell
      title={title}
      subtitle="Someone changed the email address of your Pitchwise account. If it wasn't you, undo it here."
    >
      <div className="grid grid-cols-1 gap-4">
        {recover.error && <AlertBanner variant="error">{recover.error.message}</AlertBanner>}
        <p className="text-sm">Confirming will:</p>
        <ul className="grid list-disc gap-2 pl-5 text-sm">
          <li>
            Move the account back to <strong className="break-all">{email}</strong>.
          </li>
          <li>Sign out every device signed in to the account, including whoever made the change.</li>
          <li>
            Revoke the API keys and pending invitations the account created since the change, and turn off the
            webhook endpoints it added since then.
          </li>
          <li>Ask you to choose a new password, as the old one is known to someone else.</li>
        </ul>
        <p className="text-sm text-muted-foreground">This link works once.</p>
        <Button
          type="button"
          size="lg"
          className="mt-2 w-full"
          loading={recover.isPending}
          onClick={() => recover.mutate({ token })}
        >
          {recover.isPending ? "Securing..." : "Restore My Email"}
        </Button>
        <p className="text-center text-sm text-muted-foreground">
          Made the change yourself? Then there is nothing to do: close this page.
        </p>
      </div>
    </AuthShell>
  );
}
