import { useMutation } from "@tanstack/react-query";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { useTRPC } from "@/client/trpc";
import { useAuth } from "./auth-context";

/**
 * Shown above every page while the signed-in user's email is not verified (issue 11): why campaigns
 * cannot be launched yet, and a button that emails a new verification link.
 */
export function VerifyEmailBanner() {
  const { user } = useAuth();
  const trpc = useTRPC();
  const resend = useMutation(trpc.auth.resendVerification.mutationOptions());
  if (user?.email_verified !== false) return null;
  return (
    <AlertBanner variant="warning" title="Please verify your email address" className="mb-5">
      <p>
        We sent a link to <strong>{user.email}</strong>. Until you open it you can use Pitchwise, but you
        cannot launch campaigns or send to anyone but yourself.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-3">
        <Button size="sm" variant="outline" onClick={() => resend.mutate()} loading={resend.isPending}>
          {resend.isPending ? "Sending..." : "Resend verification email"}
        </Button>
        <span aria-live="polite" className="text-sm">
          {resend.isSuccess ? resend.data.message : resend.error ? resend.error.message : ""}
        </span>
      </div>
    </AlertBanner>
  );
}
