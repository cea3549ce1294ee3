import { describe, expect, it } from "vitest";
import { contrastRatio, readableTextOn, relativeLuminance } from "../../src/server/lib/contrast";

describe("readableTextOn (lead tier badges)", () => {
  it("gives every lead tier colour a text colour of at least 4.5:1 (white was 3.76, 2.15 and 3.68)", () => {
    for (const bg of ["#ef4444", "#f59e0b", "#3b82f6"]) {
      const text = readableTextOn(bg);
      const ratio = contrastRatio(relativeLuminance(bg) as number, relativeLuminance(text) as number);
      expect(ratio, `${text} on ${bg}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("keeps white on dark colours and reads #rgb", () => {
    expect(readableTextOn("#1e3a8a")).toBe("#ffffff");
    expect(readableTextOn("#fff")).toBe("#111827");
    expect(relativeLuminance("not a colour")).toBeNull();
    // mid grey: #111827 gives 3.95:1, white 4.48:1
    expect(readableTextOn("#777777")).toBe("#ffffff");
  });
});

describe("a new tag's default colour", () => {
  it("takes its chip's text at 4.5:1 or more (#6366f1 gave 4.47:1 with white, 3.86:1 with near-black)", async () => {
    const { DEFAULT_TAG_COLOR } = await import("../../src/server/features/crm/crm.tags");
    const text = readableTextOn(DEFAULT_TAG_COLOR);
    const ratio = contrastRatio(
      relativeLuminance(DEFAULT_TAG_COLOR) as number,
      relativeLuminance(text) as number,
    );
    expect(ratio).toBeGreaterThanOrEqual(4.5);
  });
});
