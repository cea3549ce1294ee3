import { Parser } from "htmlparser2";
import robotsParser from "robots-parser";
import { AppError } from "../../lib/errors";
import { safeFetch } from "../../lib/outbound";

/**
 * Website enrichment of business search results (issue 13): visits a result's website to find public
 * email addresses, social profile links and a contact form. Rules:
 * - HTTPS first: an http:// website is tried as https:// first, plain http only when that fails to
 *   connect (a refused address is not retried);
 * - robots.txt is fetched first and honoured for our user agent (RFC 9309: a 4xx robots.txt allows
 *   everything, an unreachable one (5xx, network error) disallows everything);
 * - at most 3 pages per site: the home page, then its contact and about pages (links found on the
 *   home page, else /contact and /about), same host only;
 * - every request goes through lib/outbound.ts `safeFetch` (public addresses only after DNS
 *   resolution, redirects re-checked hop by hop, OUTBOUND_ALLOWED_HOSTS the only exception), with
 *   5 s and 1 MiB per page (a longer page is cut and only its first 1 MiB read).
 */

/** User agent sent to websites and matched against robots.txt groups. */
export const ENRICH_USER_AGENT = "PitchwiseBot";
/** Per-page limits (issue 13). */
export const ENRICH_PAGE_TIMEOUT_MS = 5000;
export const ENRICH_PAGE_MAX_BYTES = 1024 * 1024;
export const ENRICH_MAX_PAGES = 3;

export interface EnrichedSite {
  /** the best public email found (one on the site's own domain first), or null */
  email: string | null;
  /** every distinct email found, at most 10 */
  emails: string[];
  socials: { facebook?: string; instagram?: string; linkedin?: string; twitter?: string; youtube?: string };
  hasContactForm: boolean;
  /** pages fetched (robots.txt not counted), with status and whether the 1 MiB cap cut them */
  pages: { url: string; status: number; truncated: boolean }[];
  /** pages robots.txt disallowed, refused by the SSRF guard, or failed: with the reason */
  skipped: { url: string; reason: string }[];
  /** "ok" when at least one page answered (< 400); "blocked" when robots.txt kept us out */
  status: "ok" | "blocked" | "failed";
}

