import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../../context";
import { requireTenant } from "../../http/auth";
import * as leads from "./leads.service";

const tenantOf = (req: FastifyRequest) => {
  const t = requireTenant(req);
  return { userId: t.userId, workspaceId: t.workspaceId };
};

/**
 * REST adapters of the business lead search (spec section 7 "/api/maps/*"), scoped to the active
 * workspace; errors answer `{success:false, error}` with the status of the one error table
 * (400 validation, 402 quota, 404, 409, 422 unknown place or unanswerable filters, 502 provider).
 */
export async function leadsRest(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  /** {presets:[{id, name, businessType, filters}]} */
  app.get("/api/maps/presets", async (req) => {
    tenantOf(req);
    return { success: true, presets: leads.listPresets(ctx) };
  });

  /** The filter catalogue with answerability for the active provider (the panel's disabled filters). */
  app.get("/api/maps/filters", async (req) => {
    tenantOf(req);
    return { success: true, ...leads.filterCatalogue(ctx) };
  });

  /** {searches:[{id, search_name, location, business_type, radius, filters, result_count}]} */
  app.get("/api/maps/saved-searches", async (req) => {
    return { success: true, searches: await leads.listSavedSearches(ctx, tenantOf(req)) };
  });

  /** A search, or with {saveSearch: true, searchName} also saves it. */
  app.post("/api/maps/search", async (req) => leads.searchBusinesses(ctx, tenantOf(req), req.body));

  app.post("/api/maps/swap-location", async (req) => leads.swapLocation(ctx, tenantOf(req), req.body));

  app.delete("/api/maps/saved-searches/:id", async (req) =>
    leads.deleteSavedSearch(ctx, tenantOf(req), (req.params as { id: string }).id),
  );

  /** {searchId, placeIds, tagName?} -> {success, created, updated, skipped, skippedResults, inContacts, contactIds} */
  app.post("/api/maps/results/add-to-contacts", async (req) =>
    leads.addResultsToContacts(ctx, tenantOf(req), req.body),
  );
}
