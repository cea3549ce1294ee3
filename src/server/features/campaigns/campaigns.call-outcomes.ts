import type { JobDeps } from "../../jobs/define";
import { deliveryKind } from "./campaigns.delivery";
import { selectCampaign, selectRecipientsWithStatus } from "./campaigns.queries";
import { handleTwilioStatus, twilioEventKey } from "./campaigns.webhooks";

// How an offline voice provider's campaign calls ended, recorded as Twilio's status callbacks are.

/**
 * The simulated status callbacks of a voice campaign's calls (CAMPAIGN_SIMULATE_ENGAGEMENT, with a
 * voice provider that acts calls out offline: the `local` one, VoiceProvider simulatedStatusCallback):
 * each recipient still `sent` gets the fields Twilio would have posted to
 * `/api/webhooks/twilio/status` for its call (busy, no-answer, failed, or completed and answered by a
 * person or a machine: providers/voice/local.ts LOCAL_TEST_NUMBERS), applied by handleTwilioStatus,
 * that webhook's handler (replay key twilioEventKey), so the row ends as a Twilio callback leaves it:
 * busy / no-answer / failed -> failed with that reason, completed -> delivered with `answeredBy`.
 * Runs before simulateEngagement, whose blanket "delivered" then finds these rows no longer `sent`.
 * Other channels, a provider without simulatedStatusCallback or a call it has no outcome for:
 * nothing. Returns how many callbacks were applied.
 */
export async function simulateCallStatuses(
  deps: Pick<JobDeps, "db" | "env" | "log" | "jobs" | "providers">,
  campaignId: number,
): Promise<number> {
  const simulated = deps.providers.voice.simulatedStatusCallback?.bind(deps.providers.voice);
  if (!simulated) return 0;
  const c = await selectCampaign(deps.db, campaignId);
  if (!c || deliveryKind(c.channel) !== "voice") return 0;
  let applied = 0;
  for (const r of await selectRecipientsWithStatus(deps.db, campaignId, ["sent"])) {
    if (!r.providerMessageId || !r.address) continue;
    const params = await simulated({ providerMessageId: r.providerMessageId, to: r.address });
    if (!params) continue;
    if ((await handleTwilioStatus(deps, params, twilioEventKey(params))) === "applied") applied += 1;
  }
  return applied;
}
