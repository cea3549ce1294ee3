/**
 * Business lead search benchmarks (issue 13), `npm run bench:leads`:
 * 1. Grid: circles of the hexagonal covering for 25/2, 10/2, 50/5 miles versus the hexagonal figures
 *    (211, 37, 142) and coverage of 10,000 sample points of each search disk.
 * 2. Adaptive versus uniform grid on a synthetic market (a dense Gaussian centre, sigma about 2 mi,
 *    plus sparse businesses over the disk) behind a fake provider returning the 20 nearest places per
 *    call: provider calls and recall (share of the market's businesses in the disk found).
 * 3. A 25-mile search on the local provider: grid engine + provider only (no HTTP, database, scoring), p50/p95 of 20 runs.
 * 4. With BENCH_DATABASE_URL: the same search end to end over HTTP (POST /api/maps/search: auth, quota, geocoding,
 *    grid, scoring, storing), p50/p95 of 20 runs per city beside GET /api/auth/me in the same run (target p95 <= 2 s).
 */
import { runGridSearch } from "../src/server/features/leads/leads.engine";
import {
  distanceMi,
  hexCovering,
  type LatLng,
  sampleDisk,
  uncoveredPoints,
} from "../src/server/features/leads/leads.geo";
import type { NearbyQuery, Place } from "../src/server/providers/places";
import { LocalPlacesProvider } from "../src/server/providers/places/local";
import { startBenchServer } from "./bench-server";

const C: LatLng = { lat: 43.42, lng: -83.95 };

console.log("1. Hexagonal covering (circles vs figure, uncovered of 10,000 points)");
for (const [r, c, fig] of [
  [25, 2, 211],
  [10, 2, 37],
  [50, 5, 142],
] as const) {
  const circles = hexCovering(C, r, c);
  const miss = uncoveredPoints(sampleDisk(C, r, 10_000), circles).length;
  console.log(
    `   ${r} mi / ${c} mi: ${circles.length} circles (hexagonal figure ${fig}), uncovered ${miss}/10000`,
  );
}

function market(n: number): Place[] {
  let seed = 11;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: n }, (_, i) => {
    const dense = i < n * 0.8;
    const rr = dense ? 3 * Math.sqrt(-Math.log(1 - rand())) : Math.sqrt(rand()) * 24.9;
    const a = rand() * 2 * Math.PI;
    return {
      placeId: `p${i}`,
      name: `P${i}`,
      lat: C.lat + (rr * Math.cos(a)) / 69.055,
      lng: C.lng + (rr * Math.sin(a)) / (69.055 * Math.cos((C.lat * Math.PI) / 180)),
    };
  });
}
function fake(places: Place[]) {
  return {
    maxRadiusMi: 31,
    concurrency: 8,
    ratePerSecond: 1e9,
    async searchNearby(q: NearbyQuery) {
      const hits = places
        .map((p) => ({ p, d: distanceMi(q, p) }))
        .filter((h) => h.d <= q.radiusMi)
        .sort((a, b) => a.d - b.d);
      return {
        places: hits.slice(0, 20).map((h) => h.p),
        calls: 1,
        full: hits.length > 20,
        rankedByDistance: true,
      };
    },
  };
}

console.log("\n2. Adaptive vs uniform grid, synthetic market (20 places per call, nearest first)");
for (const n of [1200, 3000]) {
  const m = market(n);
  const inDisk = m.filter((p) => distanceMi(C, p) <= 25).length;
  const run = (mode: "adaptive" | "uniform", circleMi: number) =>
    runGridSearch({
      provider: fake(m),
      centre: C,
      radiusMi: 25,
      circleMi,
      businessType: "x",
      maxCalls: 1e6,
      mode,
    });
  const a = await run("adaptive", 2);
  const u = await run("uniform", 2);
  let fine = u;
  let size = 2;
  while (fine.places.length / inDisk < 0.99 && size > 0.1) {
    size /= 1.25;
    fine = await run("uniform", size);
  }
  const pct = (x: number) => `${((100 * x) / inDisk).toFixed(1)} %`;
  console.log(`   market of ${n} (${inDisk} in the 25-mile disk):`);
  console.log(`     uniform 2 mi circles: ${u.apiCalls} calls, recall ${pct(u.places.length)}`);
  console.log(
    `     uniform ${size.toFixed(2)} mi (finest needed for >= 99 %): ${fine.apiCalls} calls, recall ${pct(fine.places.length)}`,
  );
  console.log(
    `     adaptive: ${a.apiCalls} calls, recall ${pct(a.places.length)}; ${(a.apiCalls / u.apiCalls).toFixed(2)}x the 2-mi grid's calls, ${(a.apiCalls / fine.apiCalls).toFixed(2)}x the equal-recall grid's`,
  );
}

