/**
 * Finding the http(s) links in a text a user wrote (pure; shared by the server and the client's SMS
 * counter, like lib/contrast.ts). Every place that finds links in a campaign text uses it, so they
 * find the same links in the same order and a link's number (content.links) names the same URL
 * everywhere: campaigns.content extractLinks and its placeholders (email and SMS rendering),
 * emails/campaign-email (the HTML part's <a> tags), campaigns/sms-segments sentSmsSegments (the
 * tracked links' length in the segment count) and the dev outbox.
 *
 * Detection is linkify-it's (the link rules of markdown-it): `(see https://x.example/a)` leaves the
 * bracket out while `https://en.wikipedia.org/wiki/Foo_(bar)` keeps its balanced one, `<https://x>`
 * and `"https://x"` leave the angle brackets and quotes out. On top of it, punctuation that ends a
 * sentence or a quotation right after a link stays outside it, as Gmail and Mailchimp do: `.` `,`
 * `:` `;` `!` `?` `…`, closing quotes and a closing bracket without its opening one, also when
 * linkify-it keeps them ("https://x.example/a.)" -> "https://x.example/a"). Only http and https
 * links are found (no `mailto:`, `ftp:`, `//host` or bare domains: only they are tracked).
 */
import { LinkifyIt } from "linkify-it";

let linkify: LinkifyIt | undefined;

/** The one linkify-it instance, made on first use (so a client chunk that finds no links leaves it out). */
function linkifier(): LinkifyIt {
  linkify ??= new LinkifyIt({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false, urlAuth: true })
    .add("ftp:", null)
    .add("mailto:", null)
    .add("//", null);
  return linkify;
}

/** Characters that end a sentence, clause or quotation: never the last character of a found link. */
const TRAILING = new Set(Array.from(".,:;!?…'\"’”»›。"));
const OPENER: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n += 1;
  return n;
}

/** `raw` without the trailing punctuation and unbalanced closing brackets that belong to the text. */
function trimTrailing(raw: string): string {
  let url = raw;
  for (;;) {
    const last = url.at(-1) ?? "";
    const opener = OPENER[last];
    if (TRAILING.has(last) || (opener !== undefined && count(url, opener) < count(url, last)))
      url = url.slice(0, -1);
    else return url;
  }
}

/** One link found in a text: the URL as written and where it is (`text.slice(index, end) === url`). */
export interface FoundLink {
  url: string;
  index: number;
  end: number;
}

/**
 * The http(s) links in `text`, in order of appearance (duplicates included), each as written, without
 * the sentence's punctuation after it.
 * @example findHttpLinks("Read https://x.example/page. Thanks") -> [{url: "https://x.example/page", index: 5, end: 27}]
 */
export function findHttpLinks(text: string): FoundLink[] {
  const out: FoundLink[] = [];
  for (const m of linkifier().match(text) ?? []) {
    const url = trimTrailing(m.raw);
    if (/^https?:\/\/./i.test(url)) out.push({ url, index: m.index, end: m.index + url.length });
  }
  return out;
}

/**
 * `text` with each http(s) link that findHttpLinks finds replaced by `replace(url, n)` (`n`: its
 * position among the found links, from 0); the text around the links, their punctuation included,
 * stays as it is.
 * @example replaceHttpLinks("See https://x.example/a.", () => "LINK") === "See LINK."
 */
export function replaceHttpLinks(text: string, replace: (url: string, n: number) => string): string {
  let out = "";
  let at = 0;
  findHttpLinks(text).forEach((link, n) => {
    out += text.slice(at, link.index) + replace(link.url, n);
    at = link.end;
  });
  return out + text.slice(at);
}
