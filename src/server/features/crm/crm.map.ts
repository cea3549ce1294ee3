import type { AppContext } from "../../context";
import { parseInput } from "../../lib/validate";
import { toContactJson } from "./crm.contact-json";
import { type MapContactRow, selectContactsNear, selectLocatedContacts } from "./crm.queries";
import { locationSearchSchema } from "./crm.schemas";

// The map: located contacts and the radius search.

const EARTH_RADIUS_MILES = 3958.7613;

/**
 * A map contact as JSON: toContactJson's fields without `custom_fields` (the map never shows them,
 * and 5,000 contacts' custom fields could make a response of 125 MB).
 */
function toMapContactJson(row: MapContactRow) {
  const { custom_fields: _, ...json } = toContactJson({ ...row, customFields: {}, searchText: null });
  return json;
}

/**
 * Contacts of the workspace that have coordinates (the map's markers), newest first, at most 5,000,
 * each as toContactJson without `custom_fields`.
 */
export async function listLocatedContacts(ctx: Pick<AppContext, "db">, workspaceId: string) {
  return (await selectLocatedContacts(ctx.db, workspaceId, 5000)).map(toMapContactJson);
}

/**
 * Half-sides (degrees) of the latitude/longitude box around a circle of `radiusMiles` centred at
 * `latitude`: `dLat` is the radius as an arc; `dLng` the widest longitude the circle reaches,
 * asin(sin r / cos latitude) (wider than r / cos latitude: the circle's widest point lies poleward of
 * its centre), and 180 (every longitude) when the circle holds a pole.
 */
export function searchBox(latitude: number, radiusMiles: number): { dLat: number; dLng: number } {
  const r = radiusMiles / EARTH_RADIUS_MILES;
  const dLat = (r * 180) / Math.PI;
  if (Math.abs(latitude) + dLat >= 90) return { dLat, dLng: 180 };
  const s = Math.sin(r) / Math.cos((latitude * Math.PI) / 180);
  return { dLat, dLng: s >= 1 ? 180 : (Math.asin(s) * 180) / Math.PI };
}

/**
 * POST /api/contacts/search/location {latitude, longitude, radius_miles}: contacts within the
 * great-circle (haversine) distance, nearest first, each with `distance_miles` (and, as the map's
 * markers, without `custom_fields`), at most 5,000. A
 * bounding box on (latitude, longitude) (searchBox; wrapped across the 180th meridian, every
 * longitude around a pole) lets the (workspace_id, latitude, longitude) index prune before the exact
 * test. @throws BAD_REQUEST on invalid coordinates or radius.
 */
export async function searchByLocation(ctx: Pick<AppContext, "db">, workspaceId: string, input: unknown) {
  const q = parseInput(locationSearchSchema, input);
  const { dLat, dLng } = searchBox(q.latitude, q.radius_miles);
  const rows = await selectContactsNear(ctx.db, workspaceId, {
    latitude: q.latitude,
    longitude: q.longitude,
    radiusMiles: q.radius_miles,
    dLat,
    dLng,
    earthRadiusMiles: EARTH_RADIUS_MILES,
    limit: 5000,
  });
  return rows.map((r) => ({ ...toMapContactJson(r.c), distance_miles: Math.round(r.distance * 100) / 100 }));
}
