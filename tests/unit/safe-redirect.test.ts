import { describe, expect, it } from "vitest";
import { safeRedirect } from "../../src/client/features/auth/redirect";

// /login and /register send a signed-in user to their `redirect` search param through safeRedirect.
// The URL parser drops tab, LF and CR anywhere in a URL, so "/\t/evil.example" is "//evil.example":
// safeRedirect let it through, and only the router's own check stopped it (a signed-in user who
// opened /login?redirect=/%09/evil.example got "Something went wrong: Redirect blocked").

describe("safeRedirect", () => {
  it("keeps same-origin paths", () => {
    expect(safeRedirect("/contacts/42")).toBe("/contacts/42");
    expect(safeRedirect("/settings?tab=api-keys#keys")).toBe("/settings?tab=api-keys#keys");
    expect(safeRedirect("/contacts?search=a%20b")).toBe("/contacts?search=a%20b");
  });

  it("refuses absolute, protocol-relative and auth-page targets", () => {
    for (const v of [
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "/login",
      "/register",
      "/",
      "",
      42,
    ])
      expect(safeRedirect(v), String(v)).toBe("/dashboard");
  });

  it("refuses a path with a control character the URL parser would drop", () => {
    for (const v of [
      "/\t/evil.example/x",
      "/\n/evil.example",
      "/\r\\evil.example",
      "/\t\t//evil.example",
      "/a\u0000b",
      "/x\u007f",
    ])
      expect(safeRedirect(v), JSON.stringify(v)).toBe("/dashboard");
    // what the browser makes of the first one: another origin
    expect(new URL("/\t/evil.example/x", "http://localhost").host).toBe("evil.example");
  });
});
