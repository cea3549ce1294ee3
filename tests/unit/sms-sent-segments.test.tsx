// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { SmsCounter } from "../../src/client/features/campaigns/sms-builder";
import type { CampaignContent } from "../../src/server/db/schema";
import { extractLinks, renderSmsFor } from "../../src/server/features/campaigns/campaigns.content";
import { sentSmsSegments, smsSegments } from "../../src/server/features/campaigns/sms-segments";
import { randomToken } from "../../src/server/lib/ids";
import { renderPreview } from "../../src/server/lib/merge-tags";

afterEach(cleanup);

// The SMS builder counted the template as typed: "150 / 160 characters · 1 segment" and a review of
// "Message segments 1, Total messages = recipients". What goes out is the merged text with each link
// replaced by its tracked link (APP_URL/c/{token}/{i}/{signature}) and, on a number's first text from
// the workspace, "Reply STOP to opt out": a 140-character text with one link went as 2 segments, and
// a recipient named "Zoë" made a 1-segment text UCS-2 (3 segments). sentSmsSegments gives what the
// engine sends (renderSmsFor, the campaign send path), and the counter shows it.

const env = { APP_URL: "https://app.pitchwise.example", APP_SECRET: "s".repeat(32) };
const business = "Rosa's Bakery";

function asSentByEngine(message: string, contact: Record<string, unknown>) {
  const content: CampaignContent = { message, links: extractLinks(message), myBusiness: business };
  return renderSmsFor(content, contact, randomToken(16), env, true).segments;
}

const cases: [string, string, Record<string, unknown>][] = [
  [
    "a 1-segment template whose tracked link and notice make 2",
    `Hi {{first_name|there}}, spring sale: 20% off all cakes this week. Order: https://rosa.example/s ${"x".repeat(40)}`,
    { first_name: "Al" },
  ],
  [
    "a name outside GSM-7 (UCS-2)",
    `Hi {{first_name|there}}! ${"Fresh bread daily at the bakery. ".repeat(3)}`,
    { first_name: "Zoë" },
  ],
  ["a text that already says how to opt out gets no notice", `${"a".repeat(150)} Reply STOP to end`, {}],
  [
    "the same link twice is one tracked link, two links two",
    "See https://rosa.example/a and https://rosa.example/a then https://rosa.example/b",
    { first_name: "Kim" },
  ],
  ["a short text stays 1 segment", "Hi {{first_name|there}}", { first_name: "Bo" }],
];

describe("sentSmsSegments", () => {
  it.each(cases)("counts what the engine sends: %s", (_label, message, contact) => {
    const preview = renderPreview(message, contact, business);
    expect(sentSmsSegments(preview, env.APP_URL, business).segments).toBe(asSentByEngine(message, contact));
  });

  // QA: every workspace texts from one shared number, and a first text read "Hi Nina, big deals today
  // only!\nReply STOP to opt out": nobody could tell which business sent it (CTIA: identify the
  // sender). The first text is led by the business's name unless it names it, and the builder's
  // count includes the name: 130 characters + the notice fit one segment, the name makes two.
  it("a first text is led by the business's name, which the count includes", () => {
    const message = `Hi Nina, ${"big deals today only! ".repeat(6)}`.slice(0, 130).trim();
    const content: CampaignContent = { message, links: [], myBusiness: business };
    const sent = renderSmsFor(content, { first_name: "Nina" }, randomToken(16), env, true);
    expect(sent.body).toBe(
      `Rosa's Bakery: ${renderPreview(message, { first_name: "Nina" }, business).trim()}\nReply STOP to opt out`,
    );
    expect(sent.segments).toBe(2);
    const preview = renderPreview(message, { first_name: "Nina" }, business);
    expect(sentSmsSegments(preview, env.APP_URL, business).segments).toBe(2);
    expect(sentSmsSegments(preview, env.APP_URL, "").segments).toBe(1);
    // a later text to the number carries neither
    expect(renderSmsFor(content, { first_name: "Nina" }, randomToken(16), env, false).body).not.toContain(
      "Rosa's Bakery",
    );
  });

  it("a first text that names the business already is not prefixed", () => {
    const content: CampaignContent = {
      message: "Fresh loaves at {{my_business}} today!",
      links: [],
      myBusiness: business,
    };
    expect(renderSmsFor(content, {}, randomToken(16), env, true).body).toBe(
      "Fresh loaves at Rosa's Bakery today!\nReply STOP to opt out",
    );
    const shouted: CampaignContent = { message: "ROSA'S  BAKERY: bread!", links: [], myBusiness: business };
    expect(renderSmsFor(shouted, {}, randomToken(16), env, true).body).toBe(
      "ROSA'S  BAKERY: bread!\nReply STOP to opt out",
    );
  });

  it("differs from the template's own count where the engine adds a segment", () => {
    const [, message, contact] = cases[0]!;
    expect(smsSegments(message).segments).toBe(1);
    expect(asSentByEngine(message, contact)).toBe(2);
  });
});

describe("SmsCounter", () => {
  it("shows the segments as sent when they differ from the typed text's", () => {
    const text = `Spring sale: 20% off all cakes this week. Order: https://rosa.example/s ${"x".repeat(60)}`;
    render(<SmsCounter text={text} asSent={sentSmsSegments(text, env.APP_URL, business)} />);
    expect(screen.getByTestId("sms-counter").textContent).toContain("1 segment (GSM-7)");
    expect(screen.getByTestId("sms-counter-sent").textContent).toBe(
      'As a first text, with your business name, tracked links and "Reply STOP to opt out": 2 segments (GSM-7)',
    );
  });

  it("adds nothing when they are the same", () => {
    render(<SmsCounter text="Hi Bo" asSent={sentSmsSegments("Hi Bo", env.APP_URL, business)} />);
    expect(screen.queryByTestId("sms-counter-sent")).toBeNull();
  });
});
