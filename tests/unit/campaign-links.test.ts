import { describe, expect, it } from "vitest";
import type { CampaignContent } from "../../src/server/db/schema";
import {
  buildEmailTemplate,
  clickSignature,
  extractLinks,
  renderEmailFor,
  renderSmsFor,
  TEST_EMAIL_TOKEN,
} from "../../src/server/features/campaigns/campaigns.content";
import { sentSmsSegments, smsSegments } from "../../src/server/features/campaigns/sms-segments";
import { findHttpLinks, replaceHttpLinks } from "../../src/server/lib/links";

// QA: a link at the end of a sentence took the full stop or comma into it. "Read
// https://quinn.example.com/page. Thanks" went out as "Read <tracked link> Thanks" (the full stop
// gone from the text) and the tracked link redirected to "https://quinn.example.com/page." (a broken
// page); the HTML part linked href="https://quinn.example.com/page.", ".../p4," kept its comma.
// Gmail and Mailchimp leave a sentence's punctuation and closing quotes outside the link, keep a
// bracket that is part of the URL (Wikipedia's Foo_(bar)) and leave out the bracket a link is
// written in. Every place that finds links (extraction into content.links, the email's text and
// HTML, the SMS text and its segment count) finds the same ones in the same order (lib/links).

const env = { APP_URL: "https://app.test", APP_SECRET: "unit-test-secret-0123456789abcdef0123" };
const TOKEN = "tok123";
const click = (i: number, url: string) =>
  `${env.APP_URL}/c/${TOKEN}/${i}/${clickSignature(env.APP_SECRET, TOKEN, i, url)}`;

/** [text, the links in it in order, as a reader sees them] */
const cases: [string, string[]][] = [
  ["Read https://quinn.example.com/page. Thanks", ["https://quinn.example.com/page"]],
  ["See https://quinn.example.com/p4, then call", ["https://quinn.example.com/p4"]],
  [
    "Wow https://x.example/a! Really https://x.example/b? Yes; https://x.example/c; and https://x.example/d: done",
    ["https://x.example/a", "https://x.example/b", "https://x.example/c", "https://x.example/d"],
  ],
  ["Loud https://x.example/a!! and https://x.example/b?!", ["https://x.example/a", "https://x.example/b"]],
  ["Wiki https://en.wikipedia.org/wiki/Foo_(bar) here", ["https://en.wikipedia.org/wiki/Foo_(bar)"]],
  ["Wiki https://en.wikipedia.org/wiki/Foo_(bar).", ["https://en.wikipedia.org/wiki/Foo_(bar)"]],
  ["Wiki https://x.example/wiki/Foo_(bar)_baz, ok", ["https://x.example/wiki/Foo_(bar)_baz"]],
  ["Menu (see https://x.example/a) today", ["https://x.example/a"]],
  ["Menu (see https://x.example/a). Today", ["https://x.example/a"]],
  ["Menu (see https://x.example/a.) Today", ["https://x.example/a"]],
  ["Menu [https://x.example/a] and {https://x.example/b}", ["https://x.example/a", "https://x.example/b"]],
  [
    "Unbalanced https://x.example/a) and https://x.example/b]",
    ["https://x.example/a", "https://x.example/b"],
  ],
  ['He said "https://x.example/a". Then', ["https://x.example/a"]],
  ['He said "https://x.example/a." Then', ["https://x.example/a"]],
  ["He said 'https://x.example/a', then", ["https://x.example/a"]],
  [
    "He said “https://x.example/a.” Then ‘https://x.example/b’",
    ["https://x.example/a", "https://x.example/b"],
  ],
  ["Quote «https://x.example/a» ok", ["https://x.example/a"]],
  ["Wait https://x.example/a… and https://x.example/b...", ["https://x.example/a", "https://x.example/b"]],
  ["Query https://x.example/?q=1&r=2. Next", ["https://x.example/?q=1&r=2"]],
  ["Query https://x.example/a?b=c,d and more", ["https://x.example/a?b=c,d"]],
  ["Query https://x.example/a?x=(1). Next", ["https://x.example/a?x=(1)"]],
  ["Query https://x.example/a?x=[1]&y=2, next", ["https://x.example/a?x=[1]&y=2"]],
  ["Fragment https://x.example/#top! Next", ["https://x.example/#top"]],
  ["Fragment https://x.example/a?x=y#z. Next", ["https://x.example/a?x=y#z"]],
  ["Path https://x.example/a.b.c. Next", ["https://x.example/a.b.c"]],
  ["Path https://x.example/a/. Next", ["https://x.example/a/"]],
  ["Path https://x.example/a;b=c:d, next", ["https://x.example/a;b=c:d"]],
  ["Path https://x.example/a_b-c~d*e%20f. Next", ["https://x.example/a_b-c~d*e%20f"]],
  ["Path https://x.example/it's here", ["https://x.example/it's"]],
  ["Angle <https://x.example/a> and <https://x.example/b>.", ["https://x.example/a", "https://x.example/b"]],
  ["Two https://x.example/a https://x.example/b", ["https://x.example/a", "https://x.example/b"]],
  ["Two https://x.example/a, https://x.example/b.", ["https://x.example/a", "https://x.example/b"]],
  ["Two https://x.example/a\nhttps://x.example/b", ["https://x.example/a", "https://x.example/b"]],
  ["Same https://x.example/a. Again https://x.example/a!", ["https://x.example/a", "https://x.example/a"]],
  ["Prefix https://x.example/a and https://x.example/ab.", ["https://x.example/a", "https://x.example/ab"]],
  ["Umlaut https://bücher.example/straße. Next", ["https://bücher.example/straße"]],
  ["Cyrillic https://пример.рф/путь, next", ["https://пример.рф/путь"]],
  ["Punycode https://xn--bcher-kva.example/a. Next", ["https://xn--bcher-kva.example/a"]],
  ["Port https://x.example:8080/a. Next", ["https://x.example:8080/a"]],
  ["Host only http://x.example. Next", ["http://x.example"]],
  ["Address http://192.168.1.10/a, next", ["http://192.168.1.10/a"]],
  ["Login https://user:pw@x.example/a. Next", ["https://user:pw@x.example/a"]],
  ["Upper HTTPS://X.EXAMPLE/A. Next", ["HTTPS://X.EXAMPLE/A"]],
  ["Tagged https://x.example/?n={{first_name}}. Next", ["https://x.example/?n={{first_name}}"]],
  ["Not tracked: ftp://x.example/a mailto:a@b.example //x.example/a a@b.example x.example", []],
  ["No link: https:// and https://. here", []],
];

