import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/client/components/ui/card";
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { useAuth, useCurrentUser } from "@/client/features/auth/auth-context";
import { errorMessage } from "@/client/lib/errors";
import { useTRPC } from "@/client/trpc";
import { DeleteAccountCard } from "./danger-zone";
import type { ShowBanner } from "./types";

/** Profile rules (spec section 5): name and email required. */
const profileSchema = z.object({
  name: z.string().trim().min(1, "Please enter your name"),
  email: z
    .string()
    .trim()
    .min(1, "Please enter your email")
    .pipe(z.email("Please enter a valid email address")),
  businessName: z.string().trim(),
  phone: z.string().trim(),
  /** needed only when the email changes (the server refuses a new email without it) */
  currentPassword: z.string(),
});
type ProfileValues = z.input<typeof profileSchema>;

/** Change-password rules (spec section 5): all required, matching, at least 6 characters. */
const passwordSchema = z
  .object({
    currentPassword: z.string().min(1, "Please enter your current password"),
    newPassword: z
      .string()
      .min(1, "Please enter a new password")
      .min(6, "Password must be at least 6 characters"),
    confirmPassword: z.string().min(1, "Please confirm your new password"),
  })
  .refine((d) => d.newPassword === d.confirmPassword, {
    message: "New passwords do not match",
    path: ["confirmPassword"],
  });
type PasswordValues = z.infer<typeof passwordSchema>;

const EMAIL_NEEDS_PASSWORD = "Enter your current password to change your email.";

/**
 * Profile tab: the profile form (tRPC `user.updateProfile`), the change-password form
 * (`user.changePassword`) and Delete account (danger-zone DeleteAccountCard).
 */
export function ProfileTab({ onBanner }: { onBanner: ShowBanner }) {
  return (
    <div className="grid gap-6 xl:grid-cols-2">
      <ProfileForm onBanner={onBanner} />
      <PasswordForm onBanner={onBanner} />
      <DeleteAccountCard />
    </div>
  );
}

function ProfileForm({ onBanner }: { onBanner: ShowBanner }) {
  const user = useCurrentUser();
  const { setUser } = useAuth();
  const trpc = useTRPC();
  const save = useMutation(trpc.user.updateProfile.mutationOptions());
  const form = useForm<ProfileValues>({
    resolver: zodResolver(profileSchema),
    defaultValues: {
      name: user.name ?? "",
      email: user.email ?? "",
      businessName: user.business_name ?? "",
      phone: user.phone ?? "",
      currentPassword: "",
    },
  });
  const { errors, isSubmitting } = form.formState;
  // a new address needs the current password (a stolen session cannot move the account away)
  const emailChanged =
    (form.watch("email") ?? "").trim().toLowerCase() !== (user.email ?? "").trim().toLowerCase();

  const onSubmit = form.handleSubmit(async ({ currentPassword, ...values }) => {
    onBanner(null);
    if (emailChanged && !currentPassword) {
      form.setError("currentPassword", { message: EMAIL_NEEDS_PASSWORD }, { shouldFocus: true });
      return;
    }
    try {
      const res = await save.mutateAsync(emailChanged ? { ...values, currentPassword } : values);
      setUser(res.user);
      form.reset({ ...values, currentPassword: "" });
      // a new address is not verified until its own link is followed (sending waits for it)
      const newAddress = res.user.email.toLowerCase() !== (user.email ?? "").toLowerCase();
      onBanner({
        variant: "success",
        message:
          newAddress && !res.user.email_verified
            ? `Profile updated. We sent a link to ${res.user.email}: open it to confirm the new address before sending.`
            : "Profile updated successfully!",
      });
    } catch (error) {
      const message = errorMessage(error, "Failed to update profile");
      // a missing or wrong password belongs to its field; everything else to the banner
      if (emailChanged && /current password/i.test(message))
        form.setError("currentPassword", { message }, { shouldFocus: true });
      else onBanner({ variant: "error", message });
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Profile Information</CardTitle>
        <CardDescription>Your name and contact details.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormField label="Full Name" htmlFor="profile-name" error={errors.name?.message}>
            <Input
              id="profile-name"
              autoComplete="name"
              aria-invalid={!!errors.name}
              {...form.register("name")}
            />
          </FormField>
          <FormField label="Email" htmlFor="profile-email" error={errors.email?.message}>
            <Input
              id="profile-email"
              type="email"
              autoComplete="email"
              aria-invalid={!!errors.email}
              {...form.register("email")}
            />
          </FormField>
          {emailChanged && (
            <FormField
              label="Current Password"
              htmlFor="profile-current-password"
              error={errors.currentPassword?.message}
              hint="Needed to change your email. We will tell your current address about the change."
            >
              <Input
                id="profile-current-password"
                type="password"
                autoComplete="current-password"
                aria-invalid={!!errors.currentPassword}
                {...form.register("currentPassword")}
              />
            </FormField>
          )}
          <FormField
            label="Business Name"
            htmlFor="profile-business"
            optional
            hint={
              // a QA pass changed it and expected the messages to follow: they are the workspace's
              <>
                Yours, on your account. The name your emails and texts are sent under is the workspace's:{" "}
                <Link to="/settings" search={{ tab: "workspace" }} className="font-medium underline">
                  Settings &gt; Workspace
                </Link>
                .
              </>
            }
          >
            <Input id="profile-business" autoComplete="organization" {...form.register("businessName")} />
          </FormField>
          <FormField label="Phone" htmlFor="profile-phone" optional>
            <Input id="profile-phone" type="tel" autoComplete="tel" {...form.register("phone")} />
          </FormField>
          <div>
            <Button type="submit" loading={isSubmitting}>
              {isSubmitting ? "Saving..." : "Save Profile"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

function PasswordForm({ onBanner }: { onBanner: ShowBanner }) {
  const trpc = useTRPC();
  const change = useMutation(trpc.user.changePassword.mutationOptions());
  const form = useForm<PasswordValues>({
    resolver: zodResolver(passwordSchema),
    defaultValues: { currentPassword: "", newPassword: "", confirmPassword: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ currentPassword, newPassword }) => {
    onBanner(null);
    try {
      await change.mutateAsync({ currentPassword, newPassword });
      form.reset();
      onBanner({ variant: "success", message: "Password updated successfully!" });
    } catch (error) {
      onBanner({ variant: "error", message: errorMessage(error, "Failed to update password") });
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Change Password</CardTitle>
        <CardDescription>Use at least 6 characters.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormField
            label="Current Password"
            htmlFor="current-password"
            error={errors.currentPassword?.message}
          >
            <Input
              id="current-password"
              type="password"
              autoComplete="current-password"
              aria-invalid={!!errors.currentPassword}
              {...form.register("currentPassword")}
            />
          </FormField>
          <FormField label="New Password" htmlFor="new-password" error={errors.newPassword?.message}>
            <Input
              id="new-password"
              type="password"
              autoComplete="new-password"
              aria-invalid={!!errors.newPassword}
              {...form.register("newPassword")}
            />
          </FormField>
          <FormField
            label="Confirm New Password"
            htmlFor="confirm-password"
            error={errors.confirmPassword?.message}
          >
            <Input
              id="confirm-password"
              type="password"
              autoComplete="new-password"
              aria-invalid={!!errors.confirmPassword}
              {...form.register("confirmPassword")}
            />
          </FormField>
          <div>
            <Button type="submit" loading={isSubmitting}>
              {isSubmitting ? "Updating..." : "Update Password"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
