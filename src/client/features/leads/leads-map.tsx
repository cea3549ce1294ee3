import type { FeatureCollection, Polygon } from "geojson";
import { useMemo, useState } from "react";
import MapGL, { Layer, Marker, NavigationControl, Popup, Source } from "react-map-gl/maplibre";
import { circlePolygon, hasWebGl, METRES_PER_MILE, OFFLINE_STYLE } from "@/client/features/crm/contact-map";
import { plural } from "@/client/lib/format";
import type { Business, SearchResult } from "./types";

/**
 * The Map view of the business search: the offline US basemap, the circles the search queried and a
 * marker per result (coloured by lead tier) whose popup shows the result's card facts.
 */
export function LeadsMap({ result, businesses }: { result: SearchResult; businesses: Business[] }) {
  const [open, setOpen] = useState<Business | null>(null);
  const webgl = useMemo(hasWebGl, []);
  const circles = useMemo<FeatureCollection<Polygon>>(
    () => ({
      type: "FeatureCollection",
      features: result.circles.map((c) => circlePolygon(c.lat, c.lng, c.radiusMi * METRES_PER_MILE, 32)),
    }),
    [result.circles],
  );
  if (!webgl)
    return (
      <p className="rounded-xl border border-border p-4 text-sm text-muted-foreground">
        This browser cannot draw the map (WebGL is off). {plural(result.totalCircles, "circle")} were searched
        around {result.location}.
      </p>
    );
  const zoom = result.radius > 30 ? 7 : result.radius > 12 ? 8 : result.radius > 5 ? 9 : 11;
  return (
    <div
      className="h-[60vh] min-h-80 overflow-hidden rounded-xl border border-border"
      data-testid="leads-map"
    >
      <MapGL
        initialViewState={{ latitude: result.coordinates.lat, longitude: result.coordinates.lng, zoom }}
        mapStyle={OFFLINE_STYLE}
        attributionControl={{ customAttribution: `${result.provider.attribution}; US states: us-atlas` }}
      >
        <NavigationControl position="top-right" showCompass={false} />
        <Source id="search-circles" type="geojson" data={circles}>
          <Layer
            id="search-circles-fill"
            type="fill"
            paint={{ "fill-color": "#6366f1", "fill-opacity": 0.06 }}
          />
          <Layer id="search-circles-line" type="line" paint={{ "line-color": "#6366f1", "line-width": 1 }} />
        </Source>
        {businesses.map((b) => (
          <Marker
            key={b.place_id}
            latitude={b.lat}
            longitude={b.lng}
            anchor="bottom"
            onClick={(e) => {
              e.originalEvent.stopPropagation();
              setOpen(b);
            }}
          >
            <button
              type="button"
              aria-label={`Business ${b.name}`}
              title={b.name}
              style={{ background: b.leadTier.color }}
              className="block size-5 cursor-pointer rounded-full rounded-br-none border-2 border-white shadow-md [transform:rotate(45deg)]"
            />
          </Marker>
        ))}
        {open && (
          <Popup
            latitude={open.lat}
            longitude={open.lng}
            anchor="top"
            onClose={() => setOpen(null)}
            closeOnClick={false}
          >
            <div className="grid gap-0.5 text-sm text-slate-900" data-testid="lead-map-card">
              <p className="font-semibold">{open.name}</p>
              <p>
                {open.leadTier.emoji} {open.leadTier.tier} · {open.leadScore}
              </p>
              <p>{open.address ?? "No address"}</p>
              <p>{open.phone ?? "No phone"}</p>
              {open.rating !== null && (
                <p>
                  ★ {open.rating} ({plural(open.review_count ?? 0, "review")})
                </p>
              )}
            </div>
          </Popup>
        )}
      </MapGL>
    </div>
  );
}
