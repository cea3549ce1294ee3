import type { Campaign, CampaignChannel, CampaignContent, Contact } from "../../db/schema";
import { postalAddressLine, renderCampaignEmail } from "../../emails/campaign-email";
import { emailSubjectLine } from "../../lib/email-subject";
import { findHttpLinks, replaceHttpLinks } from "../../lib/links";
import {
  escapeHtml,
  type MergeContact,
  MY_BUSINESS_TAG,
  renderMergeTags,
  toMergeTags,
} from "../../lib/merge-tags";
import { sign, verifySignature } from "../../lib/signing";
import { SMS_MAX_CHARACTERS } from "../../providers/sms";
import { firstTextBody } from "../compliance/sms-keywords";
import { deliveryKind } from "./campaigns.delivery";
import { smsSegments } from "./sms-segments";

export { SMS_OPT_OUT_NOTICE } from "../compliance/sms-keywords";

const LINK_PLACEHOLDER = (i: number) => `https://pwlink.invalid/${i}`;
const UNSUB_PLACEHOLDER = "https://pwunsub.invalid/";
const VIDEO_PLACEHOLDER = "https://pwvideo.invalid/";
/**
 * Where the postal address goes in a compiled template: filled after merge tags and links, so an
 * address is never read as a merge tag ("Suite {{name}}", "[company]") or a link placeholder.
 */
const ADDRESS_PLACEHOLDER = "PWPOSTALADDRESS7F3C";

/**
 * Distinct http(s) links in the texts (at most 50), in order of appearance, as lib/links findHttpLinks
 * finds them (a sentence's full stop or comma after a link is not part of it); clicks are tracked
 * through /c/:token/:i.
 */
export function extractLinks(...texts: (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const t of texts)
    for (const { url } of findHttpLinks(t ?? "")) if (!out.includes(url) && out.length < 50) out.push(url);
  return out;
}

/**
 * `text` with each link findHttpLinks finds there that is the campaign's link number i replaced by
 * its placeholder (the links the engine renders, email HTML and SMS segment counts all find); a link
 * that is not one of `links` (past the 50 tracked) and the text around links stay as they are.
 */
function withPlaceholders(text: string, links: readonly string[]): string {
  return replaceHttpLinks(text, (url) => {
    const i = links.indexOf(url);
    return i < 0 ? url : LINK_PLACEHOLDER(i);
  });
}

export interface RenderEnv {
  appUrl: string;
  senderName: string;
  /**
   * the workspace's physical postal address (workspaces SenderProfile `postalAddress`, free text,
   * may hold line breaks), shown in the footer as one line; null or absent: the footer has none
   */
  postalAddress?: string | null;
}

/**
 * The From header of a campaign email: the workspace's sender name as the display name, on the
 * verified sending address of `EMAIL_FROM` (providers such as Postmark send only from verified
 * sender signatures, so the address stays; the name is what recipients see), e.g.
 * `"Sam's Plumbing" <hello@pitchwise.local>`. An empty name keeps `EMAIL_FROM` as it is.
 */
