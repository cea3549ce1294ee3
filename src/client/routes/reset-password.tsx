import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { createFileRoute, Link, useNavigate } from "@tanstack/react-router";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { useAuth } from "@/client/features/auth/auth-context";
import { DEFAULT_AFTER_LOGIN } from "@/client/features/auth/redirect";
import { useTRPC } from "@/client/trpc";
import { AuthShell } from "./-components/auth-shell";

export const Route = createFileRoute("/reset-password")({
  // `recovered`: the address an email recovery (/account/recover-email) just moved the account back to
  validateSearch: (s: Record<string, unknown>): { token?: string; recovered?: string } => ({
    ...(typeof s.token === "string" && s.token ? { token: s.token } : {}),
    ...(typeof s.recovered === "string" && s.recovered ? { recovered: s.recovered.slice(0, 320) } : {}),
  }),
  component: ResetPasswordPage,
});

const schema = z
  .object({
    password: z.string().min(8, "Password must be at least 8 characters").max(200, "Password is too long"),
    confirm: z.string().min(1, "Please repeat the new password"),
  })
  .refine((v) => v.password === v.confirm, { message: "The passwords do not match", path: ["confirm"] });
type Values = z.infer<typeof schema>;

/**
 * /reset-password?token=... (issue 11): the emailed link. Sets a new password (8+ characters),
 * which signs out every other session and signs in here. An email recovery lands here too, with
 * `recovered` (the restored address) to say what just happened.
 */
function ResetPasswordPage() {
  const { token, recovered } = Route.useSearch();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { setUser } = useAuth();
  const reset = useMutation(
    trpc.auth.resetPassword.mutationOptions({
      onSuccess: async (r) => {
        setUser(r.user);
        await navigate({ href: DEFAULT_AFTER_LOGIN, replace: true });
      },
    }),
  );
  const form = useForm<Values>({
    resolver: zodResolver(schema),
    defaultValues: { password: "", confirm: "" },
  });
  const { errors } = form.formState;
  const onSubmit = form.handleSubmit((v) => token && reset.mutate({ token, password: v.password }));

  const requestAgain = (
    <Link to="/forgot-password" className="font-medium text-primary-text hover:underline">
      Request a new link
    </Link>
  );
  if (!token)
    return (
      <AuthShell title="Reset your password" subtitle="This page needs the link from the email.">
        <div className="grid gap-4">
          <AlertBanner variant="error">
            This link is incomplete. Please open the link from the email exactly as it is.
          </AlertBanner>
          <p className="text-sm">{requestAgain}</p>
        </div>
      </AuthShell>
    );
  return (
    <AuthShell
      title="Choose a new password"
      subtitle="At least 8 characters. Every other device signed in to your account will be signed out."
      footer={<>Link not working? {requestAgain}</>}
    >
      <form onSubmit={onSubmit} className="grid gap-4" noValidate>
        {recovered && !reset.error && (
          <AlertBanner variant="success">
            <span className="break-all">
              Your account is back on {recovered} and every device was signed out. Now choose a new password.
            </span>
          </AlertBanner>
        )}
        {reset.error && <AlertBanner variant="error">{reset.error.message}</AlertBanner>}
        <FormField label="New password" htmlFor="reset-password" error={errors.password?.message}>
          <Input
            id="reset-password"
            type="password"
            autoComplete="new-password"
            autoFocus
            aria-invalid={!!errors.password}
            {...form.register("password")}
          />
        </FormField>
        <FormField label="Repeat new password" htmlFor="reset-confirm" error={errors.confirm?.message}>
          <Input
            id="reset-confirm"
            type="password"
            autoComplete="new-password"
            aria-invalid={!!errors.confirm}
            {...form.register("confirm")}
          />
        </FormField>
        <Button type="submit" size="lg" className="mt-2 w-full" loading={reset.isPending}>
          {reset.isPending ? "Saving..." : "Set New Password"}
        </Button>
      </form>
    </AuthShell>
  );
}
