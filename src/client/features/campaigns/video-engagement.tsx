import { useQuery } from "@tanstack/react-query";
import { PlayCircle } from "lucide-react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardContent, CardHeader, CardTitle } from "@/client/components/ui/card";
import { useTRPC } from "@/client/trpc";

/**
 * Video campaigns only: how many recipients opened their landing page, how far they watched
 * (25/50/75/100 %, as a funnel chart) and how many clicked the page's button (`cta_clicks`), from
 * tRPC `campaigns.videoCampaignStats`.
 */
export function VideoEngagement({
  campaignId,
  recipients,
  live,
}: {
  campaignId: number;
  recipients: number;
  live: boolean;
}) {
  const trpc = useTRPC();
  const stats = useQuery({
    ...trpc.campaigns.videoCampaignStats.queryOptions({ campaignId }),
    refetchInterval: live ? 5000 : 30_000,
  });
  const s = stats.data;
  const funnel = s
    ? [
        { step: "Viewed", people: s.viewers },
        { step: "25%", people: s.watched["25"] },
        { step: "50%", people: s.watched["50"] },
        { step: "75%", people: s.watched["75"] },
        { step: "Finished", people: s.watched["100"] },
      ]
    : [];
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <PlayCircle className="size-4" aria-hidden /> Video views
        </CardTitle>
      </CardHeader>
      <CardContent>
        {s?.video_deleted && (
          <p className="mb-4 text-sm text-muted-foreground" data-testid="video-deleted">
            The video was deleted from your library. Its figures are kept; recipients who open their link now
            see "This video is no longer available".
          </p>
        )}
        {!s ? (
          <p className="text-sm text-muted-foreground">
            {stats.isError ? "Video stats are unavailable." : "Loading…"}
          </p>
        ) : (
          <div className="grid gap-6 md:grid-cols-[200px_1fr]">
            <dl className="space-y-3">
              <div>
                <dt className="text-sm text-muted-foreground">Recipients who watched</dt>
                <dd className="text-2xl font-semibold" data-testid="video-viewers">
                  {s.viewers}{" "}
                  <span className="text-sm font-normal text-muted-foreground">of {recipients}</span>
                </dd>
              </div>
              <div>
                <dt className="text-sm text-muted-foreground">Total plays</dt>
                <dd className="text-2xl font-semibold">{s.views}</dd>
              </div>
              <div>
                <dt className="text-sm text-muted-foreground">Clicked your button</dt>
                <dd className="text-2xl font-semibold" data-testid="video-cta-clicks">
                  {s.cta_clicks}{" "}
                  <span className="text-sm font-normal text-muted-foreground">of {recipients}</span>
                </dd>
              </div>
            </dl>
            <div
              className="h-48"
              role="img"
              aria-label={`Watch funnel: ${funnel.map((f) => `${f.step} ${f.people}`).join(", ")}`}
            >
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={funnel}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="step" />
                  <YAxis allowDecimals={false} />
                  <Tooltip />
                  <Bar dataKey="people" fill="#6366f1" radius={[4, 4, 0, 0]} />
                </BarChart>
              </ResponsiveContainer>
            </div>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
