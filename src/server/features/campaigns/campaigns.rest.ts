import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context";
import type { CampaignChannel } from "../../db/schema";
import { requireTenant } from "../../http/auth";
import { sendCsvDownload } from "../../http/csv-download";
import { postKeypressOptOut } from "../../http/keypress-opt-out";
import { sendMediaFile } from "../../http/media-file";
import { pathId } from "../../http/path-id";
import { AppError } from "../../lib/errors";
import { escapeHtml } from "../../lib/merge-tags";
import { parseInput } from "../../lib/validate";
import { twilioFormParams, twilioRequestSigned } from "../../providers/sms/twilio-webhooks";
import { TWIML_DOCUMENT_PATH } from "../../providers/voice/twiml-documents";
import {
  CALL_OPT_OUT_PATH,
  CALLBACK_OPT_OUT_PATH,
  INBOUND_CALL_PATH,
  readCallbackOptOut,
  readCallOptOut,
} from "../compliance/call-opt-out";
import { getSenderProfile } from "../workspaces/workspaces.service";
import { preflightAudience } from "./campaigns.audience";
import { TEST_EMAIL_TOKEN } from "./campaigns.content";
import { deliveryKind } from "./campaigns.delivery";
import {
  clickByToken,
  isBotUserAgent,
  recipientByToken,
  recipientOptedOut,
  unsubscribeByToken,
} from "./campaigns.events";
import {
  campaignReportQuery,
  createCampaignInput,
  dropCowboyRvmCallback,
  emailLaunchInput,
  smsLaunchInput,
  withLaunchToken,
} from "./campaigns.schemas";
import * as svc from "./campaigns.service";
import {
  VOICEMAIL_STATUS_PATH,
  voicemailAudioForDrop,
  voicemailStatusTokenValid,
} from "./campaigns.voicemail";
import {
  handleCallbackKeypress,
  handleCallKeypress,
  handleInboundCall,
  handlePostmarkEvent,
  handleTwilioInbound,
  handleTwilioStatus,
  handleVoicemailStatus,
  twilioEventKey,
  twilioInboundKey,
  twimlReply,
  verifyPostmarkAuth,
} from "./campaigns.webhooks";

const BIG = { bodyLimit: 25 * 1024 * 1024 };

