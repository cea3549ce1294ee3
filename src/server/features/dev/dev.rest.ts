import { and, desc, eq, type SQL } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../../context";
import { outboxMessages } from "../../db/schema";
import { findHttpLinks } from "../../lib/links";
import { parseInput } from "../../lib/validate";
import { INBOUND_CALL_PATH } from "../compliance/call-opt-out";

const query = z.object({
  channel: z.enum(["email", "sms", "voice", "voicemail"]).optional(),
  to: z.string().max(254).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});

const esc = (s: unknown) =>
  String(s ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/**
 * A text message as HTML with its links clickable: the links lib/links findHttpLinks finds, as the
 * engine tracked them (a full stop after a link stays text, not part of the href).
 */
function linkedHtml(text: string): string {
  let out = "";
  let at = 0;
  for (const { url, index, end } of findHttpLinks(text)) {
    out += `${esc(text.slice(at, index))}<a href="${esc(url)}">${esc(url)}</a>`;
    at = end;
  }
  return out + esc(text.slice(at));
}

type Keypad = { digit?: unknown; actionUrl?: unknown };

/**
 * A local AI call's keypress opt-out (voice provider `local`, metadata.keypad): a button that posts
 * the key to the call's opt-out URL as Twilio's <Gather> would (Digits, CallSid, To).
 */
function keypadForm(meta: { keypad?: Keypad }, to: string, callId: string | null): string {
  const k = meta.keypad;
  if (!k || typeof k.digit !== "string" || typeof k.actionUrl !== "string") return "";
  return `<form method="post" action="${esc(k.actionUrl)}"><input type="hidden" name="Digits" value="${esc(k.digit)}"><input type="hidden" name="CallSid" value="${esc(callId)}"><input type="hidden" name="To" value="${esc(to)}"><button type="submit">Press ${esc(k.digit)} (opt out of calls)</button></form>`;
}

/**
 * A local voicemail's callback number (voicemail provider `local`, metadata.callbackNumber): a button
 * that calls it as the recipient, posting what Twilio posts to the number's voice webhook (From, To,
 * CallSid) to /api/webhooks/voice/inbound; the menu that answers is a new voice row with its own
 * "Press 9" button.
 */
function callBackForm(meta: { callbackNumber?: unknown }, from: string, id: number): string {
  const to = meta.callbackNumber;
  if (typeof to !== "string") return "";
  return `<form method="post" action="${INBOUND_CALL_PATH}"><input type="hidden" name="From" value="${esc(from)}"><input type="hidden" name="To" value="${esc(to)}"><input type="hidden" name="CallSid" value="dev-callback-${id}"><button type="submit">Call back ${esc(to)} from ${esc(from)}</button></form>`;
}

/**
 * A reply to a local SMS as its recipient would text it (STOP, START, HELP or anything else): posts
 * what Twilio posts to the number's messaging webhook (From, To, Body) to the inbound SMS webhook,
 * which the local SMS provider accepts unsigned outside production; the answer is its TwiML.
 */
function smsReplyForm(from: string, id: number): string {
  return `<form method="post" action="/api/webhooks/twilio/inbound"><input type="hidden" name="From" value="${esc(from)}"><input type="hidden" name="To" value="Pitchwise"><label>Reply as ${esc(from)} <input name="Body" value="STOP" aria-label="Reply text to message ${id}"></label> <button type="submit">Send reply</button></form>`;
}

async function listOutbox(ctx: AppContext, q: z.infer<typeof query>) {
  const where: SQL[] = [];
  if (q.channel) where.push(eq(outboxMessages.channel, q.channel));
  if (q.to) where.push(eq(outboxMessages.to, q.to));
  return ctx.db
    .select()
    .from(outboxMessages)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(outboxMessages.id))
    .limit(q.limit);
}

/**
 * Development outbox: every message the local providers delivered, as JSON (`GET /api/dev/outbox`)
 * and as the recipient would see it (`GET /dev/outbox`). Never registered in production.
 */
