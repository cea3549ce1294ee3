import { useState } from "react";

/**
 * A new launch token: a random UUID (v4). `crypto.randomUUID` exists only in secure contexts (https,
 * localhost); a self-hosted server on plain http gets the same UUID from `crypto.getRandomValues`.
 */
export function newLaunchToken(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The launch token of one builder session (one campaign draft), made once when the builder mounts
 * and sent with every launch attempt of it (`launchToken`): the server keeps it with the campaign it
 * creates, so a double click, a retry after a lost response or a second request in flight answers
 * that campaign instead of creating and sending a second one (audit finding 7). A new builder (a new
 * campaign) gets a new token, and so does a builder whose `scope` changes (the call builder reused
 * for ringless voicemail: another channel is another campaign).
 */
export function useLaunchToken(scope = ""): string {
  const [current, setCurrent] = useState(() => ({ scope, token: newLaunchToken() }));
  if (current.scope === scope) return current.token;
  const next = { scope, token: newLaunchToken() };
  setCurrent(next);
  return next.token;
}
