// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { RecipientName, recipientNote } from "../../src/client/features/campaigns/campaign-report";

afterEach(cleanup);

// The report's recipients table. A recipient held by quiet hours is queued with a reason ("quiet
// hours (Asia/Tokyo)") and a time (`notBefore`); a retry after a provider error likewise. The table
// showed the reason alone (its "waiting until" text only appeared when there was no reason, which a
// deferral or retry always has), so the owner never saw when those messages go. A recipient whose
// contact was deleted has contactId null: its name linked to /contacts/null ("Contact not found").

describe("recipientNote", () => {
  const at = new Date("2026-11-29T23:00:00.000Z");

  it("gives a quiet-hours deferral's reason and when it will be sent", () => {
    const note = recipientNote({ status: "queued", reason: "quiet hours (Asia/Tokyo)", notBefore: at });
    expect(note).toBe(`quiet hours (Asia/Tokyo) · waiting until ${at.toLocaleString()}`);
  });

  it("gives a waiting row without a reason its time, and any other row its reason only", () => {
    expect(recipientNote({ status: "queued", reason: null, notBefore: at })).toBe(
      `waiting until ${at.toLocaleString()}`,
    );
    expect(recipientNote({ status: "skipped", reason: "duplicate address", notBefore: null })).toBe(
      "duplicate address",
    );
    expect(recipientNote({ status: "sent", reason: null, notBefore: at })).toBe("");
    expect(recipientNote({ status: "queued", reason: null, notBefore: null })).toBe("");
  });
});

describe("RecipientName", () => {
  it("shows a deleted contact's name as text, not a link to /contacts/null", () => {
    render(<RecipientName contactId={null} name="Ann Lee" />);
    expect(screen.getByText("Ann Lee")).toBeTruthy();
    expect(screen.queryByRole("link")).toBeNull();
    expect(document.body.innerHTML).not.toContain("/contacts/null");
  });
});
