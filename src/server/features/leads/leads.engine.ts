import type { Place, PlacesProvider } from "../../providers/places";
import { type Circle, distanceMi, hexCovering, type LatLng, splitCircle } from "./leads.geo";

/** Adaptive search starts from circles this many times the user's circle size (sparse areas: few calls). */
export const COARSE_FACTOR = 4;
/** Smallest circle the adaptive search splits down to, miles (about 200 m). */
export const MIN_RADIUS_MI = 0.125;
/** A dense full answer may shrink the next circles by up to this factor at once (instead of 2). */
export const JUMP = 6;

export interface GridSearchOptions {
  provider: Pick<PlacesProvider, "searchNearby" | "maxRadiusMi" | "concurrency" | "ratePerSecond">;
  centre: LatLng;
  /** total search radius, miles (1-50) */
  radiusMi: number;
  /** circle size, miles (1-5): the uniform grid's circle radius; the adaptive grid's resolution */
  circleMi: number;
  businessType: string;
  /** provider calls this search may make (PLACES_MAX_CALLS_PER_SEARCH) */
  maxCalls: number;
  /**
   * `adaptive` (default): a hexagonal covering with circles COARSE_FACTOR x the circle size (at most
   * the provider's largest radius), each circle whose answer is full split into the 7 half-size
   * circles that cover it, down to MIN_RADIUS_MI. `uniform`: the hexagonal covering at the circle size,
   * no splitting (the baseline the benchmark compares against).
   */
  mode?: "adaptive" | "uniform";
  minRadiusMi?: number;
  /** called after each answered circle: circles answered, circles known so far, calls made */
  onProgress?: (p: { done: number; total: number; apiCalls: number }) => void;
  signal?: AbortSignal;
}

export interface GridSearchResult {
  /** places inside the search disk, merged by place id, nearest first */
  places: Place[];
  /** circles queried, in order */
  circles: Circle[];
  apiCalls: number;
  /** the call cap stopped the search before every circle was answered */
  capped: boolean;
  /** circles left unsearched because of the cap */
  skippedCircles: number;
  /** answers still full at the minimum circle size (places may be missing there) */
  saturatedCircles: number;
}

/**
 * Runs a multi-circle grid search (issue 13 "Search engine"): covers the disk (centre, radiusMi) with
 * circles, queries the provider with at most `provider.concurrency` requests in flight and at most
 * `provider.ratePerSecond` request starts per second, merges answers by place id (keeping only places
 * inside the disk), and splits a circle whose answer was full. When the provider ranks by distance,
 * a full answer is complete up to its farthest place, so child circles inside that distance are not
 * asked again. Stops issuing calls at `maxCalls` and reports it (`capped`, `skippedCircles`).
 * Provider errors propagate (the first one aborts the search).
 */
export async function runGridSearch(o: GridSearchOptions): Promise<GridSearchResult> {
  const mode = o.mode ?? "adaptive";
  const minR = o.minRadiusMi ?? MIN_RADIUS_MI;
  const topR =
    mode === "uniform"
      ? o.circleMi
      : Math.min(o.provider.maxRadiusMi, Math.max(o.circleMi, o.circleMi * COARSE_FACTOR));
  const queue: Circle[] = hexCovering(o.centre, o.radiusMi, topR);
  const found = new Map<string, Place & { d: number }>();
  const circles: Circle[] = [];
  /** disks known to be complete: unfull answers, and full distance-ranked answers up to their farthest place */
  const certified: Circle[] = [];
  let apiCalls = 0;
  let done = 0;
  let total = queue.length;
  let capped = false;
  let saturated = 0;
  let inflight = 0;
  let failure: unknown = null;
  const spacingMs = 1000 / Math.max(0.001, o.provider.ratePerSecond);
  let nextSlot = 0;

  const takeSlot = async () => {
    const now = Date.now();
    const at = Math.max(now, nextSlot);
    nextSlot = at + spacingMs;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  };

  const handle = async (c: Circle) => {
    await takeSlot();
    const ans = await o.provider.searchNearby({
      lat: c.lat,
      lng: c.lng,
      radiusMi: c.radiusMi,
      businessType: o.businessType,
      signal: o.signal,
    });
    apiCalls += ans.calls;
    circles.push(c);
    let farthest = 0;
    for (const p of ans.places) {
      const dc = distanceMi(c, p);
      if (dc > farthest) farthest = dc;
      const d = distanceMi(o.centre, p);
      if (d > o.radiusMi) continue;
      if (!found.has(p.placeId)) found.set(p.placeId, { ...p, d });
    }
    if (!ans.full) certified.push(c);
    if (ans.full && mode === "adaptive") {
      if (c.radiusMi / 2 < minR) {
        saturated++;
      } else {
        // A distance-ranked full answer holds every place nearer than its farthest one, and tells the
        // local density: the rest of the circle is covered by circles sized so that about 60 % of the
        // cap is expected in each (radius 0.75 x the farthest distance). Otherwise: 7 half-size circles.
        const known = ans.rankedByDistance ? farthest * 0.999 : 0;
        if (known > 0) certified.push({ lat: c.lat, lng: c.lng, radiusMi: known });
        const childR = ans.rankedByDistance
          ? Math.max(minR, Math.min(c.radiusMi / 2, Math.max(c.radiusMi / JUMP, 0.75 * farthest)))
          : c.radiusMi / 2;
        const children =
          ans.rankedByDistance && childR < c.radiusMi / 2
            ? hexCovering(c, c.radiusMi, childR)
            : splitCircle(c);
        for (const child of children) {
          if (distanceMi(o.centre, child) > o.radiusMi + child.radiusMi) continue; // outside the disk
          if (certified.some((k) => distanceMi(k, child) + child.radiusMi <= k.radiusMi)) continue; // complete
          queue.push(child);
          total++;
        }
      }
    } else if (ans.full) saturated++;
    done++;
    o.onProgress?.({ done, total, apiCalls });
  };

  await new Promise<void>((resolve) => {
    const pump = () => {
      if (failure) {
        if (inflight === 0) resolve();
        return;
      }
      while (inflight < Math.max(1, o.provider.concurrency) && queue.length > 0) {
        if (apiCalls + inflight >= o.maxCalls) {
          capped = true;
          break;
        }
        const c = queue.shift() as Circle;
        inflight++;
        handle(c)
          .catch((e) => {
            failure ??= e;
          })
          .finally(() => {
            inflight--;
            pump();
          });
      }
      if (inflight === 0 && (queue.length === 0 || capped || failure)) resolve();
    };
    pump();
  });
  if (failure) throw failure;
  const places = [...found.values()].sort((a, b) => a.d - b.d).map(({ d: _d, ...p }) => p);
  return {
    places,
    circles,
    apiCalls,
    capped,
    skippedCircles: capped ? queue.length : 0,
    saturatedCircles: saturated,
  };
}
