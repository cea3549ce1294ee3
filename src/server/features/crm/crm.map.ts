import type { AppContext } from "../../context";
import { parseInput } from "../../lib/validate";
import { toContactJson } from "./crm.contact-json";
import { selectContactsNear, selectLocatedContacts } from "./crm.queries";
import { locationSearchSchema } from "./crm.schemas";

// The map: located contacts and the radius search.

const EARTH_RADIUS_MILES = 3958.7613;

/** Contacts of the user that have coordinates (the map's markers), newest first, at most 5,000. */
export async function listLocatedContacts(ctx: Pick<AppContext, "db">, workspaceId: string) {
  return (await selectLocatedContacts(ctx.db, workspaceId, 5000)).map(toContactJson);
}

/**
 * POST /api/contacts/search/location {latitude, longitude, radius_miles}: contacts within the
 * great-circle (haversine) distance, nearest first, each with `distance_miles`, at most 5,000. A
 * bounding box on (latitude, longitude) lets the (workspace_id, latitude, longitude) index prune
 * before the exact test. @throws BAD_REQUEST on invalid coordinates or radius.
 */
export async function searchByLocation(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const q = parseInput(locationSearchSchema, input);
  const dLat = (q.radius_miles / EARTH_RADIUS_MILES) * (180 / Math.PI);
  const cosLat = Math.cos((q.latitude * Math.PI) / 180);
  const dLng = cosLat < 1e-6 ? 180 : Math.min(180, dLat / cosLat);
  const rows = await selectContactsNear(ctx.db, workspaceId, {
    latitude: q.latitude,
    longitude: q.longitude,
    radiusMiles: q.radius_miles,
    dLat,
    dLng,
    earthRadiusMiles: EARTH_RADIUS_MILES,
    limit: 5000,
  });
  return rows.map((r) => ({ ...toContactJson(r.c), distance_miles: Math.round(r.distance * 100) / 100 }));
}
