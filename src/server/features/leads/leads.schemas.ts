import { z } from "zod";
import { filterSetSchema } from "./leads.filters";

const BOTH = "Please enter both location and business type";

/**
 * POST /api/maps/search (spec section 7): {location, businessType, radius (total, miles, 1-50,
 * default 25), searchRadius (circle size, miles, 1-5 in steps of 0.5, default 2), filters, usePreset}
 * and the save variant {saveSearch: true, searchName}. `savedSearchId` re-runs a saved search (its new
 * results are marked); `searchId` (a UUID the client picks) lets the client follow progress; `enrich` queues website
 * enrichment of the results.
 */
export const searchSchema = z
  .object({
    location: z.string({ error: BOTH }).trim().max(200, "location must be at most 200 characters"),
    businessType: z
      .string({ error: BOTH })
      .trim()
      .max(100, "businessType must be at most 100 characters")
      // punctuation alone names no business (and became a match-everything name search on OpenStreetMap)
      .refine(
        (v) => v === "" || /[\p{L}\p{N}]/u.test(v),
        'businessType must contain letters or digits (for example "dentist")',
      ),
    radius: z.coerce
      .number({ error: "radius must be a number of miles" })
      .min(1, "radius must be between 1 and 50 miles")
      .max(50, "radius must be between 1 and 50 miles")
      .default(25),
    searchRadius: z.coerce
      .number({ error: "searchRadius must be a number of miles" })
      .min(1, "searchRadius (circle size) must be between 1 and 5 miles")
      .max(5, "searchRadius (circle size) must be between 1 and 5 miles")
      // multipleOf (not a refine): the OpenAPI document states the step too
      .multipleOf(0.5, "searchRadius (circle size) goes in steps of 0.5 miles")
      .default(2),
    filters: filterSetSchema.default({}),
    usePreset: z.string().max(50).nullish(),
    saveSearch: z.boolean().optional(),
    searchName: z.string().trim().max(100, "searchName must be at most 100 characters").optional(),
    savedSearchId: z.uuid("savedSearchId must be a saved search id").optional(),
    searchId: z.uuid("searchId must be a UUID").optional(),
    /** visit the results' websites for public emails and social profiles (a background job) */
    enrich: z.boolean({ error: "enrich must be true or false" }).optional(),
  })
  .superRefine((v, ctx) => {
    if (!v.location || !v.businessType) ctx.addIssue({ code: "custom", path: [], message: BOTH });
    if (v.saveSearch && !v.searchName)
      ctx.addIssue({ code: "custom", path: [], message: "Please enter a search name" });
  });
export type SearchInput = z.input<typeof searchSchema>;

/** POST /api/maps/swap-location {savedSearchId, newLocation}. */
export const swapLocationSchema = z.object({
  savedSearchId: z.uuid("savedSearchId must be a saved search id"),
  newLocation: z
    .string({ error: "newLocation is required" })
    .trim()
    .min(1, "newLocation is required")
    .max(200, "newLocation must be at most 200 characters"),
  searchId: z.uuid().optional(),
});

/**
 * POST /api/maps/results/add-to-contacts {searchId, placeIds, tagName?} (and tRPC leads.addToContacts).
 * Closed: an unknown key (`tag`, `tag_name`) is a 400 naming it, not contacts added without their tag.
 */
export const addToContactsSchema = z.strictObject({
  searchId: z.uuid("searchId must be a search id"),
  placeIds: z
    .array(z.string().min(1).max(300), { error: "placeIds must be a list of place ids" })
    .min(1, "Select at least one result")
    .max(5000, "At most 5,000 results at once"),
  tagName: z.string().trim().max(50, "tagName must be at most 50 characters").optional(),
});

export const idSchema = z.uuid("Saved search not found");
