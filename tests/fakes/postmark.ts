import { randomUUID } from "node:crypto";
import { type FakeReply, type RecordedRequest, startFake } from "./http";

/**
 * A fake of Postmark's Email API (https://postmarkapp.com/developer/api/email-api): POST /email,
 * POST /email/batch (max 500), GET /messages/outbound (recipient + metadata_* filters). Requests
 * without the right X-Postmark-Server-Token get Postmark's 401 {ErrorCode: 10}. Addresses ending in
 * "@inactive.test" are rejected per message with ErrorCode 406 (inactive recipient), like Postmark.
 */
export async function startPostmarkFake(serverToken: string) {
  const sent: { MessageID: string; To: string; Metadata?: Record<string, string>; [k: string]: unknown }[] =
    [];
  const one = (m: Record<string, unknown>) => {
    const to = String(m.To ?? "");
    if (to.endsWith("@inactive.test"))
      return {
        ErrorCode: 406,
        Message: "You tried to send to recipient(s) that have been marked as inactive.",
        To: to,
      };
    const MessageID = randomUUID();
    sent.push({ ...(m as object), MessageID, To: to });
    return { ErrorCode: 0, Message: "OK", MessageID, SubmittedAt: new Date().toISOString(), To: to };
  };
  const fake = await startFake((req: RecordedRequest): FakeReply => {
    if (req.headers["x-postmark-server-token"] !== serverToken)
      return {
        status: 401,
        json: {
          ErrorCode: 10,
          Message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid.",
        },
      };
    if (req.method === "POST" && req.path === "/email") {
      const r = one(JSON.parse(req.body));
      return r.ErrorCode ? { status: 422, json: r } : { status: 200, json: r };
    }
    if (req.method === "POST" && req.path === "/email/batch") {
      const list = JSON.parse(req.body) as Record<string, unknown>[];
      if (list.length > 500)
        return { status: 422, json: { ErrorCode: 300, Message: "Too many messages in batch" } };
      return { status: 200, json: list.map(one) };
    }
    if (req.method === "GET" && req.path === "/messages/outbound") {
      let hits = sent;
      const recipient = req.query.get("recipient");
      if (recipient) hits = hits.filter((m) => m.To === recipient);
      for (const [k, v] of req.query)
        if (k.startsWith("metadata_")) hits = hits.filter((m) => m.Metadata?.[k.slice(9)] === v);
      return {
        status: 200,
        json: {
          TotalCount: hits.length,
          Messages: hits
            .slice(0, Number(req.query.get("count") ?? 50))
            .map((m) => ({ MessageID: m.MessageID, To: [{ Email: m.To }], Metadata: m.Metadata })),
        },
      };
    }
    return { status: 404, json: { ErrorCode: 404, Message: "Not found" } };
  });
  return { ...fake, sent };
}