export function senderFrom(senderName: string | null | undefined, emailFrom: string): string {
  const address = /<([^>]+)>/.exec(emailFrom)?.[1]?.trim() ?? emailFrom.trim();
  const name = (senderName ?? "")
    .replace(/[\r\n"\\<>]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 100);
  return name ? `"${name}" <${address}>` : emailFrom;
}

/** Extra merge values every channel renders with (the sender's business, from the launch snapshot). */
function contentExtra(content: CampaignContent): Record<string, string> {
  return { [MY_BUSINESS_TAG]: content.myBusiness ?? "" };
}

/** Where recipient links point and the secret their click links are signed with (the app's `Env` fits). */
export interface LinkEnv {
  APP_URL: string;
  APP_SECRET: string;
}

/**
 * The signature of a click link: HMAC (APP_SECRET) over the recipient's token, the link number and
 * the destination itself, so a link works only for the message it was sent in and only while it
 * still leads where it led when sent (issue 11: no redirect to a target the server did not sign).
 */
export function clickSignature(secret: string, token: string, index: number, target: string): string {
  return sign(secret, "click", [token, index, target]);
}

/** True when `signature` is the one `clickSignature` gives for this token, link number and destination. */
export function verifyClickSignature(
  secret: string,
  token: string,
  index: number,
  target: string,
  signature: string | undefined,
): boolean {
  return verifySignature(secret, "click", [token, index, target], signature);
}

/**
 * Public URLs of one recipient: `unsubscribe` (/u/:token) and `click(i)`, the signed tracking
 * link /c/:token/:i/:signature of the campaign's link number `i` (`links[i]`).
 */
export function recipientUrls(env: LinkEnv, token: string, links: readonly string[] = []) {
  return {
    unsubscribe: `${env.APP_URL}/u/${token}`,
    click: (i: number) =>
      `${env.APP_URL}/c/${token}/${i}/${clickSignature(env.APP_SECRET, token, i, links[i] ?? "")}`,
  };
}

/** The per-recipient landing page of a video campaign (`content.landingUrl` with `{{token}}`). */
export function videoUrlFor(content: CampaignContent, token: string): string | null {
  return content.landingUrl ? content.landingUrl.split("{{token}}").join(token) : null;
}

/**
 * The recipient token of a test email (campaigns.service sendTestEmail): no recipient has it (tokens
 * are 20 characters), its links go straight to their targets (nothing to track) and its unsubscribe
 * link, /u/test, opens a page saying what the link does in a real send.
 */
export const TEST_EMAIL_TOKEN = "test";

function fillUrls(s: string, env: LinkEnv, token: string, videoUrl: string | null, links: readonly string[]) {
  const tracked = recipientUrls(env, token, links);
  const urls =
    token === TEST_EMAIL_TOKEN ? { ...tracked, click: (i: number) => links[i] ?? env.APP_URL } : tracked;
  return s
    .replace(/https:\/\/pwlink\.invalid\/(\d+)/g, (_m, i: string) => urls.click(Number(i)))
    .split(UNSUB_PLACEHOLDER)
    .join(urls.unsubscribe)
    .split(VIDEO_PLACEHOLDER)
    .join(videoUrl ?? "");
}

/** A campaign's email rendered once with placeholders, then filled per recipient (fast for 10k+). */
export interface EmailTemplate {
  subject: string;
  html: string;
  text: string;
  /** the footer's postal address as one line (emails postalAddressLine); "" or absent: none */
  postalAddress?: string;
}

/** Renders the React Email template once for a campaign (merge tags and links left as placeholders). */
export async function buildEmailTemplate(
  campaign: Pick<Campaign, "content" | "channel">,
  env: RenderEnv,
): Promise<EmailTemplate> {
  const c = campaign.content;
  const links = c.links ?? [];
  const isVideo = campaign.channel === "video_email";
  let body = withPlaceholders(c.body ?? c.message ?? "", links);
  if (isVideo) body = body.split("{{video_url}}").join(VIDEO_PLACEHOLDER);
  const postalAddress = postalAddressLine(env.postalAddress);
  const { html, text } = await renderCampaignEmail({
    body,
    signature: c.signature,
    senderName: env.senderName,
    postalAddress: postalAddress ? ADDRESS_PLACEHOLDER : null,
    unsubscribeUrl: UNSUB_PLACEHOLDER,
    video: isVideo ? { url: VIDEO_PLACEHOLDER, title: c.videoTitle, thumbnailUrl: c.thumbnailUrl } : null,
  });
  return { subject: c.subject ?? "", html, text, postalAddress };
}

/**
 * One recipient's email: subject, HTML, text (the footer with the template's postal address, HTML-escaped
 * in the HTML part) and the RFC 8058 one-click unsubscribe headers. The subject is the template's
 * filled in as one header line (lib/email-subject emailSubjectLine: no line break or control
 * character, cut at a word boundary with an ellipsis past EMAIL_SUBJECT_MAX_LENGTH).
 */
export function renderEmailFor(
  tpl: EmailTemplate,
  content: CampaignContent,
  contact: MergeContact,
  token: string,
  env: LinkEnv,
) {
  const videoUrl = videoUrlFor(content, token);
  const extra = { ...contentExtra(content), ...(videoUrl ? { video_url: videoUrl } : {}) };
  const links = content.links ?? [];
  const unsubscribe = recipientUrls(env, token).unsubscribe;
  const address = tpl.postalAddress ?? "";
  return {
    subject: emailSubjectLine(renderMergeTags(tpl.subject, contact, { extra })),
    html: fillUrls(
      renderMergeTags(tpl.html, contact, { extra, escape: escapeHtml }),
      env,
      token,
      videoUrl,
      links,
    )
      .split(ADDRESS_PLACEHOLDER)
      .join(escapeHtml(address)),
    text: fillUrls(renderMergeTags(tpl.text, contact, { extra }), env, token, videoUrl, links)
      .split(ADDRESS_PLACEHOLDER)
      .join(address),
    headers: {
      "List-Unsubscribe": `<${unsubscribe}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}

/**
 * One recipient's SMS text: merged message with tracked links (and the video landing URL for
 * video_sms). A number's first message from the workspace (`firstMessage`) is led by
 * "<business>: " (the sender name snapshotted at launch, `content.myBusiness`) unless it names the
 * business, and ends with "Reply STOP to opt out" unless the text already says how to opt out by
 * reply (compliance firstTextBody; CTIA: the first message identifies the sender).
 */
export function renderSmsFor(
  content: CampaignContent,
  contact: MergeContact,
  token: string,
  env: LinkEnv,
  firstMessage: boolean,
) {
  const videoUrl = videoUrlFor(content, token);
  let tpl = withPlaceholders(content.message ?? content.body ?? "", content.links ?? []);
  if (videoUrl)
    tpl = tpl.includes("{{video_url}}")
      ? tpl.split("{{video_url}}").join(VIDEO_PLACEHOLDER)
      : `${tpl.trim()} ${VIDEO_PLACEHOLDER}`;
  let body = fillUrls(
    renderMergeTags(tpl, contact, { extra: contentExtra(content) }),
    env,
    token,
    videoUrl,
    content.links ?? [],
  ).trim();
  // the notice is left out only when the text itself says how to opt out, not when it merely uses
  // the word ("Stop by our shop Saturday!"); the name only when the text names the business
  if (firstMessage) body = firstTextBody(body, content.myBusiness ?? "");
  return { body, segments: smsSegments(body).segments };
}

/**
 * The skip reason of a text (SMS or video SMS recipient) that, once filled in, passes
 * SMS_MAX_CHARACTERS (Twilio refuses longer bodies, error 21617): "message too long once filled in
 * (over 1,600 characters)". One reason whatever each recipient's length, so a launch's and its
 * preflight's skipped counts (and the review step, the report, a 422's sentence) give it one line.
 */
export const SMS_TOO_LONG = `message too long once filled in (over ${SMS_MAX_CHARACTERS.toLocaleString("en-US")} characters)`;

/**
 * A launch's check of each recipient's SMS (and video SMS) once filled in (renderSmsFor: merge tags,
 * tracked links of a recipient token's length, the video URL), counted as the number's first text
 * (with the business name and "Reply STOP to opt out" where firstTextBody adds them: whether a
 * number was texted before is known only when it is sent, and a text Twilio would refuse is not sent
 * at all). Returns, for a contact, SMS_TOO_LONG when it passes SMS_MAX_CHARACTERS, else null. Merge
 * tags can lengthen a message without bound (a custom field holds 500 characters). `content` is the
 * launch's (launchContent: with `myBusiness` and `links`).
 */
export function smsLengthSkipReason(content: CampaignContent, env: LinkEnv): (c: Contact) => string | null {
  // a recipient's token (ids randomToken(16)) is 26 characters: the tracked links' length
  const token = "x".repeat(26);
  return (c) => {
    const { body } = renderSmsFor(content, mergeSource(c), token, env, true);
    return body.length <= SMS_MAX_CHARACTERS ? null : SMS_TOO_LONG;
  };
}

/**
 * The skip a launch applies to a recipient for what its message would be (campaigns.audience
 * classifyRecipients `contentSkip`): for texts (SMS, video SMS) smsLengthSkipReason, for other
 * channels none (undefined). `content` is the launch's (launchContent). The launch
 * (campaigns.service) and its preflight (campaigns.audience preflightAudience) both take it from
 * here, so the preflight counts the skips the launch then makes.
 */
export function launchContentSkip(
  channel: CampaignChannel,
  content: CampaignContent,
  env: LinkEnv,
): ((c: Contact) => string | null) | undefined {
  return deliveryKind(channel) === "sms" ? smsLengthSkipReason(content, env) : undefined;
}

/**
 * A launch's content as stored with its campaign and sent: `content` plus the sender's business name
 * (`myBusiness`: what {{my_business}} renders to and a first text is led by, snapshotted at launch),
 * an email's signature (the owner's, `emailSignature`), the message's tracked links (`links`,
 * extractLinks of body and message) and, for a video launch, the landing page button's link
 * (`ctaUrl`, appended after the message's links, its index kept as `ctaLink`). Returns a new object.
 * Used by the launch (campaigns.service) and its preflight, so both render the same text.
 */
export function launchContent(
  channel: CampaignChannel,
  content: CampaignContent,
  sender: { businessName: string; emailSignature?: string | null },
  ctaUrl?: string,
): CampaignContent {
  const out: CampaignContent = { ...content, myBusiness: sender.businessName };
  if (deliveryKind(channel) === "email") out.signature = sender.emailSignature ?? "";
  out.links = extractLinks(out.body, out.message);
  // a video landing page's button: its own link number, even when the message has the same URL
  if (ctaUrl) {
    out.ctaLink = out.links.length;
    out.links.push(ctaUrl);
  }
  return out;
}

/** Who a video campaign's default texts name as its sender: the business name, else the owner's name, else "We". */
export function videoSenderName(sender: { businessName: string; name: string }): string {
  return sender.businessName || sender.name || "We";
}

/** A video campaign recipient's landing page, `APP_URL/v/{{token}}` (videoUrlFor fills the token). */
export function videoLandingUrl(appUrl: string): string {
  return `${appUrl}/v/{{token}}`;
}

/**
 * The text of a video SMS launch (campaigns.video launchVideoCampaign) for the `message` typed:
 * trimmed, in the canonical merge tags (lib/merge-tags toMergeTags: `{name}` -> `{{name|there}}`),
 * or when empty "Hi {{name|there}}, <from> recorded a short video for you:" (`from`:
 * videoSenderName). renderSmsFor appends the landing page's URL unless the text places {{video_url}}.
 */
export function videoSmsMessage(message: string, from: string): string {
  return toMergeTags(message.trim()) || `Hi {{name|there}}, ${from} recorded a short video for you:`;
}

/** One recipient's AI call script or voicemail TTS text (merge tags rendered). */
export function renderScriptFor(content: CampaignContent, contact: MergeContact) {
  return renderMergeTags(content.script ?? content.message ?? "", contact, { extra: contentExtra(content) });
}

/** The contact as a merge-tag source. */
export function mergeSource(contact: Contact): MergeContact {
  return contact as unknown as MergeContact;
}