/** `text` with the expected links (in order) replaced by `to(url)`, found left to right. */
function replaced(text: string, links: string[], to: (url: string) => string): string {
  let out = "";
  let at = 0;
  for (const url of links) {
    const i = text.indexOf(url, at);
    expect(i, `${url} in ${text}`).toBeGreaterThanOrEqual(0);
    out += text.slice(at, i) + to(url);
    at = i + url.length;
  }
  return out + text.slice(at);
}

const distinct = (links: string[]) => [...new Set(links)];

describe("findHttpLinks: a sentence's punctuation stays outside the link", () => {
  it.each(cases)("%s", (text, links) => {
    const found = findHttpLinks(text);
    expect(found.map((l) => l.url)).toEqual(links);
    for (const l of found) expect(text.slice(l.index, l.end)).toBe(l.url);
    expect(extractLinks(text)).toEqual(distinct(links));
  });

  it("replaceHttpLinks keeps the text around the links as it is", () => {
    expect(replaceHttpLinks("Read https://quinn.example.com/page. Thanks", () => "LINK")).toBe(
      "Read LINK. Thanks",
    );
    expect(replaceHttpLinks("(see https://x.example/a), https://x.example/b!", (_u, n) => `L${n}`)).toBe(
      "(see L0), L1!",
    );
  });
});

describe("campaign texts as sent keep the punctuation after a link", () => {
  it.each(cases)("SMS: %s", (text, links) => {
    const tracked = distinct(links);
    const content: CampaignContent = { message: text, links: extractLinks(text) };
    const body = renderSmsFor(content, {}, TOKEN, env, false).body;
    expect(body).toBe(replaced(text, links, (url) => click(tracked.indexOf(url), url)));
  });

  it.each(cases)("email text and HTML: %s", async (text, links) => {
    const tracked = distinct(links);
    const content: CampaignContent = { subject: "S", body: text, links: extractLinks(text) };
    const tpl = await buildEmailTemplate(
      { content, channel: "email" },
      { appUrl: env.APP_URL, senderName: "Q" },
    );
    const mail = renderEmailFor(tpl, content, {}, TOKEN, env);
    expect(mail.text.split("\n\n--\n")[0]).toBe(
      replaced(text, links, (url) => click(tracked.indexOf(url), url)),
    );
    const hrefs = [...mail.html.matchAll(/href="([^"]*)"/g)]
      .map((m) => (m[1] ?? "").replaceAll("&amp;", "&"))
      .filter((h) => !h.includes("/u/"));
    expect(hrefs).toEqual(links.map((url) => click(tracked.indexOf(url), url)));
  });

  it("the test email's links go to the URL without the full stop, which stays in the text", async () => {
    const text = "Read https://quinn.example.com/page. Thanks, and https://quinn.example.com/p4, too";
    const content: CampaignContent = { subject: "S", body: text, links: extractLinks(text) };
    const tpl = await buildEmailTemplate(
      { content, channel: "email" },
      { appUrl: env.APP_URL, senderName: "Q" },
    );
    const mail = renderEmailFor(tpl, content, {}, TEST_EMAIL_TOKEN, env);
    expect(mail.text.startsWith(`${text}\n\n`)).toBe(true);
    expect(mail.html).toContain('href="https://quinn.example.com/page"');
    expect(mail.html).toContain('href="https://quinn.example.com/p4"');
    expect(mail.html).not.toContain('href="https://quinn.example.com/page."');
    expect(mail.html).not.toContain('href="https://quinn.example.com/p4,"');
  });

  it("the builder's segment count counts the full stop after a tracked link, as the engine sends it", () => {
    const business = "Quinn Cafe";
    for (const [text] of cases) {
      const content: CampaignContent = { message: text, links: extractLinks(text), myBusiness: business };
      // a 26-character recipient token, as launches make them
      const sent = renderSmsFor(content, {}, "a".repeat(26), env, true).body;
      expect(sentSmsSegments(text, env.APP_URL, business).units, text).toBe(smsSegments(sent).units);
    }
    // the full stop is counted: "Quinn Cafe: Read " + the tracked link + ". Thanks" + the notice
    const tracked = `${env.APP_URL}/c/${"a".repeat(26)}/0/${"s".repeat(22)}`;
    expect(
      sentSmsSegments(`Read ${"https://quinn.example.com/page"}. Thanks`, env.APP_URL, business).units,
    ).toBe(`Quinn Cafe: Read ${tracked}. Thanks\nReply STOP to opt out`.length);
  });
});
