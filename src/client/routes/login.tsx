import { zodResolver } from "@hookform/resolvers/zod";
import { createFileRoute, Link, redirect, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { useAuth } from "@/client/features/auth/auth-context";
import { safeRedirect, validateAuthSearch } from "@/client/features/auth/redirect";
import { errorMessage } from "@/client/lib/errors";
import { AuthShell } from "./-components/auth-shell";

export const Route = createFileRoute("/login")({
  validateSearch: validateAuthSearch,
  beforeLoad: ({ context, search }) => {
    if (context.auth.isAuthenticated) throw redirect({ href: safeRedirect(search.redirect) });
  },
  component: LoginPage,
});

/** Login rules (spec section 5): email and password required. */
const loginSchema = z.object({
  email: z.string().trim().min(1, "Please enter your email").email("Please enter a valid email address"),
  password: z.string().min(1, "Please enter your password"),
});
type LoginValues = z.infer<typeof loginSchema>;

function LoginPage() {
  const search = Route.useSearch();
  const navigate = useNavigate();
  const { login } = useAuth();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<LoginValues>({
    resolver: zodResolver(loginSchema),
    defaultValues: { email: "", password: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setError(null);
    try {
      await login({ email: values.email.trim(), password: values.password });
      await navigate({ href: safeRedirect(search.redirect), replace: true });
    } catch (err) {
      setError(errorMessage(err, "Login failed"));
    }
  });

  return (
    <AuthShell
      title="Welcome back"
      subtitle="Sign in to your Pitchwise account."
      footer={
        <>
          Don&apos;t have an account?{" "}
          <Link
            to="/register"
            search={{ redirect: search.redirect }}
            className="font-medium text-primary-text hover:underline"
          >
            Sign up
          </Link>
        </>
      }
    >
      <form onSubmit={onSubmit} className="grid gap-4" noValidate>
        {search.deleted === "account" && !error && (
          <AlertBanner variant="success">
            Your account was deleted. A confirmation is on its way to your email.
          </AlertBanner>
        )}
        {error && <AlertBanner variant="error">{error}</AlertBanner>}
        <FormField label="Email" htmlFor="login-email" error={errors.email?.message}>
          <Input
            id="login-email"
            type="email"
            autoComplete="email"
            placeholder="you@company.com"
            required
            autoFocus
            aria-invalid={!!errors.email}
            {...form.register("email")}
          />
        </FormField>
        <FormField label="Password" htmlFor="login-password" error={errors.password?.message}>
          <Input
            id="login-password"
            type="password"
            autoComplete="current-password"
            required
            aria-invalid={!!errors.password}
            {...form.register("password")}
          />
        </FormField>
        <div className="-mt-2 text-right text-sm">
          <Link to="/forgot-password" className="font-medium text-primary-text hover:underline">
            Forgot password?
          </Link>
        </div>
        <Button type="submit" size="lg" className="mt-2 w-full" loading={isSubmitting}>
          {isSubmitting ? "Signing In..." : "Sign In"}
        </Button>
      </form>
    </AuthShell>
  );
}
