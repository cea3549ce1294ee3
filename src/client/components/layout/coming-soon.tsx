import { Link } from "@tanstack/react-router";
import { ArrowLeft, type LucideIcon, Sparkles } from "lucide-react";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent } from "@/client/components/ui/card";
import { PageHeader } from "./page-header";

/**
 * Placeholder page for a feature that is not built yet: the feature title, a sentence and a link back to
 * the dashboard. Each placeholder route file renders one of these until its owner replaces the file.
 */
export function ComingSoonPage({
  title,
  description,
  icon: Icon = Sparkles,
}: {
  title: string;
  description: string;
  icon?: LucideIcon;
}) {
  return (
    <>
      <PageHeader title={title} />
      <Card className="overflow-hidden">
        <CardContent className="relative flex flex-col items-center gap-4 px-6 py-16 text-center">
          <div
            aria-hidden
            className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top,var(--accent),transparent_65%)]"
          />
          <div className="relative flex size-14 items-center justify-center rounded-2xl bg-primary text-primary-foreground shadow-md">
            <Icon className="size-7" aria-hidden />
          </div>
          <Badge variant="accent" className="relative">
            Coming soon
          </Badge>
          <p className="relative max-w-md text-muted-foreground">{description}</p>
          <Button asChild variant="outline" className="relative mt-2">
            <Link to="/dashboard">
              <ArrowLeft aria-hidden />
              Back to Dashboard
            </Link>
          </Button>
        </CardContent>
      </Card>
    </>
  );
}
