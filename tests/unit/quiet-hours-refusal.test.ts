import { describe, expect, it } from "vitest";
import { quietHoursRefusal } from "../../src/server/features/compliance/quiet-hours";

// The sentence a contact-page SMS or call outside quiet hours is refused with (compliance
// quietHoursRefusal): the contact's local time, the window, and when sending opens.

describe("quietHoursRefusal", () => {
  it("is null inside 08:00-21:00 in the contact's time zone", () => {
    expect(quietHoursRefusal(new Date("2026-11-25T18:00:00Z"), { timezone: "America/Chicago" })).toBeNull();
  });

  it("says the contact's local time and when sending opens, early morning and late evening", () => {
    expect(quietHoursRefusal(new Date("2026-11-25T10:30:00Z"), { timezone: "America/Chicago" })).toBe(
      "It is 04:30 for this contact (America/Chicago): texts and calls may go out only between 08:00 and 21:00 their time. Sending opens at 08:00 their time, in 3 h 30 min.",
    );
    expect(quietHoursRefusal(new Date("2026-11-26T03:30:00Z"), { timezone: "America/Chicago" })).toBe(
      "It is 21:30 for this contact (America/Chicago): texts and calls may go out only between 08:00 and 21:00 their time. Sending opens at 08:00 their time, in 10 h 30 min.",
    );
  });

  it("a zone derived from the postal code counts like the contact's own", () => {
    // 94103: San Francisco, 02:30 there
    expect(quietHoursRefusal(new Date("2026-11-25T10:30:00Z"), { postalCode: "94103" })).toContain(
      "It is 02:30 for this contact (America/Los_Angeles)",
    );
  });

  it("an unknown zone must be inside the window in both US Eastern and Pacific time, and says so", () => {
    expect(quietHoursRefusal(new Date("2026-11-25T10:30:00Z"), {})).toBe(
      "This contact's time zone is unknown (set their time zone, address or a US phone number to tell it), so texts and calls may go out only while it is between 08:00 and 21:00 in both US Eastern and US Pacific time. It is 05:30 US Eastern time now; sending opens at 11:00 US Eastern time, in 5 h 30 min.",
    );
    expect(quietHoursRefusal(new Date("2026-11-25T17:00:00Z"), {})).toBeNull();
  });
});
