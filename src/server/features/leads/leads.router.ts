import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/init";
import * as leads from "./leads.service";

/** Inputs validated by the service's own schemas (same messages as REST). */
const loose = z.record(z.string(), z.unknown());
const tenantOf = (ctx: { tenant: { userId: string; workspaceId: string } }) => ({
  userId: ctx.tenant.userId,
  workspaceId: ctx.tenant.workspaceId,
});

/** tRPC `leads` router: the /api/maps operations through the same service, scoped to the workspace. */
export const leadsRouter = router({
  presets: protectedProcedure.query(({ ctx }) => leads.listPresets(ctx)),
  filters: protectedProcedure.query(({ ctx }) => leads.filterCatalogue(ctx)),
  savedSearches: protectedProcedure.query(({ ctx }) => leads.listSavedSearches(ctx, tenantOf(ctx))),
  search: protectedProcedure
    .input(loose)
    .mutation(({ ctx, input }) => leads.searchBusinesses(ctx, tenantOf(ctx), input)),
  progress: protectedProcedure
    .input(z.object({ searchId: z.string().max(64) }))
    .query(({ ctx, input }) => leads.searchProgress(ctx, tenantOf(ctx), input.searchId)),
  /** the stored results of a search (after enrichment: emails, socials, re-scored, deferred filters applied) */
  results: protectedProcedure
    .input(z.object({ searchId: z.string().max(64) }))
    .query(async ({ ctx, input }) => {
      const r = await leads.getSearchResults(ctx, tenantOf(ctx), input.searchId, 0, 5000);
      return r.results.filter((b): b is leads.BusinessJson => !("purged" in b && b.purged === true));
    }),
  swapLocation: protectedProcedure
    .input(loose)
    .mutation(({ ctx, input }) => leads.swapLocation(ctx, tenantOf(ctx), input)),
  deleteSavedSearch: protectedProcedure
    .input(z.object({ id: z.string().max(64) }))
    .mutation(({ ctx, input }) => leads.deleteSavedSearch(ctx, tenantOf(ctx), input.id)),
  addToContacts: protectedProcedure
    .input(loose)
    .mutation(({ ctx, input }) => leads.addResultsToContacts(ctx, tenantOf(ctx), input)),
});
