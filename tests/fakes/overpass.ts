import { type RecordedRequest, startFake } from "./http";

/**
 * A fake Overpass API interpreter (`POST /api/interpreter`, form field `data`) answering with the
 * Overpass JSON shape: `{version, generator, osm3s:{timestamp_osm_base, copyright}, elements:[{type:
 * "node", id, lat, lon, tags}, {type: "way", id, center:{lat, lon}, tags}]}`. It reads the `around:`
 * radius and centre and the first tag selector of the query and returns matching elements.
 */
export async function startOverpassFake(elements: OverpassElement[]) {
  return startFake((req: RecordedRequest) => {
    const data = new URLSearchParams(req.body).get("data") ?? "";
    const around = data.match(/around:(\d+),(-?[\d.]+),(-?[\d.]+)/);
    const sel = [...data.matchAll(/\["([^"]+)"="([^"]+)"\]/g)].map((m) => [m[1], m[2]] as const);
    if (!around || req.path !== "/api/interpreter")
      return { status: 400, json: { remark: "runtime error: bad query" } };
    const [r, lat, lon] = [Number(around[1]), Number(around[2]), Number(around[3])];
    const hits = elements.filter((e) => {
      const p =
        e.type === "node"
          ? { lat: e.lat as number, lon: e.lon as number }
          : (e.center as { lat: number; lon: number });
      return metres(lat, lon, p.lat, p.lon) <= r && sel.some(([k, v]) => e.tags[k] === v);
    });
    return {
      status: 200,
      json: {
        version: 0.6,
        generator: "Overpass API 0.7.62.1 084b4234",
        osm3s: {
          timestamp_osm_base: "2026-01-01T00:00:00Z",
          copyright:
            "The data included in this document is from www.openstreetmap.org. The data is made available under ODbL.",
        },
        elements: hits,
      },
    };
  });
}

export interface OverpassElement {
  type: "node" | "way";
  id: number;
  lat?: number;
  lon?: number;
  center?: { lat: number; lon: number };
  tags: Record<string, string>;
}

function metres(lat1: number, lon1: number, lat2: number, lon2: number) {
  const r = Math.PI / 180;
  const h =
    Math.sin(((lat2 - lat1) * r) / 2) ** 2 +
    Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}