console.log(
  "\n3. 25-mile search on the local provider (grid engine + local provider only: no HTTP, database or scoring), 20 runs",
);
const places = new LocalPlacesProvider();
for (const [name, centre] of [
  ["Saginaw, MI", C],
  ["Austin, TX", { lat: 30.307, lng: -97.76 }],
  ["New York, NY", { lat: 40.7506, lng: -73.9972 }],
] as const) {
  const times: number[] = [];
  let last = 0;
  let calls = 0;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const r = await runGridSearch({
      provider: places,
      centre,
      radiusMi: 25,
      circleMi: 2,
      businessType: `dentist${i % 2 ? "s" : ""}`,
      maxCalls: 250,
    });
    times.push(performance.now() - t0);
    last = r.places.length;
    calls = r.apiCalls;
  }
  times.sort((a, b) => a - b);
  console.log(
    `   ${name}: ${last} places, ${calls} calls, p50 ${times[9]?.toFixed(0)} ms, p95 ${times[18]?.toFixed(0)} ms`,
  );
}

// 4. End to end: POST /api/maps/search over real HTTP (auth, validation, quota, geocoding, the grid on the
// local provider, scoring, storing the results), beside GET /api/auth/me in the same run as the baseline.
{
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    console.log("\n4. end to end: skipped (set BENCH_DATABASE_URL to a Postgres database to run it)");
  } else {
    const { app, sql, close } = await startBenchServer(url, { tag: "leads" });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const email = `bench-leads-${Date.now()}@example.com`;
    const reg = await fetch(`${base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:80" },
      body: JSON.stringify({
        name: "Bench",
        email,
        password: "bench-password-123",
        business_name: "Bench Leads",
      }),
    });
    const userId = (await reg.json()).user.id as string;
    const cookie = (reg.headers.get("set-cookie") ?? "").split(";")[0];
    await sql`update workspaces set plan = 'enterprise' where id = ${userId}`;
    const headers = { cookie, origin: "http://localhost:80", "content-type": "application/json" };
    const pct = (xs: number[], p: number) =>
      [...xs].sort((a, b) => a - b)[Math.ceil((p / 100) * xs.length) - 1];
    const me: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now();
      const r = await fetch(`${base}/api/auth/me`, { headers });
      await r.arrayBuffer();
      me.push(performance.now() - t0);
    }
    console.log(
      "\n4. End to end over HTTP: POST /api/maps/search (auth, quota, geocode, grid on the local provider, scoring, storing), 20 runs each",
    );
    console.log(
      `   baseline GET /api/auth/me (40 runs): p50 ${pct(me, 50).toFixed(1)} ms, p95 ${pct(me, 95).toFixed(1)} ms`,
    );
    for (const location of ["Saginaw, MI", "Austin, TX", "New York, NY"]) {
      const times: number[] = [];
      let total = 0;
      let calls = 0;
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        const r = await fetch(`${base}/api/maps/search`, {
          method: "POST",
          headers,
          body: JSON.stringify({
            location,
            businessType: i % 2 ? "dentists" : "dentist",
            radius: 25,
            searchRadius: 2,
          }),
        });
        const body = await r.json();
        times.push(performance.now() - t0);
        if (!r.ok) throw new Error(`search failed: ${JSON.stringify(body)}`);
        total = body.totalResults;
        calls = body.apiCalls ?? body.summary?.apiCalls ?? calls;
      }
      const p95 = pct(times, 95);
      console.log(
        `   ${location}: ${total} results, ${calls} calls, p50 ${pct(times, 50).toFixed(0)} ms, p95 ${p95.toFixed(0)} ms (${(p95 / pct(me, 95)).toFixed(0)}x the auth/me p95; target p95 <= 2,000 ms: ${p95 <= 2000 ? "met" : "NOT met"})`,
      );
    }
    await close();
  }
}
