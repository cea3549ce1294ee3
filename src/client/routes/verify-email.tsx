import { useMutation } from "@tanstack/react-query";
import { createFileRoute, Link } from "@tanstack/react-router";
import { useEffect, useRef } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { useAuth } from "@/client/features/auth/auth-context";
import { pendingInvite } from "@/client/features/workspaces/pending-invite";
import { useTRPC } from "@/client/trpc";
import { AuthShell } from "./-components/auth-shell";

export const Route = createFileRoute("/verify-email")({
  validateSearch: (s: Record<string, unknown>): { token?: string } =>
    typeof s.token === "string" && s.token ? { token: s.token } : {},
  component: VerifyEmailPage,
});

/**
 * /verify-email?token=... (issue 11): confirms the address from the emailed link, once, on arrival.
 * A person who registered from an invitation (remembered by the invite page) is led back to it.
 */
function VerifyEmailPage() {
  const { token } = Route.useSearch();
  const trpc = useTRPC();
  const { user, setUser } = useAuth();
  const verify = useMutation(
    trpc.auth.verifyEmail.mutationOptions({
      onSuccess: () => {
        if (user) setUser({ ...user, email_verified: true });
      },
    }),
  );
  const started = useRef(false);
  useEffect(() => {
    if (token && !started.current) {
      started.current = true;
      verify.mutate({ token });
    }
  }, [token, verify]);

  const invite = verify.isSuccess ? pendingInvite() : null;
  const next = invite ? (
    <Link to={invite.path} className="font-medium text-primary-text hover:underline">
      {invite.workspace ? `Continue to join ${invite.workspace}` : "Continue to your invitation"}
    </Link>
  ) : user ? (
    <Link to="/dashboard" className="font-medium text-primary-text hover:underline">
      Go to your dashboard
    </Link>
  ) : (
    <Link to="/login" className="font-medium text-primary-text hover:underline">
      Sign in
    </Link>
  );
  return (
    <AuthShell title="Confirm your email" subtitle="One click from the email you received.">
      <div className="grid gap-4" aria-live="polite">
        {!token ? (
          <AlertBanner variant="error">
            This link is incomplete. Please open the link from the email exactly as it is.
          </AlertBanner>
        ) : verify.isSuccess ? (
          <AlertBanner variant="success">{verify.data.message}</AlertBanner>
        ) : verify.error ? (
          <AlertBanner variant="error">{verify.error.message}</AlertBanner>
        ) : (
          <p className="text-sm text-muted-foreground">Confirming your email...</p>
        )}
        <p className="text-sm">{next}</p>
      </div>
    </AuthShell>
  );
}
