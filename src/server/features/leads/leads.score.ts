import type { Place } from "../../providers/places";

/** Lead tiers (spec section 4): HOT at 80 or above, WARM 50 up to below 80, COLD below 50 (blue). */
export const LEAD_TIERS = ["HOT", "WARM", "COLD"] as const;
export type LeadTierName = (typeof LEAD_TIERS)[number];
export interface LeadTier {
  tier: LeadTierName;
  emoji: string;
  color: string;
}

/** The tier of a 0-100 lead score. COLD is blue, as the spec's "a result without a tier shows COLD, blue". */
export function leadTier(score: number): LeadTier {
  if (score >= 80) return { tier: "HOT", emoji: "🔥", color: "#ef4444" };
  if (score >= 50) return { tier: "WARM", emoji: "🌤️", color: "#f59e0b" };
  return { tier: "COLD", emoji: "❄️", color: "#3b82f6" };
}

/**
 * Lead score formula (0-100 points; an attribute the provider does not supply scores 0, never guessed):
 *
 * | component | points |
 * |---|---|
 * | rating | 25 x clamp((rating - 2.5) / 2.5, 0, 1) |
 * | review count | 15 x clamp(log10(1 + reviews) / log10(201), 0, 1) (200+ reviews = full) |
 * | phone listed | 15 |
 * | website | 10 |
 * | public email | 10 |
 * | operational (business status OPERATIONAL, or open now when the status is unknown) | 10 |
 * | opening hours known | 5 |
 * | street address | 5 |
 * | a social profile | 5 |
 *
 * A permanently closed business scores 0. Rounded to a whole number. Returns the score and the reasons
 * (one line per component that scored, plus what is missing), for the card's "why this score".
 */
export function scoreLead(p: Place): { score: number; reasons: string[] } {
  const reasons: string[] = [];
  if (p.businessStatus === "CLOSED_PERMANENTLY") return { score: 0, reasons: ["Permanently closed (0)"] };
  let s = 0;
  const add = (pts: number, why: string) => {
    const r = Math.round(pts);
    s += pts;
    reasons.push(`${why} (+${r})`);
  };
  if (typeof p.rating === "number") add(25 * clamp01((p.rating - 2.5) / 2.5), `Rated ${p.rating.toFixed(1)}`);
  else reasons.push("No rating (+0)");
  if (typeof p.reviewCount === "number" && p.reviewCount > 0)
    add(15 * clamp01(Math.log10(1 + p.reviewCount) / Math.log10(201)), `${p.reviewCount} reviews`);
  else reasons.push("No reviews (+0)");
  if (p.phone) add(15, "Phone listed");
  else reasons.push("No phone (+0)");
  if (p.website) add(10, "Website");
  else reasons.push("No website (+0)");
  if (p.email) add(10, "Public email");
  if (p.businessStatus === "OPERATIONAL" || (!p.businessStatus && p.hours?.openNow === true))
    add(10, "Operational");
  else if (p.businessStatus === "CLOSED_TEMPORARILY") reasons.push("Temporarily closed (+0)");
  if (p.hours && (p.hours.text || p.hours.openNow !== null)) add(5, "Opening hours known");
  if (p.address) add(5, "Street address");
  if (p.socials && Object.values(p.socials).some(Boolean)) add(5, "Social profile");
  return { score: Math.max(0, Math.min(100, Math.round(s))), reasons };
}

function clamp01(x: number) {
  return Math.max(0, Math.min(1, x));
}
