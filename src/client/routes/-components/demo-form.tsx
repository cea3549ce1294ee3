import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { CheckCircle2, Mail, MessageSquare, PhoneCall, RotateCcw, Send, Sparkles, Video } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { errorMessage } from "@/client/lib/errors";
import { useTRPC } from "@/client/trpc";

/** Demo request rules (spec section 5): name required; at least one of phone and email. */
const demoSchema = z
  .object({
    name: z.string().trim().min(1, "Please enter your name"),
    phone: z.string().trim(),
    email: z
      .string()
      .trim()
      .refine((v) => v === "" || z.email().safeParse(v).success, "Please enter a valid email address"),
  })
  .refine((d) => d.phone !== "" || d.email !== "", {
    message: "Please provide at least a phone number or email",
    path: ["phone"],
  });

type DemoValues = z.input<typeof demoSchema>;

/** What was requested, for the success view. */
interface SentDemo {
  phone: string;
  email: string;
}

/** The landing page's demo request card: form, inline errors, then the success view (spec section 2). */
export function DemoForm() {
  const [sent, setSent] = useState<SentDemo | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const trpc = useTRPC();
  const send = useMutation(trpc.demo.send.mutationOptions());
  const form = useForm<DemoValues>({
    resolver: zodResolver(demoSchema),
    defaultValues: { name: "", phone: "", email: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setServerError(null);
    const name = values.name.trim();
    const phone = values.phone.trim();
    const email = values.email.trim();
    try {
      await send.mutateAsync({ name, phone: phone || undefined, email: email || undefined });
      setSent({ phone, email });
    } catch (error) {
      setServerError(errorMessage(error, "Demo request failed"));
    }
  });

  if (sent) {
    const items = [
      ...(sent.phone
        ? [
            {
              icon: PhoneCall,
              title: "AI Voice Call Incoming",
              detail: `Answer your phone at ${sent.phone}`,
            },
            { icon: MessageSquare, title: "Text Message Sent", detail: "A personalised SMS is on its way" },
          ]
        : []),
      ...(sent.email
        ? [
            { icon: Mail, title: "Email with Video Delivered", detail: `Check your inbox at ${sent.email}` },
            {
              icon: Video,
              title: "AI Avatar Video Included",
              detail: "Your AI presenter introduces Pitchwise",
            },
          ]
        : []),
    ];
    return (
      <div className="flex flex-col gap-5" data-testid="demo-success">
        <div className="flex flex-col items-center gap-3 text-center">
          <div className="flex size-14 items-center justify-center rounded-full bg-success/15 text-success">
            <CheckCircle2 className="size-7" aria-hidden />
          </div>
          <h2 className="text-xl font-semibold">Your demo is on its way!</h2>
          <p className="text-sm text-muted-foreground">This is what Pitchwise just did for you:</p>
        </div>
        <ul className="grid gap-2.5">
          {items.map(({ icon: Icon, title, detail }) => (
            <li
              key={title}
              className="flex items-center gap-3 rounded-lg border border-border bg-background/60 p-3"
            >
              <span className="flex size-9 shrink-0 items-center justify-center rounded-md bg-accent text-accent-foreground">
                <Icon className="size-4" aria-hidden />
              </span>
              <span className="min-w-0">
                <span className="block text-sm font-medium">{title}</span>
                <span className="block truncate text-xs text-muted-foreground">{detail}</span>
              </span>
              <CheckCircle2 className="ml-auto size-4 shrink-0 text-success" aria-hidden />
            </li>
          ))}
        </ul>
        <div className="grid gap-2 sm:grid-cols-2">
          <Button asChild size="lg">
            <Link to="/register">Start Your Free Trial</Link>
          </Button>
          <Button
            variant="outline"
            size="lg"
            onClick={() => {
              form.reset();
              setSent(null);
            }}
          >
            <RotateCcw aria-hidden />
            Try Demo Again
          </Button>
        </div>
      </div>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" aria-label="Demo request">
      <div>
        <h2 className="flex items-center gap-2 text-lg font-semibold">
          <Sparkles className="size-4 text-primary-text" aria-hidden />
          Get a free demo in 60 seconds
        </h2>
        <p className="mt-1 text-sm text-muted-foreground">
          Enter a phone number, an email or both, and experience every channel yourself.
        </p>
      </div>
      <FormField label="Name" htmlFor="demo-name" error={errors.name?.message}>
        <Input
          id="demo-name"
          autoComplete="name"
          placeholder="Jane Smith"
          aria-invalid={!!errors.name}
          {...form.register("name")}
        />
      </FormField>
      <FormField label="Phone" htmlFor="demo-phone" optional>
        <Input
          id="demo-phone"
          type="tel"
          autoComplete="tel"
          placeholder="+1 415 555 0132"
          aria-invalid={!!errors.phone}
          aria-describedby={errors.phone?.message ? "demo-contact-error" : undefined}
          {...form.register("phone")}
        />
      </FormField>
      <FormField label="Email" htmlFor="demo-email" optional error={errors.email?.message}>
        <Input
          id="demo-email"
          type="email"
          autoComplete="email"
          placeholder="jane@company.com"
          aria-invalid={!!errors.phone || !!errors.email}
          aria-describedby={errors.phone?.message ? "demo-contact-error" : undefined}
          {...form.register("email")}
        />
      </FormField>
      {errors.phone?.message && (
        // tied to both fields (the phone's own error and "at least a phone number or email"), and
        // announced when it appears
        <p id="demo-contact-error" role="alert" className="-mt-1 text-sm font-medium text-destructive">
          {errors.phone.message}
        </p>
      )}
      {serverError && <AlertBanner variant="error">{serverError}</AlertBanner>}
      <Button type="submit" size="lg" loading={isSubmitting}>
        {!isSubmitting && <Send aria-hidden />}
        {isSubmitting ? "Sending Demo..." : "Send Me a Demo"}
      </Button>
      <p className="text-center text-xs text-muted-foreground">
        No credit card needed. We only contact you about this demo.
      </p>
    </form>
  );
}
