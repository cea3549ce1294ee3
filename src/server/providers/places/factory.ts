import type { Env } from "../../../env";
import { GooglePlacesProvider } from "./google";
import type { PlacesProvider } from "./index";
import { LocalPlacesProvider } from "./local";
import { OsmPlacesProvider } from "./osm";

/** PLACES_PROVIDER: `local` (default, offline demo data), `osm` (OVERPASS_URL) or `google` (GOOGLE_PLACES_API_KEY). */
export function createPlacesProvider(env: Env): PlacesProvider {
  if (env.PLACES_PROVIDER === "google")
    return new GooglePlacesProvider({
      apiKey: env.GOOGLE_PLACES_API_KEY ?? "",
      apiUrl: env.GOOGLE_PLACES_API_URL,
    });
  if (env.PLACES_PROVIDER === "osm") return new OsmPlacesProvider({ url: env.OVERPASS_URL });
  return new LocalPlacesProvider();
}