const SOCIAL_HOSTS: [keyof EnrichedSite["socials"], RegExp, RegExp | null][] = [
  ["facebook", /(^|\.)facebook\.com$|(^|\.)fb\.com$/, /\/(sharer|share|dialog|plugins)/i],
  ["instagram", /(^|\.)instagram\.com$/, null],
  ["linkedin", /(^|\.)linkedin\.com$/, /\/(share|sharing)/i],
  ["twitter", /(^|\.)twitter\.com$|^(www\.)?x\.com$/, /\/(intent|share)/i],
  ["youtube", /(^|\.)youtube\.com$|^youtu\.be$/, /\/(embed|watch)/i],
];
/** One whole token that is an email address (tokens are tried only when they contain '@'). */
const EMAIL_RE = /^[A-Z0-9._%+-]{1,64}@[A-Z0-9-]{1,63}(?:\.[A-Z0-9-]{1,63}){0,8}\.[A-Z]{2,24}$/i;
/** Characters that end an email-looking token in page text. */
const TOKEN_SPLIT = /[\s<>()[\]{}"'`,;:!?|\\/*=&^~#$]+/;
const NOT_EMAIL_TLD = /\.(png|jpe?g|gif|svg|webp|avif|ico|css|js)$/i;

interface PageFacts {
  links: { href: string; text: string }[];
  emails: Set<string>;
  hasContactForm: boolean;
}

/** Links (with their text), emails in mailto links and visible text, and contact forms of an HTML page. */
export function parsePage(html: string): PageFacts {
  const facts: PageFacts = { links: [], emails: new Set(), hasContactForm: false };
  let skipText = 0;
  let link: { href: string; text: string } | null = null;
  let form: { email: boolean; textarea: boolean } | null = null;
  // Linear time on hostile pages: text is split into tokens and only tokens with an '@' of at most
  // 254 characters are matched, whole, against an anchored pattern (no backtracking over long runs).
  const addEmails = (s: string) => {
    if (!s.includes("@")) return;
    for (const raw of s.split(TOKEN_SPLIT)) {
      if (raw.length > 254 || !raw.includes("@")) continue;
      const e = raw.replace(/^[._%+-]+|[._%+-]+$/g, "").toLowerCase();
      if (EMAIL_RE.test(e) && !NOT_EMAIL_TLD.test(e)) facts.emails.add(e);
    }
  };
  // text arrives in pieces (entities such as &#64; are separate pieces): joined, tags as spaces
  const text: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        text.push(" ");
        if (name === "script" || name === "style" || name === "noscript") skipText++;
        if (name === "a" && attrs.href) {
          link = { href: attrs.href.trim(), text: "" };
          if (/^mailto:/i.test(link.href)) {
            const addr = decodeURIComponentSafe(link.href.slice(7).split("?")[0] ?? "");
            for (const a of addr.split(",")) addEmails(a.trim());
          }
        }
        if (name === "form") form = { email: false, textarea: false };
        if (form && name === "input" && (attrs.type === "email" || /e-?mail/i.test(attrs.name ?? "")))
          form.email = true;
        if (form && name === "textarea") form.textarea = true;
      },
      ontext(piece) {
        if (skipText) return;
        if (link) link.text += piece;
        text.push(piece);
      },
      onclosetag(name) {
        text.push(" ");
        if (name === "script" || name === "style" || name === "noscript")
          skipText = Math.max(0, skipText - 1);
        if (name === "a" && link) {
          facts.links.push(link);
          link = null;
        }
        if (name === "form" && form) {
          if (form.email || form.textarea) facts.hasContactForm = true;
          form = null;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  addEmails(text.join(""));
  return facts;
}

function decodeURIComponentSafe(s: string) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The social profile a link points to, if any (share buttons and embeds are not profiles). */
export function socialOf(href: string): [keyof EnrichedSite["socials"], string] | null {
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return null;
  const host = u.hostname.toLowerCase();
  for (const [name, hostRe, notProfile] of SOCIAL_HOSTS)
    if (hostRe.test(host)) {
      if (notProfile?.test(u.pathname) || u.pathname.replace(/\/+$/, "") === "") return null;
      return [name, `https://${host}${u.pathname.replace(/\/+$/, "")}`];
    }
  return null;
}

/** Fetches one URL under the page limits; AppError BAD_REQUEST means refused, BAD_GATEWAY unreachable. */
async function fetchPage(url: string, allowedHosts: string[], maxBytes = ENRICH_PAGE_MAX_BYTES) {
  return safeFetch(url, {
    allowedHosts,
    timeoutMs: ENRICH_PAGE_TIMEOUT_MS,
    maxBytes,
    headers: {
      "user-agent": `${ENRICH_USER_AGENT}/1.0 (business lead enrichment)`,
      accept: "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.5",
    },
  });
}

const reasonOf = (e: unknown) =>
  e instanceof AppError ? e.message : e instanceof Error ? e.message : "request failed";

/**
 * Enriches one website (rules in the module comment). Never throws for a site problem: the result's
 * `status` and `skipped` tell what happened. `allowedHosts` is OUTBOUND_ALLOWED_HOSTS, parsed.
 */
export async function enrichWebsite(website: string, allowedHosts: string[]): Promise<EnrichedSite> {
  const out: EnrichedSite = {
    email: null,
    emails: [],
    socials: {},
    hasContactForm: false,
    pages: [],
    skipped: [],
    status: "failed",
  };
  let start: URL;
  try {
    start = new URL(/^https?:\/\//i.test(website) ? website : `https://${website}`);
  } catch {
    out.skipped.push({ url: website, reason: "not a valid URL" });
    return out;
  }
  // HTTPS first: find the origin that answers (robots.txt is the first request to it)
  const candidates =
    start.protocol === "http:" ? [new URL(start.href.replace(/^http:/i, "https:")), start] : [start];
  let origin: URL | null = null;
  let robots: ReturnType<typeof robotsParser> | null = null;
  for (const c of candidates) {
    const robotsUrl = new URL("/robots.txt", c).toString();
    try {
      const r = await fetchPage(robotsUrl, allowedHosts, 512 * 1024);
      origin = new URL(r.url);
      // RFC 9309 2.3.1: 4xx "unavailable" allows everything; 5xx "unreachable" disallows everything
      robots =
        r.status >= 500
          ? robotsParser(robotsUrl, "User-agent: *\nDisallow: /")
          : robotsParser(robotsUrl, r.status >= 200 && r.status < 300 ? r.text : "");
      break;
    } catch (e) {
      out.skipped.push({ url: robotsUrl, reason: reasonOf(e) });
      // a refused address is refused over either scheme; an unreachable https may still answer on http
      if (e instanceof AppError && e.code === "BAD_REQUEST") return out;
    }
  }
  if (!origin || !robots) return out;
  const home = new URL(start.pathname + start.search, origin).toString();
  const site = origin;
  // the contact and about pages: links of the home page on the same host, else the usual paths
  let next = [new URL("/contact", site).toString(), new URL("/about", site).toString()];
  const pick = (links: PageFacts["links"], base: string, re: RegExp, fallback: string) => {
    for (const l of links) {
      try {
        const abs = new URL(l.href, base);
        if (abs.host === site.host && (re.test(abs.pathname) || re.test(l.text))) {
          abs.hash = "";
          return abs.toString();
        }
      } catch {}
    }
    return fallback;
  };
  const found = new Set<string>();
  let blocked = 0;
  const seen = new Set<string>();
  for (let i = 0; i < ENRICH_MAX_PAGES; i++) {
    const url = i === 0 ? home : (next[i - 1] as string);
    if (seen.has(url)) continue;
    seen.add(url);
    if (robots.isAllowed(url, ENRICH_USER_AGENT) === false) {
      out.skipped.push({ url, reason: "disallowed by robots.txt" });
      blocked++;
      continue;
    }
    let page: Awaited<ReturnType<typeof fetchPage>>;
    try {
      page = await fetchPage(url, allowedHosts);
    } catch (e) {
      out.skipped.push({ url, reason: reasonOf(e) });
      continue;
    }
    out.pages.push({ url: page.url, status: page.status, truncated: page.truncated });
    const type = page.headers.get("content-type") ?? "";
    if (page.status >= 400 || (type && !/html|text\/plain/i.test(type))) continue;
    const facts = parsePage(page.text);
    for (const e of facts.emails) found.add(e);
    if (facts.hasContactForm) out.hasContactForm = true;
    for (const l of facts.links) {
      let abs: URL;
      try {
        abs = new URL(l.href, page.url);
      } catch {
        continue;
      }
      const social = socialOf(abs.toString());
      if (social && !out.socials[social[0]]) out.socials[social[0]] = social[1];
    }
    if (i === 0)
      next = [
        pick(facts.links, page.url, /contact/i, next[0] as string),
        pick(facts.links, page.url, /about/i, next[1] as string),
      ];
  }
  const own = site.hostname.replace(/^www\./, "");
  out.emails = [...found].slice(0, 10);
  out.email = out.emails.find((e) => e.endsWith(`@${own}`) || e.endsWith(`.${own}`)) ?? out.emails[0] ?? null;
  out.status = out.pages.some((p) => p.status < 400) ? "ok" : blocked > 0 ? "blocked" : "failed";
  return out;
}
