/**
 * SMS segment math (pure; shared by the server and the builder's live counter).
 *
 * Source: 3GPP TS 23.038 (GSM 7-bit default alphabet and its extension table) and TS 23.040
 * (concatenated SMS: a 6-byte user-data header leaves 153 septets per part for GSM-7, 67 UTF-16
 * code units per part for UCS-2). A message with any character outside GSM-7 is sent as UCS-2.
 * Extension characters (`^{}\[~]|€` and form feed) take two septets and are never split across parts;
 * a UCS-2 surrogate pair (e.g. an emoji) is never split either (Twilio behaves the same way).
 */

import { replaceHttpLinks } from "../../lib/links";
import { firstTextBody } from "../compliance/sms-keywords";

const GSM7_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM7_EXTENDED = "\f^{}\\[~]|€";
const BASIC = new Set(Array.from(GSM7_BASIC));
const EXTENDED = new Set(Array.from(GSM7_EXTENDED));

export type SmsEncoding = "GSM-7" | "UCS-2";

export interface SmsSegmentInfo {
  encoding: SmsEncoding;
  /** septets (GSM-7) or UTF-16 code units (UCS-2) */
  units: number;
  /** characters as the user sees them (code points) */
  characters: number;
  segments: number;
  /** capacity of one part at this length: 160/153 (GSM-7) or 70/67 (UCS-2) */
  perSegment: number;
  /** units left in the current (last) part */
  remaining: number;
}

/** True when every character of `text` is in the GSM 03.38 basic or extension table. */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (!BASIC.has(ch) && !EXTENDED.has(ch)) return false;
  return true;
}

/**
 * Counts the segments `text` is sent as. Empty text counts as 1 segment (a message is still sent).
 * @example smsSegments("a".repeat(160)).segments === 1; smsSegments("a".repeat(161)).segments === 2
 */
export function smsSegments(text: string): SmsSegmentInfo {
  const chars = Array.from(text);
  const gsm = isGsm7(text);
  const single = gsm ? 160 : 70;
  const multi = gsm ? 153 : 67;
  const cost = (ch: string) => (gsm ? (EXTENDED.has(ch) ? 2 : 1) : ch.length);
  const units = chars.reduce((n, ch) => n + cost(ch), 0);
  if (units <= single) {
    return {
      encoding: gsm ? "GSM-7" : "UCS-2",
      units,
      characters: chars.length,
      segments: 1,
      perSegment: single,
      remaining: single - units,
    };
  }
  // greedy split: a character that does not fit whole starts the next part
  let segments = 1;
  let used = 0;
  for (const ch of chars) {
    const c = cost(ch);
    if (used + c > multi) {
      segments += 1;
      used = 0;
    }
    used += c;
  }
  return {
    encoding: gsm ? "GSM-7" : "UCS-2",
    units,
    characters: chars.length,
    segments,
    perSegment: multi,
    remaining: multi - used,
  };
}

/**
 * The length of a tracked click link as a recipient gets it: `appUrl/c/{token}/{i}/{signature}`
 * (a 26-character recipient token: 16 random bytes in base32; a 22-character signature).
 */
function trackedLinkLength(appUrl: string, index: number): number {
  return `${appUrl.replace(/\/+$/, "")}/c/`.length + 26 + 1 + String(index).length + 1 + 22;
}

/**
 * The segments a campaign text is sent as when it is a number's first text from the workspace:
 * `text` (merged for one recipient, e.g. the builder's preview) with each distinct link replaced by
 * its tracked link on `appUrl` (campaigns.content fillUrls; links found by lib/links findHttpLinks, as
 * the engine finds them, so a full stop after a link stays outside it), led by "<business>: " unless it names
 * `business` (the workspace's sender name, else its name: what `{{my_business}}` renders to) and with
 * "Reply STOP to opt out" on a new line unless the text already says how to opt out by reply
 * (compliance firstTextBody, as campaigns.content renderSmsFor sends it). What the builder's counter
 * and review show beside the template's own count: the name, the notice and the tracked links can
 * add a segment, and a merged value outside GSM-7 (a name such as "Zoë") makes the whole text UCS-2
 * (70 / 67 per part).
 */
export function sentSmsSegments(text: string, appUrl: string, business: string): SmsSegmentInfo {
  const links: string[] = [];
  const withLinks = replaceHttpLinks(text, (url) => {
    let i = links.indexOf(url);
    if (i < 0) i = links.push(url) - 1;
    return "x".repeat(trackedLinkLength(appUrl, i));
  });
  return smsSegments(firstTextBody(withLinks.trim(), business));
}
