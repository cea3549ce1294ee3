import type { Db } from "../../db/client";
import { findOutboxByKey, writeOutbox } from "../outbox";
import type { VoicemailDrop, VoicemailProvider } from "./index";

/**
 * Offline ringless-voicemail provider: each drop lands in the outbox (audio URL or TTS script, which
 * carries the business identity and opt-out sentences). The callback number the drop gives is kept in
 * `metadata.callbackNumber`; the dev outbox offers a "Call back" button that calls it as the recipient.
 */
export class LocalVoicemailProvider implements VoicemailProvider {
  readonly name = "local";
  constructor(private readonly db: Db) {}
  async drop(d: VoicemailDrop) {
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