export async function devRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get("/api/dev/outbox", async (req) => {
    const rows = await listOutbox(ctx, parseInput(query, req.query));
    return {
      success: true,
      messages: rows.map((r) => ({
        id: r.id,
        channel: r.channel,
        to: r.to,
        from: r.from,
        subject: r.subject,
        body: r.body,
        html: r.html,
        status: r.status,
        provider_message_id: r.providerMessageId,
        metadata: r.metadata,
        created_at: r.createdAt.toISOString(),
      })),
    };
  });

  app.get("/dev/outbox", async (req, reply) => {
    const q = parseInput(query, req.query);
    const rows = await listOutbox(ctx, q);
    const tabs = ["", "email", "sms", "voice", "voicemail"]
      .map(
        (c) =>
          `<a class="tab${(q.channel ?? "") === c ? " on" : ""}" href="/dev/outbox${c ? `?channel=${c}` : ""}">${c || "all"}</a>`,
      )
      .join("");
    const cards = rows
      .map((r) => {
        const head = `<div class="meta"><span class="ch ${esc(r.channel)}">${esc(r.channel)}</span> to <b>${esc(r.to)}</b>${r.from ? ` from ${esc(r.from)}` : ""} · <span class="st">${esc(r.status)}</span> · ${esc(r.createdAt.toISOString())}</div>`;
        let content: string;
        if (r.channel === "email") {
          content = `<div class="subject">${esc(r.subject)}</div>${
            r.html
              ? `<iframe sandbox="allow-popups allow-popups-to-escape-sandbox" title="${esc(r.subject)}" srcdoc="${esc(r.html)}"></iframe>`
              : `<pre>${esc(r.body)}</pre>`
          }<details><summary>Plain text</summary><pre>${esc(r.body)}</pre></details>`;
        } else if (r.channel === "sms") {
          content = `<div class="bubble">${linkedHtml(r.body)}</div>${smsReplyForm(r.to, r.id)}`;
        } else {
          const meta = r.metadata as { direction?: unknown; callbackNumber?: unknown };
          const what =
            r.channel === "voicemail"
              ? "Ringless voicemail"
              : meta.direction === "inbound"
                ? "Call to the callback number answers"
                : "AI voice call";
          content = `<div class="call">📞 ${what} says:<blockquote>${esc(r.body)}</blockquote>${
            (r.metadata as { audioUrl?: string }).audioUrl
              ? `<audio controls src="${esc((r.metadata as { audioUrl?: string }).audioUrl)}"></audio>`
              : ""
          }${keypadForm(r.metadata as { keypad?: Keypad }, r.to, r.providerMessageId)}${callBackForm(meta, r.to, r.id)}</div>`;
        }
        return `<article class="msg" data-channel="${esc(r.channel)}" data-to="${esc(r.to)}">${head}${content}</article>`;
      })
      .join("");
    // its forms (reply, keypad, call back) POST to this site: Helmet's `no-referrer` makes browsers
    // send `Origin: null`, which the same-origin check refuses while signed in (billing.rest's local pages)
    reply.type("text/html; charset=utf-8").header("referrer-policy", "same-origin");
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Outbox · Pitchwise (development)</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font:14px system-ui,sans-serif;background:#f4f5f7;margin:0;padding:24px;color:#111}h1{font-size:20px;margin:0 0 4px}
.note{color:#555;margin:0 0 16px}.tab{display:inline-block;padding:4px 12px;border-radius:999px;background:#e5e7eb;color:#111;text-decoration:none;margin-right:6px}
.tab.on{background:#111;color:#fff}.msg{background:#fff;border-radius:12px;padding:16px;margin:12px 0;box-shadow:0 1px 2px #0001;max-width:760px}
.meta{color:#555;font-size:12px;margin-bottom:8px}.ch{font-weight:700;text-transform:uppercase}.subject{font-weight:700;font-size:16px;margin-bottom:8px}
iframe{width:100%;height:420px;border:1px solid #e5e7eb;border-radius:8px;background:#fff}.bubble{background:#15803d;color:#fff;padding:10px 14px;border-radius:18px;display:inline-block;max-width:min(420px,100%);white-space:pre-wrap;overflow-wrap:anywhere}
.bubble a{color:#fff}blockquote{margin:8px 0;padding:8px 12px;border-left:4px solid #6366f1;background:#eef2ff}pre{white-space:pre-wrap;overflow-wrap:anywhere}
.meta,.subject{overflow-wrap:anywhere}nav{display:flex;flex-wrap:wrap;gap:6px}@media (max-width:480px){body{padding:12px}}</style></head>
<body><h1>Outbox</h1><p class="note">Development only: every email, SMS, call and voicemail the local providers delivered, newest first (${rows.length}).</p>
<nav>${tabs}</nav>${cards || '<p class="note">No messages yet.</p>'}</body></html>`;
  });
}
