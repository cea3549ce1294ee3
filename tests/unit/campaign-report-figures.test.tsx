// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { CampaignReport } from "../../src/client/features/campaigns/api";
import { RecipientReply, recipientNote } from "../../src/client/features/campaigns/campaign-report";
import {
  figureCards,
  formatTalkTime,
  outcomeLine,
  timelineLines,
} from "../../src/client/features/campaigns/report-figures";

afterEach(cleanup);

// The report shows what each channel records (a QA pass: call and voicemail reports showed
// "Opened" / "Clicked", which a phone never has), an SMS reply's text as text, and an opt-out a
// later START cleared from the row's reason.

const figures: CampaignReport["figures"] = {
  sent: 10,
  delivered: 6,
  opened: 3,
  clicked: 3,
  replied: 2,
  bounced: 0,
  failed: 4,
  softBounced: 0,
  skipped: 0,
  skippedReasons: [],
  cancelled: 0,
  pending: 0,
  optedOut: 1,
  answered: 3,
  voicemail: 2,
  noAnswer: 2,
  busy: 1,
  talkSeconds: 3725,
};
const ids = (channel: Parameters<typeof figureCards>[0]) =>
  figureCards(channel, figures, 12).map((c) => c.id);

describe("figureCards", () => {
  it("a call: who answered, no answer, busy, other failures and talk time; no opens or clicks", () => {
    const cards = figureCards("voice", figures, 12);
    expect(cards.map((c) => [c.id, c.label, c.value])).toEqual([
      ["sent", "Called", "10"],
      ["answered", "Answered", "3"],
      ["voicemail", "Voicemail (machine)", "2"],
      ["completed-unknown", "Completed, answerer unknown", "1"],
      ["no-answer", "No answer", "2"],
      ["busy", "Busy", "1"],
      ["failed", "Failed", "1"],
      ["talk-time", "Talk time", "1h 02m"],
    ]);
    expect(cards.at(-1)?.note).toBe("10m 20s per completed call");
  });

  it("ringless voicemail: sent, delivered, failed; SMS: clicks and replies, no opens; email keeps opens", () => {
    expect(ids("voicemail")).toEqual(["sent", "delivered", "failed"]);
    expect(ids("sms")).toEqual(["sent", "delivered", "clicked", "replied"]);
    expect(ids("video_sms")).toEqual(["sent", "delivered", "clicked", "replied"]);
    expect(ids("email")).toEqual(["sent", "delivered", "opened", "clicked"]);
    expect(ids("video_email")).toEqual(["sent", "delivered", "opened", "clicked"]);
  });

  it("the chart draws the same events", () => {
    expect(timelineLines("voice").map((l) => l.name)).toEqual(["called", "completed", "failed"]);
    expect(timelineLines("voicemail").map((l) => l.key)).toEqual(["sent", "delivered", "failed"]);
    expect(timelineLines("sms").map((l) => l.key)).toEqual(["sent", "delivered", "clicked", "replied"]);
    expect(timelineLines("email").map((l) => l.key)).toEqual(["sent", "delivered", "opened", "clicked"]);
  });

  it("the outcome line leaves out what the cards show", () => {
    expect(outcomeLine("voice", figures)).toBe("2 replied · 1 opted out");
    expect(outcomeLine("sms", figures)).toBe("4 failed · 1 opted out");
  });
});

describe("formatTalkTime", () => {
  it("seconds, minutes and seconds, hours and minutes", () => {
    expect([0, 45, 60, 116, 3599, 3600, 90061].map(formatTalkTime)).toEqual([
      "0s",
      "45s",
      "1m 00s",
      "1m 56s",
      "59m 59s",
      "1h 00m",
      "25h 01m",
    ]);
  });
});

describe("RecipientReply", () => {
  it("shows the reply as text, never as markup", () => {
    render(<RecipientReply text={`<img src=x onerror="alert(1)"> hi`} />);
    expect(screen.getByTestId("recipient-reply").textContent).toBe(
      `Replied: “<img src=x onerror="alert(1)"> hi”`,
    );
    expect(document.querySelector("img")).toBeNull();
  });

  it("folds a long reply into a disclosure that opens to the whole text", () => {
    const text = "word ".repeat(60).trim();
    render(<RecipientReply text={text} />);
    const details = screen.getByTestId("recipient-reply") as HTMLDetailsElement;
    expect(details.tagName).toBe("DETAILS");
    expect(details.open).toBe(false);
    fireEvent.click(screen.getByText(/show the whole reply/).closest("summary") as HTMLElement);
    expect(details.querySelector("p")?.textContent).toBe(text);
  });
});

describe("recipientNote", () => {
  it("says opted out when a later START cleared the reason, once when the reason says it", () => {
    const at = new Date("2026-11-01T10:00:00Z");
    expect(recipientNote({ status: "delivered", reason: null, notBefore: null, optedOutAt: at })).toBe(
      "opted out",
    );
    expect(
      recipientNote({ status: "delivered", reason: "unsubscribed", notBefore: null, optedOutAt: at }),
    ).toBe("unsubscribed");
    expect(
      recipientNote({
        status: "skipped",
        reason: "opted out: replied STOP",
        notBefore: null,
        optedOutAt: at,
      }),
    ).toBe("opted out: replied STOP");
  });
});
