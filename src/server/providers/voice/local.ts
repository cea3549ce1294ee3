import type { Db } from "../../db/client";
import { findOutboxByKey, writeOutbox } from "../outbox";
import type { VoiceCall, VoiceProvider } from "./index";

/**
 * Offline voice provider: the call lands in the outbox as the recipient would hear it (with the
 * keypress opt-out offer: prompt, script, prompt, one per line, like the Twilio TwiML). The offer is
 * kept in the row's metadata as `keypad: {digit, prompt, actionUrl}`: pressing the key is a POST of
 * `Digits={digit}` (form-encoded, as Twilio's <Gather> posts it) to `actionUrl`, which the dev outbox
 * page's "Press 9" button and tests do.
 */
export class LocalVoiceProvider implements VoiceProvider {
  readonly name = "local";
  constructor(private readonly db: Db) {}
  async call(c: VoiceCall) {
    const [id] = await writeOutbox(this.db, [
      {
        workspaceId: c.workspaceId,
        channel: "voice",
        to: c.to,
        from: "Pitchwise AI voice",
        body: c.optOut ? [c.optOut.prompt, c.script, c.optOut.prompt].join("\n") : c.script,
        metadata: {
          ...(c.metadata ?? {}),
          idempotencyKey: c.idempotencyKey,
          ...(c.optOut ? { keypad: c.optOut } : {}),
        },
      },
    ]);
    return { providerMessageId: id };
  }
  async findSent(key: string, hint: { to: string }) {
    return findOutboxByKey(this.db, key, hint.to);
  }
}
