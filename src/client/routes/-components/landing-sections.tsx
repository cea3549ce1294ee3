import { Link } from "@tanstack/react-router";
import {
  ArrowRight,
  BarChart3,
  Bot,
  Check,
  Layers,
  Mail,
  MessageSquare,
  PhoneCall,
  Video,
  Zap,
} from "lucide-react";
import { Logo } from "@/client/components/logo";
import { Button } from "@/client/components/ui/button";

/** Top navigation of the public pages: logo, section link, Login and Sign Up Free. */
export function LandingNav() {
  return (
    <header className="sticky top-0 z-30 border-b border-border/60 bg-background/80 backdrop-blur-md">
      <nav
        aria-label="Main"
        className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8"
      >
        <Link
          to="/"
          className="rounded-md focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
        >
          <Logo />
        </Link>
        <div className="flex items-center gap-1 sm:gap-2">
          <a
            href="#features"
            className="hidden rounded-md px-3 py-2 text-sm font-medium text-muted-foreground transition-colors hover:text-foreground sm:block"
          >
            Features
          </a>
          <Button asChild variant="ghost">
            <Link to="/login">Login</Link>
          </Button>
          <Button asChild>
            <Link to="/register">Sign Up Free</Link>
          </Button>
        </div>
      </nav>
    </header>
  );
}

const channels = [
  { icon: Video, label: "AI avatar video" },
  { icon: Mail, label: "Email" },
  { icon: MessageSquare, label: "SMS" },
  { icon: PhoneCall, label: "AI voice calls" },
];

