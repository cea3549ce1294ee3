import { z } from "zod";
import { humanFieldLabel } from "../../lib/validate";
import type { Place, PlaceAttribute } from "../../providers/places";
import { LEAD_TIERS, type LeadTierName } from "./leads.score";

/**
 * The business search Filter set (spec section 3 "Filter set", about 131 keys; issue 13): every key,
 * its category tab (the 19 tabs of spec section 2), its kind, the attribute(s) it needs and its test.
 *
 * Kinds and their "set" meaning (an unset filter constrains nothing):
 * - `min` / `max`: a number bound; set when a number is given. A place whose value is unknown fails it.
 * - `days`: a day count parameter (recentReviewDays, default 90) used by the review-recency filters.
 * - `list`: set when non-empty. `text`: set when not blank (case-insensitive substring).
 * - `bool`: true means "only places where this is known to be true"; false or absent means unset.
 * - `tri`: unset by default (absent or null); true keeps only matching places, false excludes them.
 */

export const FILTER_CATEGORIES = [
  { id: "basic", label: "Basic" },
  { id: "location", label: "Location" },
  { id: "contactQuality", label: "Contact quality" },
  { id: "businessCharacteristics", label: "Business characteristics" },
  { id: "industrySpecific", label: "Industry-specific" },
  { id: "engagement", label: "Engagement" },
  { id: "companySize", label: "Company size" },
  { id: "leadQuality", label: "Lead quality" },
  { id: "competitiveAnalysis", label: "Competitive analysis" },
  { id: "businessAge", label: "Business age" },
  { id: "onlinePresence", label: "Online presence" },
  { id: "certifications", label: "Certifications and licenses" },
  { id: "reputation", label: "Reputation" },
  { id: "specialServices", label: "Special services" },
  { id: "seasonalTiming", label: "Seasonal and timing" },
  { id: "safetyHealth", label: "Safety and health" },
  { id: "paymentOptions", label: "Payment options" },
  { id: "environmental", label: "Environmental" },
  { id: "businessStatus", label: "Business status" },
] as const;
export type FilterCategory = (typeof FILTER_CATEGORIES)[number]["id"];

/** What each attribute means, for the "why is this filter disabled" sentence. */
export const ATTRIBUTE_LABELS: Record<PlaceAttribute, string> = {
  location: "coordinates",
  address: "street addresses",
  types: "business categories",
  rating: "ratings",
  reviewCount: "review counts",
  reviewDetails: "individual reviews",
  priceLevel: "price levels",
  photos: "photo counts",
  phone: "phone numbers",
  website: "websites",
  email: "email addresses",
  webPresence: "social profiles and contact forms",
  openNow: "open-now status",
  openingHours: "weekly opening hours",
  businessStatus: "business status",
  brand: "brand or chain names",
  ownership: "ownership facts",
  employees: "employee and location counts",
  yearsInBusiness: "founding dates",
  credentials: "licences, insurance and certifications",
  bbbRating: "BBB ratings",
  listingStatus: "verified or claimed listing status",
  services: "service options",
  languages: "spoken languages",
  serviceAreas: "service areas",
  demographics: "target customer demographics",
  accessibility: "wheelchair access",
  healthSafety: "health and safety facts",
  inspections: "health inspection results",
  payments: "payment options",
  environmental: "environmental practices",
  crm: "your contacts",
  dnc: "the national Do Not Call registry",
};

/** Facts the search computes for each place besides the provider's (distance, score, competition). */
export interface LeadFacts {
  distanceMi: number;
  leadScore: number;
  tier: LeadTierName;
  /** other results of this search within 1 mile */
  competitors: number;
  /** no competitor within 1 mile has a higher rating (null when the rating is unknown) */
  topRatedInArea: boolean | null;
  /** already among the workspace's contacts */
  inContacts: boolean;
  /**
   * the place's phone in E.164, read in the workspace's phone country when the provider gives a
   * national number (lib/phone.ts toE164); null when there is none or it is not a valid number
   */
  phoneE164: string | null;
  /** a word of the searched business type appears in the place's categories */
  matchesType: boolean;
}

type Get<T> = (p: Place, f: LeadFacts) => T | null | undefined;

