import { activeFilters, type FilterValues } from "./leads.filters";

/** An industry preset (spec section 3 "Preset"): id, name, the business type it searches and filters. */
export interface Preset {
  id: string;
  name: string;
  businessType: string;
  filters: FilterValues;
}

/**
 * The industry presets (issue 13: at least 12). Their filters lean on widely supplied attributes
 * (phone, website, rating, review count, business status); `presetsFor` drops any a provider cannot
 * answer, so a preset never causes a 422.
 */
export const PRESETS: readonly Preset[] = [
  {
    id: "restaurants",
    name: "Restaurants",
    businessType: "restaurant",
    filters: { hasPhone: true, minRating: 3.5, operational: true },
  },
  {
    id: "dentists",
    name: "Dentists",
    businessType: "dentist",
    filters: { hasPhone: true, hasWebsite: true, minReviews: 10 },
  },
  {
    id: "plumbers",
    name: "Plumbers",
    businessType: "plumber",
    filters: { hasPhone: true, operational: true },
  },
  { id: "hvac", name: "HVAC Contractors", businessType: "hvac", filters: { hasPhone: true, minRating: 3.5 } },
  { id: "roofers", name: "Roofers", businessType: "roofer", filters: { hasPhone: true, hasWebsite: true } },
  {
    id: "real-estate",
    name: "Real Estate Agents",
    businessType: "real estate",
    filters: { hasPhone: true, hasWebsite: true },
  },
  {
    id: "salons",
    name: "Hair and Beauty Salons",
    businessType: "salon",
    filters: { hasPhone: true, minRating: 4 },
  },
  {
    id: "auto-repair",
    name: "Auto Repair Shops",
    businessType: "auto repair",
    filters: { hasPhone: true, minReviews: 5, operational: true },
  },
  {
    id: "law-firms",
    name: "Law Firms",
    businessType: "law firm",
    filters: { hasPhone: true, hasWebsite: true },
  },
  {
    id: "gyms",
    name: "Gyms and Fitness Studios",
    businessType: "gym",
    filters: { hasWebsite: true, minRating: 3.5 },
  },
  {
    id: "chiropractors",
    name: "Chiropractors",
    businessType: "chiropractor",
    filters: { hasPhone: true, minReviews: 5 },
  },
  { id: "landscapers", name: "Landscapers", businessType: "landscaper", filters: { hasPhone: true } },
  {
    id: "no-website",
    name: "Businesses Without a Website (web design leads)",
    businessType: "restaurant",
    filters: { noWebsite: true, hasPhone: true, operational: true },
  },
];

/** The presets with only the filters the provider supplying `supplied` can answer. */
export function presetsFor(supplied: ReadonlySet<string>): Preset[] {
  return PRESETS.map((p) => ({
    ...p,
    filters: Object.fromEntries(
      activeFilters(p.filters)
        .filter(({ def }) => def.attrs.every((a) => supplied.has(a)))
        .map(({ def, value }) => [def.key, value]),
    ),
  }));
}