function page(reply: FastifyReply, status: number, title: string, body: string) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;background:#f6f7f9;margin:0;padding:48px 16px;color:#111827}main{max-width:480px;margin:0 auto;background:#fff;border-radius:12px;padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.08)}button{background:#111827;color:#fff;border:0;border-radius:8px;padding:12px 20px;font-size:15px;cursor:pointer}p{line-height:1.5}</style></head>
<body><main><h1>${title}</h1>${body}</main></body></html>`;
  return reply.status(status).type("text/html; charset=utf-8").header("cache-control", "no-store").send(html);
}

/**
 * A recipient's address as the unsubscribe page shows it, masked (`ab***@example.com`, a number's
 * last four digits) and escaped for HTML: addresses are checked on the way in, but the page does not
 * rely on that.
 */
function mask(address: string) {
  const [u, d] = address.split("@");
  return escapeHtml(
    d ? `${u.slice(0, 2)}***@${d}` : `${address.slice(0, -4).replace(/\d/g, "*")}${address.slice(-4)}`,
  );
}

/** What an opt-out of a recipient's channel stops, as the unsubscribe page says it. */
const OPTED_OUT_OF = { email: "emails", sms: "texts", voice: "calls", voicemail: "voicemails" } as const;

/**
 * "emails from <strong>Rosa's Bakery</strong>": what the unsubscribe page stops, escaped for HTML.
 * The opt-out covers the channel for the whole sending workspace (its suppression list), so the page
 * names the business (its sender name, as the message's footer does), not "these messages".
 */
async function optOutScope(ctx: AppContext, r: { workspaceId: string; channel: CampaignChannel }) {
  const sender = await getSenderProfile(ctx, r.workspaceId);
  return `${OPTED_OUT_OF[deliveryKind(r.channel)]} from <strong>${escapeHtml(sender.businessName)}</strong>`;
}

/**
 * REST adapters of the campaigns feature (spec section 7), vendor webhooks, and the public unsubscribe /
 * click pages. GET /api/campaigns/{id} (the report) takes one optional query parameter, `tz`: the IANA
 * time zone (e.g. `America/New_York`) its `timeline` buckets are cut in, UTC by default; an unknown
 * zone is a 400 with a sentence.
 */
export async function campaignsRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // --- spec section 7 ---
  app.post("/api/campaigns/email/test", async (req) => {
    const tenant = requireTenant(req);
    const { email } = await svc.sendTestEmail(ctx, tenant, req.body);
    return { success: true, message: `Test email sent to ${email}` };
  });

  app.post("/api/campaigns/email/launch", BIG, async (req) => {
    const tenant = requireTenant(req);
    const input = parseInput(emailLaunchInput, withLaunchToken(req.body, req.headers["idempotency-key"]));
    const contacts = input.contacts.filter((c) => c.email?.trim());
    if (
      !input.campaignName.trim() ||
      !input.subject.trim() ||
      !input.body.trim() ||
      (contacts.length === 0 && !input.audience)
    )
      throw new AppError("BAD_REQUEST", "Please complete all steps");
    const r = await svc.createAndLaunchCampaign(
      ctx,
      tenant.workspaceId,
      {
        name: input.campaignName,
        channel: "email",
        content: { subject: input.subject, body: input.body },
        recipients: { csv: contacts },
        audience: input.audience,
        scheduledAt: input.scheduledAt,
        launchToken: input.launchToken,
        allowRepeat: input.allowRepeat,
      },
      tenant.userId,
      tenant.workspace,
    );
    return {
      success: true,
      campaignId: r.campaign.id,
      campaign: r.campaign,
      recipients: r.queued,
      skipped: r.skipped,
      ...(r.repeated ? { repeated: true, otherLaunch: !!r.otherLaunch } : {}),
    };
  });

  app.post("/api/campaigns/sms/launch", BIG, async (req) => {
    const tenant = requireTenant(req);
    const input = parseInput(smsLaunchInput, withLaunchToken(req.body, req.headers["idempotency-key"]));
    if (!input.campaignName.trim()) throw new AppError("BAD_REQUEST", "Please enter a campaign name");
    if (!input.message.trim()) throw new AppError("BAD_REQUEST", "Please enter your SMS message");
    if (input.contacts.length === 0 && !input.audience)
      throw new AppError("BAD_REQUEST", "Please select at least one contact");
    const r = await svc.createAndLaunchCampaign(
      ctx,
      tenant.workspaceId,
      {
        name: input.campaignName,
        channel: "sms",
        content: { message: input.message },
        recipients: {
          contactIds: input.contacts.filter((c) => c.id).map((c) => c.id as number),
          csv: input.contacts.filter((c) => !c.id),
        },
        audience: input.audience,
        includeNotOptedIn: input.includeNotOptedIn,
        scheduledAt: input.scheduledAt,
        launchToken: input.launchToken,
        allowRepeat: input.allowRepeat,
      },
      tenant.userId,
      tenant.workspace,
    );
    return {
      success: true,
      campaignId: r.campaign.id,
      campaign: r.campaign,
      recipients: r.queued,
      skipped: r.skipped,
      message: `Campaign launched! Sending to ${r.queued} contacts.`,
      ...(r.repeated ? { repeated: true, otherLaunch: !!r.otherLaunch } : {}),
    };
  });

  // what a launch body would do (issue 14): audience size, sent now, deferred by quiet hours, skipped
  app.post("/api/campaigns/preflight", BIG, async (req) => {
    const tenant = requireTenant(req);
    return { success: true, ...(await preflightAudience(ctx, tenant.workspaceId, req.body ?? {})) };
  });

  // --- generic (call and voice builders, API users) ---
  app.post("/api/campaigns", BIG, async (req) => {
    const tenant = requireTenant(req);
    const r = await svc.createAndLaunchCampaign(
      ctx,
      tenant.workspaceId,
      parseInput(createCampaignInput, withLaunchToken(req.body, req.headers["idempotency-key"])),
      tenant.userId,
      tenant.workspace,
    );
    return {
      success: true,
      campaignId: r.campaign.id,
      campaign: r.campaign,
      recipients: r.queued,
      skipped: r.skipped,
    };
  });
  app.get("/api/campaigns", async (req) => ({
    success: true,
    campaigns: await svc.listCampaigns(ctx, requireTenant(req).workspaceId),
  }));
  // the campaign's report (campaigns.service getCampaignReport): `?tz=Asia/Kolkata` cuts the
  // timeline's hour and day buckets in that IANA zone, as the app's report does in the viewer's (tRPC
  // `timeZone`); UTC without it, and the answer's `timeZone` names the zone used. A zone Intl does not
  // know ("+05:30", "Mars/Base", an empty or repeated `tz`) or any other query parameter is a 400
  // with a sentence naming it (campaignReportQuery).
  app.get("/api/campaigns/:id", async (req) => {
    const tenant = requireTenant(req);
    const id = pathId(req, "Campaign");
    const { tz } = parseInput(campaignReportQuery, req.query ?? {});
    return {
      success: true,
      ...(await svc.getCampaignReport(ctx, tenant.workspaceId, id, tenant.role, tz)),
    };
  });
  app.get("/api/campaigns/:id/recipients", async (req) => {
    const tenant = requireTenant(req);
    return {
      success: true,
      ...(await svc.listRecipients(ctx, tenant.workspaceId, {
        ...(req.query as object),
        id: pathId(req, "Campaign"),
      })),
    };
  });
  // the campaign's results as CSV (the report's "Export CSV"): session-authenticated, the active
  // workspace's campaign only (another workspace's id is a 404), streamed (campaigns.service
  // exportRecipientsCsv: 2,000 recipients per query, formula-safe cells)
  app.get("/api/campaigns/:id/recipients.csv", async (req, reply) => {
    const tenant = requireTenant(req);
    const id = pathId(req, "Campaign");
    // the campaign is found (or the 404 answered) before the 200 goes out (sendCsvDownload)
    return sendCsvDownload(
      reply,
      svc.exportRecipientsCsv(ctx, tenant.workspaceId, id),
      `campaign-${id}-results`,
    );
  });
  const actions = {
    pause: svc.pauseCampaign,
    resume: svc.resumeCampaign,
    cancel: svc.cancelCampaign,
    "resend-failed": svc.resendFailed,
  } as const;
  for (const [name, fn] of Object.entries(actions)) {
    app.post(`/api/campaigns/:id/${name}`, async (req) => {
      const tenant = requireTenant(req);
      const id = pathId(req, "Campaign");
      return { success: true, ...(await fn(ctx, tenant.workspaceId, id)) };
    });
  }

  // --- vendor webhooks (no session; authenticated by signature / basic auth; replay-protected) ---
  app.post("/api/webhooks/twilio/status", async (req, reply) => {
    const params = twilioFormParams(req.body);
    if (!twilioRequestSigned(ctx.env, req, params))
      return reply.status(403).send({ success: false, error: "Invalid Twilio signature" });
    const result = await handleTwilioStatus(ctx, params, twilioEventKey(params));
    return { success: true, result };
  });
  // a ringless voicemail drop's outcome from Drop Cowboy (the drop's callback_url). Drop Cowboy signs
  // nothing: the path's token, an HMAC of the drop's foreign_id, is checked before anything is read
  // or recorded (a wrong one is a 401 that changes nothing); replays change nothing (handleVoicemailStatus)
  app.post(`${VOICEMAIL_STATUS_PATH}/:token`, { bodyLimit: 16 * 1024 }, async (req, reply) => {
    const { token } = req.params as { token: string };
    const body = parseInput(dropCowboyRvmCallback, req.body);
    if (!voicemailStatusTokenValid(ctx.env, body.foreign_id, token))
      return reply
        .status(401)
        .send({ success: false, error: "This callback URL is not valid for this voicemail drop" });
    return { success: true, result: await handleVoicemailStatus(ctx, body) };
  });
  // an inbound SMS (Twilio: the number's messaging webhook, signed; local SMS provider outside
  // production: the dev outbox's "Reply" form, unsigned, so STOP/START/HELP can be tried offline)
  app.post("/api/webhooks/twilio/inbound", async (req, reply) => {
    const params = twilioFormParams(req.body);
    const devReply = ctx.env.SMS_PROVIDER === "local" && !ctx.env.isProduction;
    const signature = req.headers["x-twilio-signature"];
    if ((signature || !devReply) && !twilioRequestSigned(ctx.env, req, params))
      return reply.status(403).send({ success: false, error: "Invalid Twilio signature" });
    if (!signature && !params.MessageSid) params.MessageSid = `dev-${randomUUID()}`;
    const text = await handleTwilioInbound(ctx, params, twilioInboundKey(params));
    return reply.type("text/xml").send(twimlReply(text));
  });
  // a key pressed during an AI call (its keypress opt-out offer): the signed URL says whose call it
  // was; with the Twilio voice provider the request must also carry Twilio's signature
  postKeypressOptOut(app, ctx, CALL_OPT_OUT_PATH, readCallOptOut, (target, params) =>
    handleCallKeypress(ctx, target, params),
  );
  // an inbound call to the callback number a voicemail gives: the opt-out menu (Twilio: the number's
  // voice webhook, signed; local provider: the dev outbox's "Call back" button, never in production)
  app.post(INBOUND_CALL_PATH, async (req, reply) => {
    const params = twilioFormParams(req.body);
    if (ctx.env.VOICE_PROVIDER === "twilio") {
      if (!twilioRequestSigned(ctx.env, req, params))
        return reply.status(403).send({ success: false, error: "Invalid Twilio signature" });
    } else if (ctx.env.isProduction) {
      throw new AppError("NOT_FOUND", "Not found");
    }
    return reply.type("text/xml").send(await handleInboundCall(ctx, params));
  });
  // the key pressed in that menu: the signed URL names the caller's number
  postKeypressOptOut(app, ctx, CALLBACK_OPT_OUT_PATH, readCallbackOptOut, (phone, params) =>
    handleCallbackKeypress(ctx, phone, params),
  );
  // a call's TwiML too long to go inline (Twilio voice provider, `Url` with Method=GET): only to Twilio
  app.get(`${TWIML_DOCUMENT_PATH}/:id`, async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!twilioRequestSigned(ctx.env, req, {}))
      return reply.status(403).send({ success: false, error: "Invalid Twilio signature" });
    const twiml = (await ctx.providers.voice.storedTwiml?.(id)) ?? null;
    if (!twiml) throw new AppError("NOT_FOUND", "Call instructions not found");
    return reply.type("text/xml").send(twiml);
  });
  app.post("/api/webhooks/postmark", async (req, reply) => {
    if (!verifyPostmarkAuth(ctx, req.headers.authorization))
      return reply
        .status(401)
        .header("www-authenticate", 'Basic realm="postmark"')
        .send({ success: false, error: "Unauthorized" });
    const body = req.body;
    if (!body || typeof body !== "object" || Array.isArray(body))
      throw new AppError("BAD_REQUEST", "Expected a Postmark webhook JSON object");
    const result = await handlePostmarkEvent(ctx, body as Record<string, unknown>);
    return { success: true, result };
  });

  // --- public pages ---
  // a test email's unsubscribe link (campaigns.content TEST_EMAIL_TOKEN): says what it does, changes nothing
  const testUnsubscribe = (reply: FastifyReply) =>
    page(
      reply,
      200,
      "Unsubscribe (test email)",
      "<p>This link came in a test email, so it unsubscribes nobody. In your campaign, each recipient's link opens their own unsubscribe page.</p>",
    );
  const unsubscribed = async (
    reply: FastifyReply,
    r: Parameters<typeof optOutScope>[1] & { address: string },
  ) =>
    page(
      reply,
      200,
      "You are unsubscribed",
      `<p><strong>${mask(r.address)}</strong> will receive no more ${await optOutScope(ctx, r)}.</p>`,
    );
  app.get("/u/:token", async (req, reply) => {
    const { token } = req.params as { token: string };
    if (token === TEST_EMAIL_TOKEN) return testUnsubscribe(reply);
    const r = await recipientByToken(ctx.db, token);
    if (!r)
      return page(reply, 404, "Link not valid", "<p>This unsubscribe link is not valid or has expired.</p>");
    // opened again after unsubscribing (or opted out another way): say so, do not ask again
    if (await recipientOptedOut(ctx, r)) return unsubscribed(reply, r);
    return page(
      reply,
      200,
      "Unsubscribe",
      `<p>Stop receiving ${await optOutScope(ctx, r)} at <strong>${mask(r.address)}</strong>?</p><form method="post"><button type="submit">Unsubscribe</button></form>`,
    );
  });
  // RFC 8058: the mail client POSTs "List-Unsubscribe=One-Click" (form-encoded); the page's button posts the same URL
  app.post("/u/:token", async (req, reply) => {
    const { token } = req.params as { token: string };
    if (token === TEST_EMAIL_TOKEN) return testUnsubscribe(reply);
    const oneClick = twilioFormParams(req.body)["List-Unsubscribe"] === "One-Click";
    const done = await unsubscribeByToken(ctx, token, oneClick ? "one-click" : "unsubscribe page");
    if (!done)
      return page(reply, 404, "Link not valid", "<p>This unsubscribe link is not valid or has expired.</p>");
    return unsubscribed(reply, done);
  });
  // tracked links carry their signature (/c/:token/:i/:signature); an unsigned or altered one is refused.
  // Fastify answers HEAD with the GET handler: a HEAD (link checkers, mail scanners) is redirected
  // like a GET but counts no click; so is a GET by a bot (isBotUserAgent: Safe Links-style scanners,
  // chat unfurlers, crawlers, scripts), since a person may be waiting behind the scanner
  const click = async (req: FastifyRequest, reply: FastifyReply) => {
    const { token, index, signature } = req.params as { token: string; index: string; signature?: string };
    const i = /^\d{1,3}$/.test(index) ? Number(index) : -1;
    const record = req.method !== "HEAD" && !isBotUserAgent(req.headers["user-agent"]);
    const url = i >= 0 ? await clickByToken(ctx, ctx.env.APP_SECRET, token, i, signature, { record }) : null;
    if (!url)
      return page(
        reply,
        404,
        "Link not found",
        "<p>This link is not valid: it may be incomplete or changed. Please use the link exactly as it appears in the message.</p>",
      );
    const location = locationOf(url);
    if (!location)
      return page(
        reply,
        400,
        "Link cannot be opened",
        `<p>This message links to <strong>${escapeHtml(url)}</strong>, which is not a web address a browser can open.</p>`,
      );
    return reply.redirect(location, 302);
  };
  app.get("/c/:token/:index", click);
  app.get("/c/:token/:index/:signature", click);
  // a voicemail drop's recording, for the voicemail provider to download (campaigns.voicemail.ts):
  // `/va/{campaignId}/{recipientId}/{signature}.mp3`, or the older per-campaign `/va/{campaignId}/{signature}.mp3`
  const voicemailAudio = async (
    reply: FastifyReply,
    req: FastifyRequest,
    campaignId: string,
    recipientId: string | null,
    file: string,
  ) => {
    const m = /^([A-Za-z0-9_-]{22})\.mp3$/.exec(file);
    const ids = /^\d{1,15}$/.test(campaignId) && (recipientId === null || /^\d{1,15}$/.test(recipientId));
    // the recording between the business's name and the opt-out sentence (47 CFR 64.1200(b))
    const audio =
      m && ids
        ? await voicemailAudioForDrop(
            ctx,
            Number(campaignId),
            recipientId === null ? null : Number(recipientId),
            m[1] as string,
          )
        : ({ kind: "not_found" } as const);
    if (audio.kind === "not_found") throw new AppError("NOT_FOUND", "Recording not found");
    // the audio cannot be made: a final answer (not a 5xx the provider would retry); the drop is
    // already marked failed with the reason the campaign report shows
    if (audio.kind === "failed")
      return reply
        .status(410)
        .header("cache-control", "no-store")
        .send({ success: false, error: audio.message });
    reply.header("Cross-Origin-Resource-Policy", "cross-origin");
    return sendMediaFile(ctx, req, reply, audio.media, "file", "private, max-age=300");
  };
  app.get("/va/:campaignId/:recipientId/:file", async (req, reply) => {
    const { campaignId, recipientId, file } = req.params as Record<string, string>;
    return voicemailAudio(reply, req, campaignId ?? "", recipientId ?? "", file ?? "");
  });
  app.get("/va/:campaignId/:file", async (req, reply) => {
    const { campaignId, file } = req.params as Record<string, string>;
    return voicemailAudio(reply, req, campaignId ?? "", null, file ?? "");
  });
}

/**
 * The Location a tracked link redirects to: the link as a URL serialises it (WHATWG URL `href`:
 * punycode host, path, query and fragment percent-encoded), so plain ASCII. A campaign keeps its links
 * as written ("https://例え.jp/menu"), and Node refuses a header with characters outside Latin-1
 * (ERR_INVALID_CHAR: the click answered 500). Null for a link no URL parser accepts (e.g. a port
 * above 65535).
 */
function locationOf(link: string): string | null {
  try {
    return new URL(link).href;
  } catch {
    return null;
  }
}
