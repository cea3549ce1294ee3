import type { Db } from "../../db/client";
import { findOutboxByKey, writeOutbox } from "../outbox";
import type { VoiceCall, VoiceProvider } from "./index";

/** Offline voice provider: the call script lands in the outbox as the recipient would hear it. */
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
        body: c.script,
        metadata: { ...(c.metadata ?? {}), idempotencyKey: c.idempotencyKey },
      },
    ]);
    return { providerMessageId: id };
  }
  async findSent(key: string, hint: { to: string }) {
    return findOutboxByKey(this.db, key, hint.to);
  }
}
