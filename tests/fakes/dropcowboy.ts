import { randomUUID } from "node:crypto";
import { type FakeReply, type RecordedRequest, startFake } from "./http";

/**
 * A fake of Drop Cowboy's RVM API: POST /v1/rvm with JSON {team_id, secret, phone_number, caller_id,
 * audio_url | tts_body, foreign_id, callback_url}; wrong credentials get 401.
 */
export async function startDropCowboyFake(teamId: string, secret: string) {
  const drops: Record<string, unknown>[] = [];
  const fake = await startFake((req: RecordedRequest): FakeReply => {
    if (req.method !== "POST" || req.path !== "/v1/rvm") return { status: 404, json: { error: "not found" } };
    const body = JSON.parse(req.body || "{}") as Record<string, unknown>;
    if (body.team_id !== teamId || body.secret !== secret)
      return { status: 401, json: { message: "Invalid team_id or secret" } };
    if (!body.phone_number || (!body.audio_url && !body.tts_body && !body.recording_id))
      return { status: 400, json: { message: "phone_number and a recording are required" } };
    const drop = { ...body, drop_id: randomUUID() };
    drops.push(drop);
    return { status: 200, json: { status: "queued", drop_id: drop.drop_id, foreign_id: body.foreign_id } };
  });
  return { ...fake, drops, apiUrl: `${fake.url}/v1` };
}

/** What Drop Cowboy's webhook reports for a drop (its docs' "Webhooks" page). */
export type DropCowboyOutcome = { status: string; reason?: string; dnc?: boolean; spam?: boolean };

/**
 * The callback Drop Cowboy makes for `drop` (a request the fake recorded): the path of the drop's
 * `callback_url` (to post to the app) and the documented webhook JSON (drop_id, phone_number,
 * attempt_date, status, reason, dnc, spam, product_cost, compliance_fee, tts_fee, network, foreign_id).
 */
export function dropCowboyCallback(drop: Record<string, unknown>, outcome: DropCowboyOutcome) {
  const url = new URL(String(drop.callback_url));
  return {
    path: url.pathname,
    body: {
      drop_id: drop.drop_id,
      phone_number: drop.phone_number,
      attempt_date: new Date().toISOString(),
      status: outcome.status,
      reason: outcome.reason ?? "",
      dnc: outcome.dnc ?? false,
      spam: outcome.spam ?? false,
      product_cost: outcome.status === "success" ? 0.099 : 0,
      compliance_fee: 0.0029,
      tts_fee: 0,
      network: { name: "Verizon Wireless:6006 - SVR/2", type: "wireless" },
      foreign_id: drop.foreign_id,
    },
  };
}
