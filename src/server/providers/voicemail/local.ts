import type { Db } from "../../db/client";
import { ProviderError } from "../errors";
import { findOutboxByKey, writeOutbox } from "../outbox";
import { LOCAL_TEST_NUMBERS } from "../voice/local";
import type { VoicemailDrop, VoicemailProvider } from "./index";

/**
 * Offline ringless-voicemail provider: each drop lands in the outbox (audio URL or TTS script, which
 * carries the business identity and opt-out sentences). The callback number the drop gives is kept in
 * `metadata.callbackNumber`; the dev outbox offers a "Call back" button that calls it as the recipient.
 * A drop to the failing test number (LOCAL_TEST_NUMBERS.failed, +1 201 555 0103: the number whose local
 * calls fail too) is refused as a vendor refuses one, a permanent ProviderError (HTTP 400), and lands
 * nowhere, so a failed drop can be seen offline; every other drop is accepted.
 */
export class LocalVoicemailProvider implements VoicemailProvider {
  readonly name = "local";
  constructor(private readonly db: Db) {}
  /** @throws ProviderError (permanent) for LOCAL_TEST_NUMBERS.failed. */
  async drop(d: VoicemailDrop) {
    if (d.to === LOCAL_TEST_NUMBERS.failed)
      throw new ProviderError(
        `Local voicemail: the drop to ${d.to} was refused (a test number whose drops always fail)`,
        { transient: false, httpStatus: 400 },
      );
    const [id] = await writeOutbox(this.db, [
      {
        workspaceId: d.workspaceId,
        channel: "voicemail",
        to: d.to,
        from: "Pitchwise voicemail",
        // a recording's file already speaks the notice around it (campaigns voicemailAudioWithNotice)
        body: d.audioUrl
          ? d.notice
            ? `${d.notice.identity}\nAudio: ${d.audioUrl}\n${d.notice.optOut}`
            : `Audio: ${d.audioUrl}`
          : (d.ttsText ?? ""),
        metadata: {
          ...(d.metadata ?? {}),
          idempotencyKey: d.idempotencyKey,
          audioUrl: d.audioUrl ?? null,
          ...(d.notice ? { notice: d.notice, callbackNumber: d.notice.callbackNumber } : {}),
        },
      },
    ]);
    return { providerMessageId: id };
  }
  async findSent(key: string, hint: { to: string }): Promise<string | null> {
    return findOutboxByKey(this.db, key, hint.to);
  }
}
