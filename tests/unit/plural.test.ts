import { describe, expect, it } from "vitest";
import { plural } from "../../src/client/lib/format";

describe("plural", () => {
  it("puts the noun in the right number, with the count formatted", () => {
    expect(plural(1, "contact")).toBe("1 contact");
    expect(plural(0, "contact")).toBe("0 contacts");
    expect(plural(2, "contact")).toBe("2 contacts");
    expect(plural(1200, "contact")).toBe("1,200 contacts");
    expect(plural(1, "business", "businesses")).toBe("1 business");
    expect(plural(3, "business", "businesses")).toBe("3 businesses");
  });
});
