/**
 * Geometry of the business lead search (issue 13, spec section 2 "Business lead search"): great-circle
 * distances, an azimuthal-equidistant local plane around the search centre, and the hexagonal-lattice
 * covering of the search disk by equal circles.
 *
 * Units: miles and WGS84 degrees throughout. 1 mile = 1609.34 m (spec section 9).
 */

/** Mean Earth radius in miles (IUGG mean radius 6,371.0088 km / 1.60934). */
export const EARTH_RADIUS_MI = 3958.7613;
export const METRES_PER_MILE = 1609.34;

export interface LatLng {
  lat: number;
  lng: number;
}

/** A search circle: centre and radius in miles. */
export interface Circle extends LatLng {
  radiusMi: number;
}

const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** Great-circle (haversine) distance in miles between two points. */
export function distanceMi(a: LatLng, b: LatLng): number {
  const dφ = rad(b.lat - a.lat);
  const dλ = rad(b.lng - a.lng);
  const h = Math.sin(dφ / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dλ / 2) ** 2;
  return 2 * EARTH_RADIUS_MI * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The point reached from `origin` after `distMi` miles on initial bearing `bearingRad` (radians
 * clockwise from north): the direct geodesic problem on a sphere.
 */
export function destination(origin: LatLng, bearingRad: number, distMi: number): LatLng {
  const δ = distMi / EARTH_RADIUS_MI;
  const φ1 = rad(origin.lat);
  const λ1 = rad(origin.lng);
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(δ) + Math.cos(φ1) * Math.sin(δ) * Math.cos(bearingRad));
  const λ2 =
    λ1 +
    Math.atan2(Math.sin(bearingRad) * Math.sin(δ) * Math.cos(φ1), Math.cos(δ) - Math.sin(φ1) * Math.sin(φ2));
  return { lat: deg(φ2), lng: ((deg(λ2) + 540) % 360) - 180 };
}

/**
 * Azimuthal-equidistant projection around `centre`: plane coordinates (x east, y north, miles) to a
 * point. Distances from the centre are exact; distortion elsewhere is of order (d/R)^2/6, about
 * 3e-5 at 50 miles, far below the lattice's safety margin.
 */
export function fromPlane(centre: LatLng, x: number, y: number): LatLng {
  const d = Math.hypot(x, y);
  if (d === 0) return { lat: centre.lat, lng: centre.lng };
  return destination(centre, Math.atan2(x, y), d);
}

/**
 * Overlap margin: the provider is asked for circles 0.1 % larger than the lattice they were laid out
 * for (at 2 miles about 10 feet), so projection and floating-point error can never open a gap.
 */
export const REQUEST_MARGIN = 1.001;

/**
 * Centres of a hexagonal covering of the disk (centre, `radiusMi`) by circles of radius `circleMi`,
 * in the local plane (x east, y north, miles). The circles sit on a triangular lattice with spacing
 * r*sqrt(3), whose Voronoi cells are regular hexagons inscribed in the circles, so the circles cover
 * the plane (Kershner 1939: the thinnest covering of the plane by equal circles). First every lattice
 * point whose hexagon reaches into the disk is kept; then rim circles whose part of the disk is already
 * covered by their neighbours (circles reach past their hexagons) are dropped, outermost first, by an
 * exact test (see `removable`). The lattice is tried at four offsets (a lattice point, a triangle
 * centroid, an edge midpoint, a row midpoint at the centre) and the smallest covering wins.
 * Counts: 211 circles for 25/2, 37 for 10/2, 142 for 50/5 (tests/unit/leads-geo.test.ts).
 *
 * When `circleMi >= radiusMi` the answer is the single circle at the centre. Results are memoised
 * per (radius, circle size).
 */
