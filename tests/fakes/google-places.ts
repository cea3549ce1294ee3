import { type RecordedRequest, startFake } from "./http";

/**
 * A fake of Google Places API (New) (`POST /v1/places:searchNearby`, `POST /v1/places:searchText`)
 * answering with Google's documented shapes: `{places:[{id, displayName:{text, languageCode},
 * formattedAddress, location:{latitude, longitude}, rating, userRatingCount, priceLevel:
 * "PRICE_LEVEL_MODERATE", businessStatus, currentOpeningHours:{openNow}, nationalPhoneNumber,
 * websiteUri, types}]}` (an empty answer is `{}`), `nextPageToken` on text search pages, and errors
 * as `{error:{code, message, status}}`. It checks the API key header and the field mask, honours the
 * circle restriction (nearby, 20 nearest with rankPreference DISTANCE) and pages text results by 20.
 * Like Google, it answers only the fields the `X-Goog-FieldMask` names (comma-separated paths from the
 * response root: `places.id`, `places.currentOpeningHours.openNow`, `nextPageToken`; `*` for all):
 * a field left out of the mask is absent, `nextPageToken` included. A circle radius outside 0-50,000 m
 * or a maxResultCount/pageSize outside 1-20 is a 400 INVALID_ARGUMENT. Source:
 * developers.google.com/maps/documentation/places/web-service (choose-fields, nearby-search, text-search).
 */
export async function startGooglePlacesFake(opts: { apiKey: string; places: FakeGPlace[] }) {
  const fake = await startFake((req: RecordedRequest) => {
    if (req.headers["x-goog-api-key"] !== opts.apiKey)
      return {
        status: 403,
        json: {
          error: {
            code: 403,
            message: "The provided API key is invalid.",
            status: "PERMISSION_DENIED",
          },
        },
      };
    if (!req.headers["x-goog-fieldmask"])
      return {
        status: 400,
        json: {
          error: { code: 400, message: "FieldMask is a required parameter.", status: "INVALID_ARGUMENT" },
        },
      };
    const body = JSON.parse(req.body || "{}");
    const mask = String(req.headers["x-goog-fieldmask"])
      .split(",")
      .map((f) => f.trim())
      .filter(Boolean);
    const circle = body.locationRestriction?.circle ?? body.locationBias?.circle;
    const count = body.maxResultCount ?? body.pageSize;
    if (
      (circle && !(circle.radius > 0 && circle.radius <= 50_000)) ||
      (count !== undefined && !(Number.isInteger(count) && count >= 1 && count <= 20))
    )
      return {
        status: 400,
        json: {
          error: {
            code: 400,
            message:
              circle && !(circle.radius > 0 && circle.radius <= 50_000)
                ? "Invalid radius. Must be between 0.0 and 50000.0."
                : "Invalid maxResultCount. Must be between 1 and 20.",
            status: "INVALID_ARGUMENT",
          },
        },
      };
    const answer = (json: Record<string, unknown>) => ({ status: 200, json: applyMask(json, mask) });
    if (req.path === "/v1/places:searchNearby") {
      const c = body.locationRestriction?.circle;
      const hits = opts.places
        .filter((p) => !body.includedTypes || p.types.some((t: string) => body.includedTypes.includes(t)))
        .map((p) => ({ p, d: metres(c.center, p.location) }))
        .filter((h) => h.d <= c.radius)
        .sort((a, b) => a.d - b.d)
        .slice(0, Math.min(20, body.maxResultCount ?? 20))
        .map((h) => h.p);
      return answer(hits.length ? { places: hits } : {});
    }
    if (req.path === "/v1/places:searchText") {
      const words = String(body.textQuery).toLowerCase();
      const all = opts.places.filter((p) =>
        p.displayName.text.toLowerCase().includes(words.split(" ")[0] ?? ""),
      );
      const start = body.pageToken ? Number(body.pageToken) : 0;
      const page = all.slice(start, start + 20);
      const next = start + 20 < all.length ? String(start + 20) : undefined;
      return answer({
        ...(page.length ? { places: page } : {}),
        ...(next ? { nextPageToken: next } : {}),
      });
    }
    return { status: 404, json: { error: { code: 404, message: "Not found", status: "NOT_FOUND" } } };
  });
  return fake;
}

/**
 * Keeps only the masked paths of a response (`places.displayName` keeps the whole displayName of every
 * place; `*` keeps everything), as Google's field masks do.
 */
export function applyMask(json: Record<string, unknown>, mask: string[]): Record<string, unknown> {
  if (mask.includes("*")) return json;
  const pick = (value: unknown, paths: string[][]): unknown => {
    if (paths.some((p) => p.length === 0)) return value;
    if (Array.isArray(value)) return value.map((v) => pick(v, paths));
    if (!value || typeof value !== "object") return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const sub = paths.filter((p) => p[0] === k).map((p) => p.slice(1));
      if (!sub.length) continue;
      const picked = pick(v, sub);
      if (picked !== undefined) out[k] = picked;
    }
    return out;
  };
  return pick(
    json,
    mask.map((m) => m.split(".")),
  ) as Record<string, unknown>;
}

export interface FakeGPlace {
  id: string;
  displayName: { text: string; languageCode: string };
  formattedAddress: string;
  location: { latitude: number; longitude: number };
  rating?: number;
  userRatingCount?: number;
  priceLevel?: string;
  businessStatus?: string;
  currentOpeningHours?: { openNow: boolean };
  nationalPhoneNumber?: string;
  websiteUri?: string;
  types: string[];
}

function metres(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }) {
  const r = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * r) / 2) ** 2 +
    Math.cos(a.latitude * r) *
      Math.cos(b.latitude * r) *
      Math.sin(((b.longitude - a.longitude) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}
