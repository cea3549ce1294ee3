/**
 * WCAG 2.x contrast (pure, no dependencies): shared by the client (lead tier badges,
 * `@/server/lib/contrast`) and the server (the video landing page's call-to-action on the sender's
 * brand colour, campaigns.landing.ts), like campaigns/sms-segments.ts.
 */

/** WCAG 2.x relative luminance of a #rgb / #rrggbb colour (0 black .. 1 white); null when not hex. */
export function relativeLuminance(hex: string): number | null {
  const m = hex.trim().match(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i);
  if (!m) return null;
  const h = m[1] as string;
  const full = h.length === 3 ? [...h].map((c) => c + c).join("") : h;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two luminances (1..21). */
export const contrastRatio = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/**
 * The text colour (near-black #111827 or white) with the higher WCAG contrast on `background` (a hex
 * colour from data, e.g. a lead tier's colour); white when the colour cannot be read. Source: WCAG 2.1
 * SC 1.4.3 (4.5:1 for normal text), relative luminance and contrast ratio definitions.
 */
export function readableTextOn(background: string): "#111827" | "#ffffff" {
  const l = relativeLuminance(background);
  if (l === null) return "#ffffff";
  const dark = relativeLuminance("#111827") as number;
  return contrastRatio(l, dark) >= contrastRatio(l, 1) ? "#111827" : "#ffffff";
}