export function hexCoveringPlane(radiusMi: number, circleMi: number): { x: number; y: number }[] {
  if (!(radiusMi > 0) || !(circleMi > 0)) throw new RangeError("radius and circle size must be positive");
  if (circleMi >= radiusMi) return [{ x: 0, y: 0 }];
  const key = `${radiusMi}|${circleMi}`;
  const cached = planCache.get(key);
  if (cached) return cached;
  const r = circleMi;
  const d = r * Math.sqrt(3); // centre spacing
  const rowH = r * 1.5;
  const offsets: [number, number][] = [
    [0, 0],
    [d / 2, rowH / 3],
    [d / 2, 0],
    [0, rowH / 2],
  ];
  let best: { x: number; y: number }[] | null = null;
  for (const [ox, oy] of offsets) {
    const pts: { x: number; y: number }[] = [];
    const rows = Math.ceil((radiusMi + r) / rowH) + 1;
    const cols = Math.ceil((radiusMi + r) / d) + 1;
    for (let j = -rows; j <= rows; j++) {
      const y = j * rowH + oy;
      const shift = (((j % 2) + 2) % 2) * (d / 2);
      for (let i = -cols; i <= cols; i++) {
        const x = i * d + shift + ox;
        if (hexDistanceToOrigin(x, y, r) <= radiusMi) pts.push({ x, y });
      }
    }
    const pruned = prune(pts, radiusMi, r * REQUEST_MARGIN);
    if (!best || pruned.length < best.length) best = pruned;
  }
  const out = best ?? [{ x: 0, y: 0 }];
  if (planCache.size > 500) planCache.clear();
  planCache.set(key, out);
  return out;
}
const planCache = new Map<string, { x: number; y: number }[]>();

/**
 * Distance from the origin to the regular hexagon (circumradius `r`, pointy side up: vertices at 90°,
 * 150°, ...) centred at (cx, cy); 0 when the origin is inside it.
 */
function hexDistanceToOrigin(cx: number, cy: number, r: number): number {
  let inside = true;
  let best = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 6; k++) {
    const a1 = Math.PI / 2 + (k * Math.PI) / 3;
    const a2 = a1 + Math.PI / 3;
    const x1 = cx + r * Math.cos(a1);
    const y1 = cy + r * Math.sin(a1);
    const ex = cx + r * Math.cos(a2) - x1;
    const ey = cy + r * Math.sin(a2) - y1;
    // vertices run counter-clockwise: the origin is inside when it is left of every edge
    if (ex * -y1 - ey * -x1 < 0) inside = false;
    const t = Math.max(0, Math.min(1, (-x1 * ex - y1 * ey) / (ex * ex + ey * ey)));
    best = Math.min(best, Math.hypot(x1 + t * ex, y1 + t * ey));
  }
  return inside ? 0 : best;
}

type P = { x: number; y: number };

/** Drops rim circles (outermost first) whose share of the disk the remaining circles still cover. */
function prune(pts: P[], R: number, r: number): P[] {
  const alive = pts.map(() => true);
  const order = pts
    .map((p, i) => ({ i, d: Math.hypot(p.x, p.y) }))
    .filter((o) => o.d > R - 2 * r)
    .sort((a, b) => b.d - a.d);
  for (const { i } of order) {
    const nb: P[] = [];
    pts.forEach((q, j) => {
      if (j !== i && alive[j] && Math.hypot(q.x - (pts[i] as P).x, q.y - (pts[i] as P).y) < 2 * r) nb.push(q);
    });
    if (removable(pts[i] as P, nb, R, r)) alive[i] = false;
  }
  return pts.filter((_, i) => alive[i]);
}

/** Intersection points of two circles (0, 1 or 2 points). */
function intersect(a: P, ra: number, b: P, rb: number): P[] {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const d = Math.hypot(dx, dy);
  if (d === 0 || d > ra + rb || d < Math.abs(ra - rb)) return [];
  const l = (ra * ra - rb * rb + d * d) / (2 * d);
  const h = Math.sqrt(Math.max(0, ra * ra - l * l));
  const mx = a.x + (l * dx) / d;
  const my = a.y + (l * dy) / d;
  return [
    { x: mx + (h * dy) / d, y: my - (h * dx) / d },
    { x: mx - (h * dy) / d, y: my + (h * dx) / d },
  ];
}

/**
 * Whether disk(origin, R) ∩ circle(c, r) lies inside the union of the neighbour circles. Exact up to
 * 1e-9 miles: if an uncovered region existed, its boundary would be made of arcs of the rim, of c's
 * circle and of neighbour circles, and it would have a vertex where two of them cross (a region with
 * no vertex would need a whole circle as its boundary, which equal circles that overlap cannot give);
 * such a vertex is covered by no neighbour other than the ones it lies on. So c is removable iff every
 * crossing point of those curves that lies in the region is strictly inside some other neighbour.
 */