/** Hero copy (left column of the hero). */
export function HeroCopy() {
  return (
    <div className="flex flex-col gap-6">
      <span className="inline-flex w-fit items-center gap-2 rounded-full border border-border bg-card px-3 py-1 text-xs font-medium text-muted-foreground shadow-xs">
        <span className="size-1.5 rounded-full bg-success" aria-hidden />
        Multi-channel outreach, powered by AI
      </span>
      <h1 className="text-4xl leading-[1.05] font-semibold tracking-tight text-balance sm:text-5xl lg:text-6xl">
        Personal outreach that{" "}
        <span className="text-primary-text underline decoration-primary/30 underline-offset-8">
          gets answered
        </span>
      </h1>
      <p className="max-w-xl text-lg text-pretty text-muted-foreground">
        Pitchwise sends every prospect a personalised AI avatar video, email, text message and voice call, and
        shows you who engaged. Try it on yourself: the demo reaches you in under a minute.
      </p>
      <ul className="flex flex-wrap gap-2">
        {channels.map(({ icon: Icon, label }) => (
          <li
            key={label}
            className="inline-flex items-center gap-1.5 rounded-lg border border-border bg-card px-3 py-1.5 text-sm shadow-xs"
          >
            <Icon className="size-4 text-primary-text" aria-hidden />
            {label}
          </li>
        ))}
      </ul>
      <dl className="grid max-w-md grid-cols-3 gap-4 pt-2">
        {[
          ["4", "channels"],
          ["<60s", "to launch"],
          ["24", "brand themes"],
        ].map(([value, label]) => (
          <div key={label}>
            <dt className="sr-only">{label}</dt>
            <dd className="text-2xl font-semibold tracking-tight">{value}</dd>
            <dd className="text-xs text-muted-foreground">{label}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

const features = [
  {
    icon: Bot,
    title: "AI Avatars",
    text: "Turn a script into a lifelike presenter video, personalised with each prospect's name and company.",
  },
  {
    icon: Layers,
    title: "Multi-Channel",
    text: "Video, email, SMS, AI calls and ringless voicemail from one contact list and one campaign builder.",
  },
  {
    icon: Zap,
    title: "Lightning Fast",
    text: "Import a CSV, write your message and launch in minutes. Thousands of sends go out in the background.",
  },
  {
    icon: BarChart3,
    title: "Analytics",
    text: "See deliveries, opens, clicks and replies per campaign and per contact, month over month.",
  },
];

/** The four feature cards (spec section 2: AI Avatars, Multi-Channel, Lightning Fast, Analytics). */
export function FeaturesSection() {
  return (
    <section id="features" aria-labelledby="features-title" className="scroll-mt-20 py-20 sm:py-24">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <div className="mx-auto max-w-2xl text-center">
          <p className="text-sm font-semibold tracking-wide text-primary-text uppercase">Features</p>
          <h2 id="features-title" className="mt-2 text-3xl font-semibold tracking-tight sm:text-4xl">
            Everything you need to start conversations
          </h2>
          <p className="mt-4 text-muted-foreground">
            One workspace for the media you record, the contacts you reach and the campaigns you send.
          </p>
        </div>
        <div className="mt-14 grid gap-5 sm:grid-cols-2 lg:grid-cols-4">
          {features.map(({ icon: Icon, title, text }) => (
            <article
              key={title}
              className="group rounded-2xl border border-border bg-card p-6 shadow-xs transition-[translate,box-shadow] hover:-translate-y-0.5 hover:shadow-md"
            >
              <div className="flex size-11 items-center justify-center rounded-xl bg-primary text-primary-foreground shadow-sm">
                <Icon className="size-5" aria-hidden />
              </div>
              <h3 className="mt-5 text-lg font-semibold">{title}</h3>
              <p className="mt-2 text-sm leading-relaxed text-muted-foreground">{text}</p>
            </article>
          ))}
        </div>
      </div>
    </section>
  );
}

/** Free-trial call to action band. */
export function TrialCta() {
  return (
    <section aria-labelledby="cta-title" className="px-4 pb-20 sm:px-6 sm:pb-24 lg:px-8">
      <div className="relative mx-auto max-w-5xl overflow-hidden rounded-3xl bg-primary px-6 py-14 text-center text-primary-foreground shadow-xl [--ring:var(--primary-foreground)] sm:px-12">
        <div
          aria-hidden
          className="pointer-events-none absolute inset-0 opacity-20 [background:radial-gradient(circle_at_20%_20%,white,transparent_40%),radial-gradient(circle_at_80%_80%,white,transparent_35%)]"
        />
        <h2 id="cta-title" className="relative text-3xl font-semibold tracking-tight sm:text-4xl">
          Start your free trial today
        </h2>
        <p className="relative mx-auto mt-4 max-w-xl opacity-85">
          Free forever on the Free plan: 100 contacts, 10 lead searches and 100 emails a month. Upgrade when
          you grow.
        </p>
        <ul className="relative mx-auto mt-6 flex max-w-xl flex-wrap justify-center gap-x-6 gap-y-2 text-sm">
          {["No credit card required", "Set up in 2 minutes", "Cancel anytime"].map((t) => (
            <li key={t} className="inline-flex items-center gap-1.5">
              <Check className="size-4" aria-hidden />
              {t}
            </li>
          ))}
        </ul>
        <Button asChild size="lg" variant="secondary" className="relative mt-8">
          <Link to="/register">
            Get Started Free
            <ArrowRight aria-hidden />
          </Link>
        </Button>
      </div>
    </section>
  );
}

/** Page footer. */
export function LandingFooter() {
  return (
    <footer className="border-t border-border">
      <div className="mx-auto flex max-w-7xl flex-col items-center justify-between gap-4 px-4 py-8 text-sm text-muted-foreground sm:flex-row sm:px-6 lg:px-8">
        <Logo className="text-foreground" />
        <p>&copy; {new Date().getFullYear()} Pitchwise. All rights reserved.</p>
        <nav aria-label="Footer" className="flex gap-4">
          <a href="#features" className="hover:text-foreground">
            Features
          </a>
          <Link to="/login" className="hover:text-foreground">
            Sign in
          </Link>
          <Link to="/register" className="hover:text-foreground">
            Create account
          </Link>
        </nav>
      </div>
    </footer>
  );
}
