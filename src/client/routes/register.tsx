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

export const Route = createFileRoute("/register")({
  validateSearch: validateAuthSearch,
  beforeLoad: ({ context, search }) => {
    if (context.auth.isAuthenticated) throw redirect({ href: safeRedirect(search.redirect) });
  },
  component: RegisterPage,
});

/**
 * Registration rules (spec section 5): name and email required (email format checked by the browser),
 * password at least 8 characters.
 */
const registerSchema = z.object({
  name: z.string().trim().min(1, "Please enter your name"),
  business_name: z.string().trim(),
  email: z.string().trim().min(1, "Please enter your email").email("Please enter a valid email address"),
  password: z.string().min(8, "Password must be at least 8 characters"),
});
type RegisterValues = z.infer<typeof registerSchema>;

function RegisterPage() {
  const search = Route.useSearch();
  const navigate = useNavigate();
  const { register } = useAuth();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<RegisterValues>({
    resolver: zodResolver(registerSchema),
    defaultValues: { name: "", business_name: "", email: "", password: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setError(null);
    try {
      await register(values);
      await navigate({ href: safeRedirect(search.redirect), replace: true });
    } catch (err) {
      setError(errorMessage(err, "Registration failed"));
    }
  });

  return (
    <AuthShell
      title="Create your account"
      subtitle="Start free. No credit card required."
      footer={
        <>
          Already have an account?{" "}
          <Link
            to="/login"
            search={{ redirect: search.redirect }}
            className="font-medium text-primary-text hover:underline"
          >
            Sign in
          </Link>
        </>
      }
    >
      <form onSubmit={onSubmit} className="grid gap-4" noValidate>
        {error && <AlertBanner variant="error">{error}</AlertBanner>}
        <FormField label="Name" htmlFor="register-name" error={errors.name?.message}>
          <Input
            id="register-name"
            autoComplete="name"
            placeholder="Jane Smith"
            required
            autoFocus
            aria-invalid={!!errors.name}
            {...form.register("name")}
          />
        </FormField>
        <FormField label="Business Name" htmlFor="register-business" optional>
          <Input
            id="register-business"
            autoComplete="organization"
            placeholder="Acme Roofing"
            {...form.register("business_name")}
          />
        </FormField>
        <FormField label="Email" htmlFor="register-email" error={errors.email?.message}>
          <Input
            id="register-email"
            type="email"
            autoComplete="email"
            placeholder="you@company.com"
            required
            aria-invalid={!!errors.email}
            {...form.register("email")}
          />
        </FormField>
        <FormField label="Password" htmlFor="register-password" error={errors.password?.message}>
          <Input
            id="register-password"
            type="password"
            autoComplete="new-password"
            placeholder="Min 8 characters"
            required
            aria-invalid={!!errors.password}
            {...form.register("password")}
          />
        </FormField>
        <Button type="submit" size="lg" className="mt-2 w-full" loading={isSubmitting}>
          {isSubmitting ? "Creating Account..." : "Create Account"}
        </Button>
      </form>
    </AuthShell>
  );
}