function removable(c: P, nb: P[], R: number, r: number): boolean {
  const eps = 1e-9;
  const curves: { p: P; r: number; nb: number }[] = [
    { p: { x: 0, y: 0 }, r: R, nb: -1 },
    { p: c, r, nb: -1 },
    ...nb.map((p, k) => ({ p, r, nb: k })),
  ];
  const inRegion = (q: P) => Math.hypot(q.x, q.y) <= R + eps && Math.hypot(q.x - c.x, q.y - c.y) <= r + eps;
  // the region has a point not near any curve crossing only if it touches no neighbour at all
  if (nb.length === 0) return false;
  // c's centre projected into the disk must itself be covered (catches regions with no crossings)
  const cd = Math.hypot(c.x, c.y);
  const probe = cd <= R ? c : { x: (c.x * R) / cd, y: (c.y * R) / cd };
  if (!nb.some((q) => Math.hypot(probe.x - q.x, probe.y - q.y) < r - eps)) return false;
  for (let a = 0; a < curves.length; a++) {
    for (let b = a + 1; b < curves.length; b++) {
      const A = curves[a] as (typeof curves)[number];
      const B = curves[b] as (typeof curves)[number];
      for (const q of intersect(A.p, A.r, B.p, B.r)) {
        if (!inRegion(q)) continue;
        const covered = nb.some(
          (n, k) => k !== A.nb && k !== B.nb && Math.hypot(q.x - n.x, q.y - n.y) < r - eps,
        );
        if (!covered) return false;
      }
    }
  }
  return true;
}

/**
 * The hexagonal covering of a search disk as geographic circles; each circle's `radiusMi` is the radius
 * to ask the provider for (`circleMi` x REQUEST_MARGIN).
 */
export function hexCovering(centre: LatLng, radiusMi: number, circleMi: number): Circle[] {
  const radiusOut = Math.min(circleMi, radiusMi) * REQUEST_MARGIN;
  return hexCoveringPlane(radiusMi, circleMi).map((p) => ({
    ...fromPlane(centre, p.x, p.y),
    radiusMi: radiusOut,
  }));
}

/**
 * The 7 circles of half the radius that cover a circle: one at its centre and six at distance
 * r*sqrt(3)/2 on bearings 0°, 60°, ... (the optimal covering of a disk by 7 equal circles has exactly
 * this ratio 1/2). Used by the adaptive search to split a circle whose answer was full.
 */
export function splitCircle(c: Circle): Circle[] {
  const child = (c.radiusMi / 2) * REQUEST_MARGIN;
  const ring = child * Math.sqrt(3);
  const out: Circle[] = [{ lat: c.lat, lng: c.lng, radiusMi: child }];
  for (let k = 0; k < 6; k++) out.push({ ...destination(c, (k * Math.PI) / 3, ring), radiusMi: child });
  return out;
}

/**
 * Deterministic sample of `n` points spread uniformly over the disk (centre, radiusMi): a Fibonacci
 * (sunflower) spiral, plus 1 % of the points on the rim itself, where gaps would show first.
 */
export function sampleDisk(centre: LatLng, radiusMi: number, n: number): LatLng[] {
  const out: LatLng[] = [];
  const rim = Math.max(1, Math.floor(n / 100));
  const inner = n - rim;
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < inner; i++) {
    const rr = radiusMi * Math.sqrt((i + 0.5) / inner);
    const a = i * golden;
    out.push(fromPlane(centre, rr * Math.sin(a), rr * Math.cos(a)));
  }
  for (let i = 0; i < rim; i++) {
    const a = (2 * Math.PI * i) / rim;
    out.push(fromPlane(centre, radiusMi * Math.sin(a), radiusMi * Math.cos(a)));
  }
  return out;
}

/** Points of `points` not within any circle (great-circle distance), for coverage checks. */
export function uncoveredPoints(points: LatLng[], circles: Circle[]): LatLng[] {
  return points.filter((p) => !circles.some((c) => distanceMi(p, c) <= c.radiusMi));
}
