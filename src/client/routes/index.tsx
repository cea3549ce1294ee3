import { createFileRoute, redirect } from "@tanstack/react-router";
import { DemoForm } from "./-components/demo-form";
import {
  FeaturesSection,
  HeroCopy,
  LandingFooter,
  LandingNav,
  TrialCta,
} from "./-components/landing-sections";

/** Public landing and demo page (spec section 2); signed-in users go to the dashboard. */
export const Route = createFileRoute("/")({
  beforeLoad: ({ context }) => {
    if (context.auth.isAuthenticated) throw redirect({ to: "/dashboard" });
  },
  component: LandingPage,
});

function LandingPage() {
  return (
    <div className="min-h-dvh bg-background">
      <LandingNav />
      <main>
        <section className="relative overflow-hidden">
          <div
            aria-hidden
            className="pointer-events-none absolute inset-0 [background:radial-gradient(60rem_30rem_at_70%_-10%,var(--accent),transparent_70%)]"
          />
          <div
            aria-hidden
            className="pointer-events-none absolute inset-0 [background-image:linear-gradient(var(--border)_1px,transparent_1px),linear-gradient(90deg,var(--border)_1px,transparent_1px)] [background-size:48px_48px] opacity-40 [mask-image:radial-gradient(ellipse_at_top,black,transparent_70%)]"
          />
          <div className="relative mx-auto grid max-w-7xl items-center gap-12 px-4 py-16 sm:px-6 sm:py-20 lg:grid-cols-[1.1fr_1fr] lg:gap-16 lg:px-8 lg:py-24">
            <HeroCopy />
            <div className="relative">
              <div aria-hidden className="absolute -inset-4 rounded-[2rem] bg-primary/10 blur-2xl" />
              <div className="relative rounded-2xl border border-border bg-card p-6 shadow-xl sm:p-8">
                <DemoForm />
              </div>
            </div>
          </div>
        </section>
        <FeaturesSection />
        <TrialCta />
      </main>
      <LandingFooter />
    </div>
  );
}
