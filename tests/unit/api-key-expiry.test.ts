import { describe, expect, it } from "vitest";
import { expiresAtOf } from "../../src/client/routes/_app/-components/settings/api-keys-tab";

describe("API key expiry choice (Settings > API keys)", () => {
  const now = new Date(2026, 2, 12, 15, 30); // 12 Mar 2026 15:30 local

  it("never is null; 30 / 90 / 365 days count from now", () => {
    expect(expiresAtOf("never", "", now)).toBeNull();
    expect(Date.parse(expiresAtOf("30", "", now)!) - now.getTime()).toBe(30 * 86_400_000);
    expect(Date.parse(expiresAtOf("365", "", now)!) - now.getTime()).toBe(365 * 86_400_000);
  });

  it("a date expires at the end of that local day; today, past, empty or malformed dates are refused", () => {
    const end = new Date(expiresAtOf("date", "2027-03-12", now)!);
    expect([end.getFullYear(), end.getMonth(), end.getDate(), end.getHours(), end.getMinutes()]).toEqual([
      2027, 2, 12, 23, 59,
    ]);
    expect(expiresAtOf("date", "2026-03-13", now)).toBeTypeOf("string");
    for (const day of ["2026-03-12", "2025-01-01", "", "12/03/2027", "2027-13-45"])
      expect(expiresAtOf("date", day, now)).toBeUndefined();
  });

  it("a date past the server's 10-year limit (API_KEY_MAX_EXPIRY_DAYS) is refused before it is sent", () => {
    expect(expiresAtOf("date", "2036-03-10", now)).toBeTypeOf("string");
    for (const day of ["2036-03-13", "2040-01-01", "9999-12-31"])
      expect(expiresAtOf("date", day, now)).toBeUndefined();
  });
});
