import { TRPCClientError } from "@trpc/client";
import { NETWORK_ERROR_MESSAGE } from "@/client/lib/errors";

/**
 * The sentence to show for a failed launch over tRPC, and whether it is a plan limit (the banner
 * then links to /pricing). Plan refusals say "Upgrade to ..." (billing.plans); a network failure
 * has no response.
 */
export function launchErrorMessage(e: unknown, fallback: string): { message: string; upgrade: boolean } {
  if (e instanceof TRPCClientError) {
    if (!e.data && /fetch|network/i.test(e.message))
      return { message: NETWORK_ERROR_MESSAGE, upgrade: false };
    return { message: e.message || fallback, upgrade: /Upgrade to/.test(e.message) };
  }
  return { message: (e as Error)?.message || fallback, upgrade: false };
}
