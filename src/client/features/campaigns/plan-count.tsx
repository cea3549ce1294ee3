import { useUsage } from "@/client/features/billing/usage";
import { formatNumber, plural } from "@/client/lib/format";

/**
 * The SMS builder's review: what the launch counts against the plan's monthly SMS meter and what
 * the carrier bills, said apart so that segments are never read as plan usage. The plan's meter
 * counts one SMS message per recipient, however many segments it has (billing planRuleOfChannel,
 * spec section 9); the carrier bills each segment. The plan's facts (its name, the month's limit,
 * what is used so far) are the server's `billing.usage` (the client never decides what a plan
 * allows); `messages` is the preflight's reach (the recipients the launch reserves units for) and
 * `segments` the segments of one message as sent (sentSmsSegments). A campaign scheduled past the
 * current billing period counts in the period it sends in: its used and left are not said then. Nothing of the plan is said
 * while the usage is loading or when the plan has no SMS campaigns (PlanFeatureNotice says that).
 */
export function SmsPlanCount({
  messages,
  segments,
  scheduledAt,
}: {
  messages: number | null;
  segments: number;
  /** a campaign scheduled for later: past the current billing period's end it counts in its own */
  scheduledAt?: Date;
}) {
  const { data } = useUsage();
  const meter = data?.usage.sms_messages;
  const count = messages === null ? "..." : plural(messages, "SMS message");
  // the server reserves a scheduled campaign's units in the period its time falls in (billing
  // launchPeriodStart): one after the current period (the server's period_end) is not this month's
  const later = !!scheduledAt && !!data && scheduledAt.getTime() >= Date.parse(data.period_end);
  return (
    <div className="space-y-1 rounded-lg border bg-muted/40 p-4 text-sm" data-testid="sms-plan-count">
      <p>
        <span className="font-medium">
          Counts against your plan {later ? "in the billing period it sends in" : "this month"}: {count}
        </span>
        , one per recipient, however many segments each has.
        {data && meter && data.features.smsVoiceCampaigns && !later && (
          <>
            {" "}
            {meter.limit === null
              ? `Your ${data.plan_name} plan has no monthly SMS limit.`
              : `Your ${data.plan_name} plan includes ${formatNumber(meter.limit)} SMS messages a month: ${formatNumber(meter.used)} used so far, ${formatNumber(Math.max(0, meter.limit - meter.used))} left.`}
          </>
        )}
      </p>
      <p className="text-muted-foreground">
        Billed by the carrier: {plural(segments, "segment")} per message
        {messages === null ? "" : `, ${plural(messages * segments, "segment")} in all`}. Segments do not count
        against your plan.
      </p>
    </div>
  );
}