export interface FilterDef {
  key: string;
  category: FilterCategory;
  kind: "min" | "max" | "days" | "list" | "text" | "bool" | "tri";
  label: string;
  /** attributes the active provider must supply for the filter to be answerable */
  attrs: PlaceAttribute[];
  /** numeric bounds for min/max/days; allowed values for enumerated lists */
  min?: number;
  max?: number;
  step?: number;
  options?: readonly (string | number)[];
  /** default value (recentReviewDays: 90) */
  default?: unknown;
  schema: z.ZodType;
  /** whether a place passes the filter set to `value` (only called when the filter is set) */
  test: (p: Place, f: LeadFacts, value: never, all: FilterValues) => boolean;
}

export type FilterValues = Record<string, unknown>;

const num = (min: number, max: number, int: boolean, name: string) => {
  let s = z.number({ error: `${name} must be a number` });
  if (int) s = s.int(`${name} must be a whole number`);
  return s.min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`).nullish();
};
const listOf = (item: z.ZodType, name: string) =>
  z
    .array(item, { error: `${name} must be a list` })
    .max(100, `${name} may hold at most 100 values`)
    .optional();
const textS = (name: string) =>
  z
    .string({ error: `${name} must be text` })
    .trim()
    .max(100, `${name} must be at most 100 characters`)
    .optional();
const boolS = (name: string) => z.boolean({ error: `${name} must be true or false` }).optional();
const triS = (name: string) => z.boolean({ error: `${name} must be true, false or null` }).nullish();

const defs: FilterDef[] = [];

function range(
  cat: FilterCategory,
  keys: [string, string] | [string, null] | [null, string],
  label: string,
  attrs: PlaceAttribute[],
  bounds: { min: number; max: number; step?: number; int?: boolean },
  get: Get<number>,
) {
  const [lo, hi] = keys;
  const int = bounds.int ?? true;
  if (lo)
    defs.push({
      key: lo,
      category: cat,
      kind: "min",
      label: `Min ${label}`,
      attrs,
      ...bounds,
      schema: num(bounds.min, bounds.max, int, lo),
      test: (p, f, v: number) => {
        const x = get(p, f);
        return typeof x === "number" && x >= v;
      },
    });
  if (hi)
    defs.push({
      key: hi,
      category: cat,
      kind: "max",
      label: `Max ${label}`,
      attrs,
      ...bounds,
      schema: num(bounds.min, bounds.max, int, hi),
      test: (p, f, v: number) => {
        const x = get(p, f);
        return typeof x === "number" && x <= v;
      },
    });
}

function bool(cat: FilterCategory, key: string, label: string, attrs: PlaceAttribute[], get: Get<boolean>) {
  defs.push({
    key,
    category: cat,
    kind: "bool",
    label,
    attrs,
    schema: boolS(key),
    test: (p, f) => get(p, f) === true,
  });
}

function tri(cat: FilterCategory, key: string, label: string, attrs: PlaceAttribute[], get: Get<boolean>) {
  defs.push({
    key,
    category: cat,
    kind: "tri",
    label,
    attrs,
    schema: triS(key),
    test: (p, f, v: boolean) => (v ? get(p, f) === true : get(p, f) !== true),
  });
}

function list<T extends string | number>(
  cat: FilterCategory,
  key: string,
  label: string,
  attrs: PlaceAttribute[],
  item: z.ZodType<T>,
  test: (p: Place, f: LeadFacts, v: T[]) => boolean,
  options?: readonly T[],
) {
  defs.push({
    key,
    category: cat,
    kind: "list",
    label,
    attrs,
    options,
    schema: listOf(item, key),
    test: test as FilterDef["test"],
  });
}

function text(cat: FilterCategory, key: string, label: string, attrs: PlaceAttribute[], get: Get<string>) {
  defs.push({
    key,
    category: cat,
    kind: "text",
    label,
    attrs,
    schema: textS(key),
    test: (p, f, v: string) => (get(p, f) ?? "").toLowerCase().includes(v.toLowerCase()),
  });
}

const lc = (s: string | null | undefined) => (s ?? "").trim().toLowerCase();
const anyOf = (hay: string[] | undefined, needles: string[]) => {
  const h = (hay ?? []).map(lc);
  return needles.some((n) => h.some((x) => x.includes(lc(n))));
};
const zipItem = z
  .string()
  .trim()
  .regex(/^\d{5}$/, "ZIP codes must be 5 digits");
const word = z.string().trim().min(1, "values must not be blank").max(100);
const socials = (p: Place) => Object.values(p.socials ?? {}).filter(Boolean).length;
const BBB = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F"] as const;
const sizeOf = (n: number) => (n <= 1 ? "solo" : n < 10 ? "small" : n < 100 ? "medium" : "large");

// --- basic --------------------------------------------------------------------------------------
range(
  "basic",
  ["minRating", "maxRating"],
  "rating",
  ["rating"],
  { min: 0, max: 5, step: 0.1, int: false },
  (p) => p.rating,
);
range(
  "basic",
  ["minReviews", "maxReviews"],
  "reviews",
  ["reviewCount"],
  { min: 0, max: 1_000_000 },
  (p) => p.reviewCount,
);
range(
  "basic",
  ["minPriceLevel", "maxPriceLevel"],
  "price level",
  ["priceLevel"],
  { min: 1, max: 4 },
  (p) => p.priceLevel,
);
list(
  "basic",
  "priceLevel",
  "Price levels",
  ["priceLevel"],
  z.number().int().min(1).max(4),
  (p, _f, v) => v.includes(p.priceLevel ?? -1),
  [1, 2, 3, 4],
);
text("basic", "nameContains", "Name contains", ["location"], (p) => p.name);
list(
  "basic",
  "excludeNameKeywords",
  "Exclude names with",
  ["location"],
  word,
  (p, _f, v) => !v.some((w) => lc(p.name).includes(lc(w))),
);
range(
  "basic",
  ["minPhotos", "maxPhotos"],
  "photos",
  ["photos"],
  { min: 0, max: 10_000 },
  (p) => p.photoCount,
);

// --- location -----------------------------------------------------------------------------------
range(
  "location",
  ["minDistance", "maxDistance"],
  "distance (miles)",
  ["location"],
  { min: 0, max: 50, step: 0.5, int: false },
  (_p, f) => f.distanceMi,
);
list("location", "includeZipCodes", "Only ZIP codes", ["address"], zipItem, (p, _f, v) =>
  v.includes(p.postalCode ?? ""),
);
list(
  "location",
  "excludeZipCodes",
  "Exclude ZIP codes",
  ["address"],
  zipItem,
  (p, _f, v) => !v.includes(p.postalCode ?? ""),
);
list("location", "includeCities", "Only cities", ["address"], word, (p, _f, v) =>
  v.some((c) => lc(c) === lc(p.city)),
);
list(
  "location",
  "excludeCities",
  "Exclude cities",
  ["address"],
  word,
  (p, _f, v) => !v.some((c) => lc(c) === lc(p.city)),
);
list("location", "includeStates", "Only states", ["address"], word, (p, _f, v) =>
  v.some((s) => lc(s) === lc(p.state)),
);
list(
  "location",
  "excludeStates",
  "Exclude states",
  ["address"],
  word,
  (p, _f, v) => !v.some((s) => lc(s) === lc(p.state)),
);
list("location", "serviceAreas", "Serves areas", ["serviceAreas"], word, (p, _f, v) =>
  anyOf(p.serviceAreas, v),
);
bool(
  "location",
  "hasFullAddress",
  "Has a full street address",
  ["address"],
  (p) => !!(p.address && p.postalCode),
);

// --- contact quality ----------------------------------------------------------------------------
bool("contactQuality", "hasPhone", "Has phone", ["phone"], (p) => !!p.phone);
bool("contactQuality", "hasWebsite", "Has website", ["website"], (p) => !!p.website);
bool("contactQuality", "hasEmail", "Has email", ["email"], (p) => !!p.email);
bool("contactQuality", "validPhone", "Phone is a valid number", ["phone"], (_p, f) => !!f.phoneE164);
bool(
  "contactQuality",
  "localPhone",
  "Local (not toll-free) phone",
  ["phone"],
  // North American toll-free codes (800, 833, ... 888), on the E.164 form when the number is valid
  (p, f) =>
    !!p.phone && !/^\+?1?\s*\(?8(00|33|44|55|66|77|88)/.test(f.phoneE164 ?? p.phone.replace(/[^\d+]/g, "")),
);
bool("contactQuality", "websiteHttps", "Website uses HTTPS", ["website"], (p) =>
  /^https:\/\//i.test(p.website ?? ""),
);
bool(
  "contactQuality",
  "multipleChannels",
  "Phone, website and email",
  ["phone", "website", "email"],
  (p) => !!(p.phone && p.website && p.email),
);

// --- business characteristics -------------------------------------------------------------------
bool(
  "businessCharacteristics",
  "independentOnly",
  "Independent (no chain brand)",
  ["brand"],
  (p) => !p.brand,
);
bool("businessCharacteristics", "chainOnly", "Chains only", ["brand"], (p) => !!p.brand);
tri("businessCharacteristics", "franchise", "Franchise", ["ownership"], (p) => p.ownership?.franchise);
tri("businessCharacteristics", "homeBased", "Home-based", ["ownership"], (p) => p.ownership?.homeBased);
bool("businessCharacteristics", "womenOwned", "Women-owned", ["ownership"], (p) => p.ownership?.womenOwned);
bool(
  "businessCharacteristics",
  "veteranOwned",
  "Veteran-owned",
  ["ownership"],
  (p) => p.ownership?.veteranOwned,
);
bool(
  "businessCharacteristics",
  "minorityOwned",
  "Minority-owned",
  ["ownership"],
  (p) => p.ownership?.minorityOwned,
);
bool(
  "businessCharacteristics",
  "familyOwned",
  "Family-owned",
  ["ownership"],
  (p) => p.ownership?.familyOwned,
);

// --- industry-specific --------------------------------------------------------------------------
list("industrySpecific", "includeTypes", "Only categories", ["types"], word, (p, _f, v) => anyOf(p.types, v));
list(
  "industrySpecific",
  "excludeTypes",
  "Exclude categories",
  ["types"],
  word,
  (p, _f, v) => !anyOf(p.types, v),
);
bool(
  "industrySpecific",
  "exactTypeMatch",
  "Category matches the business type",
  ["types"],
  (_p, f) => f.matchesType,
);
text(
  "industrySpecific",
  "targetAgeGroup",
  "Target age group",
  ["demographics"],
  (p) => p.demographics?.ageGroup,
);
text("industrySpecific", "targetIncome", "Target income", ["demographics"], (p) => p.demographics?.income);

// --- engagement ---------------------------------------------------------------------------------
const recent = (p: Place, all: FilterValues) =>
  (p.reviewAgesDays ?? []).filter((d) => d <= Number(all.recentReviewDays ?? 90)).length;
defs.push({
  key: "recentReviewDays",
  category: "engagement",
  kind: "days",
  label: "Recent means within (days)",
  attrs: ["reviewDetails"],
  min: 1,
  max: 3650,
  default: 90,
  schema: num(1, 3650, true, "recentReviewDays"),
  test: () => true,
});
defs.push({
  key: "minRecentReviews",
  category: "engagement",
  kind: "min",
  label: "Min recent reviews",
  attrs: ["reviewDetails"],
  min: 0,
  max: 10_000,
  schema: num(0, 10_000, true, "minRecentReviews"),
  test: (p, _f, v: number, all) => recent(p, all) >= v,
});
defs.push({
  key: "minReviewsPerMonth",
  category: "engagement",
  kind: "min",
  label: "Min reviews per month (recent)",
  attrs: ["reviewDetails"],
  min: 0,
  max: 1000,
  step: 0.1,
  schema: num(0, 1000, false, "minReviewsPerMonth"),
  test: (p, _f, v: number, all) => recent(p, all) / (Number(all.recentReviewDays ?? 90) / 30) >= v,
});
bool(
  "engagement",
  "hasRecentReviews",
  "Has recent reviews",
  ["reviewDetails"],
  (p) => (p.reviewAgesDays ?? []).length > 0,
);
bool(
  "engagement",
  "ownerRespondsToReviews",
  "Owner responds to reviews",
  ["reviewDetails"],
  (p) => p.ownerRespondsToReviews,
);
bool("engagement", "activeOnSocial", "Two or more social profiles", ["webPresence"], (p) => socials(p) >= 2);

// --- company size -------------------------------------------------------------------------------
range(
  "companySize",
  ["minEmployees", "maxEmployees"],
  "employees",
  ["employees"],
  { min: 0, max: 1_000_000 },
  (p) => p.employees,
);
range(
  "companySize",
  ["minLocations", "maxLocations"],
  "locations",
  ["employees"],
  { min: 1, max: 100_000 },
  (p) => p.locationsCount,
);
list(
  "companySize",
  "companySize",
  "Company size",
  ["employees"],
  z.enum(["solo", "small", "medium", "large"]),
  (p, _f, v) => p.employees !== undefined && v.includes(sizeOf(p.employees) as never),
  ["solo", "small", "medium", "large"],
);

// --- lead quality -------------------------------------------------------------------------------
range(
  "leadQuality",
  ["minLeadScore", "maxLeadScore"],
  "lead score",
  ["location"],
  { min: 0, max: 100 },
  (_p, f) => f.leadScore,
);
list(
  "leadQuality",
  "leadTier",
  "Lead tiers",
  ["location"],
  z.enum(LEAD_TIERS),
  (_p, f, v) => v.includes(f.tier),
  LEAD_TIERS,
);
bool("leadQuality", "notContacted", "Not already in my contacts", ["crm"], (_p, f) => !f.inContacts);
bool("leadQuality", "dncCompliant", "Phone not on the Do Not Call registry", ["dnc"], () => false);

// --- competitive analysis -----------------------------------------------------------------------
range(
  "competitiveAnalysis",
  ["minCompetitors", "maxCompetitors"],
  "competitors within 1 mile",
  ["location"],
  { min: 0, max: 10_000 },
  (_p, f) => f.competitors,
);
list(
  "competitiveAnalysis",
  "marketSaturation",
  "Market saturation",
  ["location"],
  z.enum(["low", "medium", "high"]),
  (_p, f, v) => v.includes((f.competitors <= 2 ? "low" : f.competitors <= 6 ? "medium" : "high") as never),
  ["low", "medium", "high"],
);
bool(
  "competitiveAnalysis",
  "uniqueInArea",
  "No competitor within 1 mile",
  ["location"],
  (_p, f) => f.competitors === 0,
);
bool(
  "competitiveAnalysis",
  "topRatedInArea",
  "Best rated within 1 mile",
  ["rating"],
  (_p, f) => f.topRatedInArea,
);

// --- business age -------------------------------------------------------------------------------
range(
  "businessAge",
  ["minYearsInBusiness", "maxYearsInBusiness"],
  "years in business",
  ["yearsInBusiness"],
  { min: 0, max: 500 },
  (p) => p.yearsInBusiness,
);
bool(
  "businessAge",
  "newBusiness",
  "New (under 2 years)",
  ["yearsInBusiness"],
  (p) => typeof p.yearsInBusiness === "number" && p.yearsInBusiness < 2,
);
bool(
  "businessAge",
  "establishedBusiness",
  "Established (10+ years)",
  ["yearsInBusiness"],
  (p) => typeof p.yearsInBusiness === "number" && p.yearsInBusiness >= 10,
);

// --- online presence ----------------------------------------------------------------------------
bool("onlinePresence", "hasSocialProfiles", "Has a social profile", ["webPresence"], (p) => socials(p) > 0);
bool("onlinePresence", "hasFacebook", "Facebook", ["webPresence"], (p) => !!p.socials?.facebook);
bool("onlinePresence", "hasInstagram", "Instagram", ["webPresence"], (p) => !!p.socials?.instagram);
bool("onlinePresence", "hasLinkedIn", "LinkedIn", ["webPresence"], (p) => !!p.socials?.linkedin);
bool("onlinePresence", "hasTwitter", "X (Twitter)", ["webPresence"], (p) => !!p.socials?.twitter);
bool("onlinePresence", "hasYouTube", "YouTube", ["webPresence"], (p) => !!p.socials?.youtube);
bool(
  "onlinePresence",
  "hasContactForm",
  "Contact form on the website",
  ["webPresence"],
  (p) => p.hasContactForm,
);
bool("onlinePresence", "noWebsite", "No website (needs one)", ["website"], (p) => !p.website);

// --- certifications and licenses ----------------------------------------------------------------
bool("certifications", "licensed", "Licensed", ["credentials"], (p) => p.credentials?.licensed);
bool("certifications", "insured", "Insured", ["credentials"], (p) => p.credentials?.insured);
bool("certifications", "bonded", "Bonded", ["credentials"], (p) => p.credentials?.bonded);
bool(
  "certifications",
  "bbbAccredited",
  "BBB accredited",
  ["credentials"],
  (p) => p.credentials?.bbbAccredited,
);
defs.push({
  key: "minBBBRating",
  category: "certifications",
  kind: "min",
  label: "Min BBB rating",
  attrs: ["bbbRating"],
  options: BBB,
  schema: z.enum(BBB, { error: `minBBBRating must be one of ${BBB.join(", ")}` }).nullish(),
  test: (p, _f, v: string) => !!p.bbbRating && BBB.indexOf(p.bbbRating as never) <= BBB.indexOf(v as never),
});
list("certifications", "certifications", "Certifications", ["credentials"], word, (p, _f, v) =>
  anyOf(p.credentials?.certifications, v),
);
bool("certifications", "hasAwards", "Has awards", ["credentials"], (p) => p.credentials?.awards);

// --- reputation ---------------------------------------------------------------------------------
bool("reputation", "verified", "Verified listing", ["listingStatus"], (p) => p.listing?.verified);
bool("reputation", "claimed", "Claimed listing", ["listingStatus"], (p) => p.listing?.claimed);
bool("reputation", "noNegativeReviews", "No negative reviews", ["reviewDetails"], (p) => p.noNegativeReviews);
range(
  "reputation",
  ["minFiveStarShare", null],
  "share of 5-star reviews (%)",
  ["reviewDetails"],
  { min: 0, max: 100 },
  (p) => (p.fiveStarShare === undefined ? undefined : p.fiveStarShare * 100),
);
bool("reputation", "featuredInPress", "Featured in the press", ["credentials"], (p) => p.credentials?.press);
bool(
  "reputation",
  "highlyRated",
  "Highly rated (4.5+ with 50+ reviews)",
  ["rating", "reviewCount"],
  (p) => (p.rating ?? 0) >= 4.5 && (p.reviewCount ?? 0) >= 50,
);
bool(
  "reputation",
  "excludeLowRated",
  "Rated 3.0 or more",
  ["rating"],
  (p) => typeof p.rating === "number" && p.rating >= 3,
);

// --- special services ---------------------------------------------------------------------------
bool("specialServices", "offersDelivery", "Delivery", ["services"], (p) => p.services?.delivery);
bool("specialServices", "offersTakeout", "Takeout", ["services"], (p) => p.services?.takeout);
bool("specialServices", "dineIn", "Dine-in", ["services"], (p) => p.services?.dineIn);
bool("specialServices", "acceptsReservations", "Reservations", ["services"], (p) => p.services?.reservations);
bool("specialServices", "onlineBooking", "Online booking", ["services"], (p) => p.services?.onlineBooking);
bool("specialServices", "freeEstimates", "Free estimates", ["services"], (p) => p.services?.freeEstimates);
bool("specialServices", "emergencyService", "Emergency service", ["services"], (p) => p.services?.emergency);
bool(
  "specialServices",
  "mobileService",
  "Comes to the customer",
  ["services"],
  (p) => p.services?.mobileService,
);
bool(
  "specialServices",
  "financingAvailable",
  "Financing available",
  ["services"],
  (p) => p.services?.financing,
);
list("specialServices", "languages", "Languages spoken", ["languages"], word, (p, _f, v) =>
  anyOf(p.languages, v),
);

// --- seasonal and timing ------------------------------------------------------------------------
bool("seasonalTiming", "isOpenNow", "Open now", ["openNow"], (p) => p.hours?.openNow === true);
bool("seasonalTiming", "isClosedNow", "Closed now", ["openNow"], (p) => p.hours?.openNow === false);
bool("seasonalTiming", "openWeekends", "Open on weekends", ["openingHours"], (p) => p.hours?.openWeekends);
bool("seasonalTiming", "openSundays", "Open on Sundays", ["openingHours"], (p) => p.hours?.openSundays);
bool("seasonalTiming", "open24Hours", "Open 24 hours", ["openingHours"], (p) => p.hours?.open24Hours);
bool("seasonalTiming", "openLate", "Open after 9 pm", ["openingHours"], (p) => p.hours?.openLate);
bool("seasonalTiming", "openEarly", "Open before 7 am", ["openingHours"], (p) => p.hours?.openEarly);
bool("seasonalTiming", "seasonalBusiness", "Seasonal business", ["openingHours"], (p) => p.hours?.seasonal);
bool(
  "seasonalTiming",
  "hasHolidayHours",
  "Publishes holiday hours",
  ["openingHours"],
  (p) => p.hours?.hasHolidayHours,
);

// --- safety and health --------------------------------------------------------------------------
bool(
  "safetyHealth",
  "wheelchairAccessible",
  "Wheelchair accessible",
  ["accessibility"],
  (p) => p.accessibility?.wheelchair,
);
bool("safetyHealth", "smokeFree", "Smoke-free", ["healthSafety"], (p) => p.healthSafety?.smokeFree);
bool("safetyHealth", "petFriendly", "Pet-friendly", ["healthSafety"], (p) => p.healthSafety?.petFriendly);
bool(
  "safetyHealth",
  "hasSafetyCertification",
  "Safety certification",
  ["healthSafety"],
  (p) => p.healthSafety?.safetyCertified,
);
bool(
  "safetyHealth",
  "healthInspectionPassed",
  "Passed last health inspection",
  ["inspections"],
  (p) => p.inspectionPassed,
);

// --- payment options ----------------------------------------------------------------------------
bool("paymentOptions", "acceptsCreditCards", "Credit cards", ["payments"], (p) => p.payments?.creditCards);
bool("paymentOptions", "acceptsDebitCards", "Debit cards", ["payments"], (p) => p.payments?.debitCards);
bool("paymentOptions", "acceptsCash", "Cash", ["payments"], (p) => p.payments?.cash);
bool("paymentOptions", "acceptsContactless", "Contactless", ["payments"], (p) => p.payments?.contactless);
bool("paymentOptions", "acceptsMobilePayments", "Mobile payments", ["payments"], (p) => p.payments?.mobile);
bool("paymentOptions", "acceptsCrypto", "Cryptocurrency", ["payments"], (p) => p.payments?.crypto);
bool("paymentOptions", "acceptsChecks", "Checks", ["payments"], (p) => p.payments?.checks);

// --- environmental ------------------------------------------------------------------------------
bool("environmental", "ecoFriendly", "Eco-friendly", ["environmental"], (p) => p.environmental?.ecoFriendly);
bool(
  "environmental",
  "recyclingProgram",
  "Recycling program",
  ["environmental"],
  (p) => p.environmental?.recycling,
);
bool("environmental", "evCharging", "EV charging", ["environmental"], (p) => p.environmental?.evCharging);
bool(
  "environmental",
  "greenCertified",
  "Green certified",
  ["environmental"],
  (p) => p.environmental?.greenCertified,
);
bool(
  "environmental",
  "organicProducts",
  "Organic products",
  ["environmental"],
  (p) => p.environmental?.organic,
);
bool("environmental", "solarPowered", "Solar powered", ["environmental"], (p) => p.environmental?.solar);

// --- business status ----------------------------------------------------------------------------
bool(
  "businessStatus",
  "operational",
  "Operational",
  ["businessStatus"],
  (p) => p.businessStatus === "OPERATIONAL",
);
tri(
  "businessStatus",
  "permanentlyClosed",
  "Permanently closed",
  ["businessStatus"],
  (p) => p.businessStatus === "CLOSED_PERMANENTLY",
);
tri(
  "businessStatus",
  "temporarilyClosed",
  "Temporarily closed",
  ["businessStatus"],
  (p) => p.businessStatus === "CLOSED_TEMPORARILY",
);
bool("businessStatus", "recentlyOpened", "Recently opened", ["businessStatus"], (p) => p.recentlyOpened);
bool(
  "businessStatus",
  "hoursUpdatedRecently",
  "Hours updated recently",
  ["openingHours"],
  (p) => p.hoursUpdatedRecently,
);
bool("businessStatus", "hasHours", "Publishes opening hours", ["openingHours"], (p) => !!p.hours?.text);

/** Every filter of the Filter set, in panel order. */
export const FILTERS: readonly FilterDef[] = defs;
export const FILTER_BY_KEY: ReadonlyMap<string, FilterDef> = new Map(defs.map((d) => [d.key, d]));

/** Defaults of the filter set ("Reset All Filters" restores these): recentReviewDays 90, all else unset. */
export const DEFAULT_FILTERS: FilterValues = { recentReviewDays: 90 };

const PAIRS = defs
  .filter((d) => d.kind === "min" && d.key.startsWith("min"))
  .map((d) => [d.key, `max${d.key.slice(3)}`] as const)
  .filter(([, hi]) => FILTER_BY_KEY.has(hi));

/**
 * The zod schema of a Filter set: every key optional and validated by its kind (ranges within bounds,
 * day counts 1-3650, lists of at most 100 values, text of at most 100 characters, booleans, tri-states
 * with null), each min not above its max. Unknown keys are refused with their names (a typo must not
 * silently widen a search).
 */
export const filterSetSchema = z
  .object(Object.fromEntries(defs.map((d) => [d.key, d.schema])))
  .strict()
  .superRefine((v, ctx) => {
    for (const [lo, hi] of PAIRS) {
      const a = v[lo];
      const b = v[hi];
      if (typeof a === "number" && typeof b === "number" && a > b)
        ctx.addIssue({
          code: "custom",
          path: [lo],
          message: `${humanFieldLabel(lo)} must not be more than ${humanFieldLabel(hi)?.replace(/^\w/, (c) => c.toLowerCase())}`,
        });
    }
    if (v.isOpenNow === true && v.isClosedNow === true)
      ctx.addIssue({
        code: "custom",
        path: ["isOpenNow"],
        message: "Open now and closed now cannot both be set",
      });
  });

/** Whether a filter value constrains the search (see the kinds above). */
export function isSet(def: FilterDef, v: unknown): boolean {
  switch (def.kind) {
    case "days":
      return false;
    case "bool":
      return v === true;
    case "tri":
      return v === true || v === false;
    case "min":
    case "max":
      return v !== undefined && v !== null;
    case "list":
      return Array.isArray(v) && v.length > 0;
    case "text":
      return typeof v === "string" && v.trim() !== "";
  }
}

/** The set filters of a validated filter set, with their definitions. */
export function activeFilters(values: FilterValues): { def: FilterDef; value: unknown }[] {
  const out: { def: FilterDef; value: unknown }[] = [];
  for (const def of defs) if (isSet(def, values[def.key])) out.push({ def, value: values[def.key] });
  return out;
}

/**
 * The set filters a provider supplying `supplied` cannot answer, each with the reason, e.g.
 * { key: "hasEmail", reason: "Google does not supply email addresses" }.
 */
export function unanswerable(
  values: FilterValues,
  supplied: ReadonlySet<string>,
  providerLabel: string,
): { key: string; reason: string }[] {
  return activeFilters(values)
    .map(({ def }) => ({ def, missing: def.attrs.filter((a) => !supplied.has(a)) }))
    .filter((x) => x.missing.length > 0)
    .map(({ def, missing }) => ({ key: def.key, reason: reasonFor(missing, providerLabel) }));
}

/** "Google does not supply email addresses" (the sentence shown next to a disabled filter). */
export function reasonFor(missing: PlaceAttribute[], providerLabel: string): string {
  return `${providerLabel} does not supply ${missing.map((m) => ATTRIBUTE_LABELS[m]).join(" or ")}`;
}

/** Whether a place passes every set filter. */
export function passes(
  p: Place,
  f: LeadFacts,
  values: FilterValues,
  active = activeFilters(values),
): boolean {
  for (const { def, value } of active) if (!def.test(p, f, value as never, values)) return false;
  return true;
}
