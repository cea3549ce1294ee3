import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { createFileRoute, Link } from "@tanstack/react-router";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { useTRPC } from "@/client/trpc";
import { AuthShell } from "./-components/auth-shell";

export const Route = createFileRoute("/forgot-password")({ component: ForgotPasswordPage });

const schema = z.object({
  email: z.string().trim().min(1, "Please enter your email").email("Please enter a valid email address"),
});
type Values = z.infer<typeof schema>;

/**
 * /forgot-password (issue 11): asks for the account's email and sends a single-use reset link valid
 * 1 hour. The answer is the same whether or not the address has an account.
 */
function ForgotPasswordPage() {
  const trpc = useTRPC();
  const send = useMutation(trpc.auth.forgotPassword.mutationOptions());
  const form = useForm<Values>({ resolver: zodResolver(schema), defaultValues: { email: "" } });
  const { errors } = form.formState;
  const onSubmit = form.handleSubmit((v) => send.mutate({ email: v.email.trim() }));

  return (
    <AuthShell
      title="Forgot your password?"
      subtitle="Enter the email of your account and we will send you a link to choose a new password."
      footer={
        <>
          Remembered it?{" "}
          <Link to="/login" className="font-medium text-primary-text hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      {send.isSuccess ? (
        <div className="grid gap-4">
          <AlertBanner variant="success">{send.data.message}</AlertBanner>
          <p className="text-sm text-muted-foreground">
            No email after a few minutes? Check your spam folder, or{" "}
            <button
              type="button"
              className="font-medium text-primary-text hover:underline"
              onClick={() => send.reset()}
            >
              try again
            </button>
            .
          </p>
        </div>
      ) : (
        <form onSubmit={onSubmit} className="grid gap-4" noValidate>
          {send.error && <AlertBanner variant="error">{send.error.message}</AlertBanner>}
          <FormField label="Email" htmlFor="forgot-email" error={errors.email?.message}>
            <Input
              id="forgot-email"
              type="email"
              autoComplete="email"
              placeholder="you@company.com"
              autoFocus
              aria-invalid={!!errors.email}
              {...form.register("email")}
            />
          </FormField>
          <Button type="submit" size="lg" className="mt-2 w-full" loading={send.isPending}>
            {send.isPending ? "Sending..." : "Send Reset Link"}
          </Button>
        </form>
      )}
    </AuthShell>
  );
}
