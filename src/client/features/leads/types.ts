import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

type Out = inferRouterOutputs<AppRouter>["leads"];
/** A search response (inferred from the tRPC router). */
export type SearchResult = Out["search"];
export type Business = SearchResult["businesses"][number];
export type FilterCatalogue = Out["filters"];
export type FilterInfo = FilterCatalogue["filters"][number];
export type SavedSearch = Out["savedSearches"][number];
export type Preset = Out["presets"][number];
