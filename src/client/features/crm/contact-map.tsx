import type { Feature, FeatureCollection, Polygon } from "geojson";
import "maplibre-gl/dist/maplibre-gl.css";
import { type StyleSpecification, setWorkerUrl } from "maplibre-gl";
// maplibre-gl 6 looks for its worker next to its own module, which a bundle does not have: point it
// at the worker file Vite copies into the build
import maplibreWorkerUrl from "maplibre-gl/dist/maplibre-gl-worker.mjs?url";
import { useEffect, useMemo, useRef, useState } from "react";
import MapGL, { Layer, type MapRef, Marker, NavigationControl, Popup, Source } from "react-map-gl/maplibre";
import { feature } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import statesTopo from "us-atlas/states-10m.json";
import { type Contact, contactName } from "./api";

setWorkerUrl(maplibreWorkerUrl);

/** 1 mile in metres (spec section 10). */
export const METRES_PER_MILE = 1609.34;
const EARTH_RADIUS_M = 6_371_008.8;

/** The US states from us-atlas (Census cartographic boundaries, 1:10m) as GeoJSON, built once. */
const statesGeo = feature(
  statesTopo as unknown as Topology<{ states: GeometryCollection }>,
  (statesTopo as unknown as Topology<{ states: GeometryCollection }>).objects.states,
) as FeatureCollection;

/** Offline basemap: background, state fills and borders; no tiles, no glyphs, no network. */
export const OFFLINE_STYLE: StyleSpecification = {
  version: 8,
  sources: { states: { type: "geojson", data: statesGeo } },
  layers: [
    { id: "water", type: "background", paint: { "background-color": "#dbe7f3" } },
    { id: "states-fill", type: "fill", source: "states", paint: { "fill-color": "#f8fafc" } },
    {
      id: "states-line",
      type: "line",
      source: "states",
      paint: { "line-color": "#94a3b8", "line-width": 1 },
    },
  ],
};

/** A geodesic circle polygon (64 points) of `radiusM` metres around a centre, for drawing the search radius. */
export function circlePolygon(lat: number, lng: number, radiusM: number, steps = 64): Feature<Polygon> {
  const φ1 = (lat * Math.PI) / 180;
  const λ1 = (lng * Math.PI) / 180;
  const δ = radiusM / EARTH_RADIUS_M;
  const ring: [number, number][] = [];
  for (let i = 0; i <= steps; i++) {
    const θ = (i / steps) * 2 * Math.PI;
    const φ2 = Math.asin(Math.sin(φ1) * Math.cos(δ) + Math.cos(φ1) * Math.sin(δ) * Math.cos(θ));
    const λ2 =
      λ1 + Math.atan2(Math.sin(θ) * Math.sin(δ) * Math.cos(φ1), Math.cos(δ) - Math.sin(φ1) * Math.sin(φ2));
    ring.push([(λ2 * 180) / Math.PI, (φ2 * 180) / Math.PI]);
  }
  return { type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [ring] } };
}

let webglSupport: boolean | null = null;
/**
 * Whether the browser can draw WebGL (the maps need it). Probed once per page: the probe's context is
 * released at once (WEBGL_lose_context), since every live context costs memory and Chromium keeps
 * at most 16 before dropping the oldest (the map's own).
 */
export function hasWebGl(): boolean {
  if (webglSupport !== null) return webglSupport;
  try {
    const c = document.createElement("canvas");
    const gl = (c.getContext("webgl2") ?? c.getContext("webgl")) as WebGLRenderingContext | null;
    gl?.getExtension("WEBGL_lose_context")?.loseContext();
    webglSupport = !!gl;
  } catch {
    webglSupport = false;
  }
  return webglSupport;
}

export interface LocatedContact extends Contact {
  lat: number;
  lng: number;
}

/**
 * The contact map (spec: Contact map): offline US basemap, a marker per contact titled with its name,
 * an info window on click (name, email, phone or N/A, company or N/A, city and state, View Details),
 * click-to-set centre and a translucent radius circle (miles -> metres). Recentres on `focus`.
 */
export function ContactMap({
  contacts,
  center,
  radiusMiles,
  onPickCenter,
  onViewDetails,
}: {
  contacts: LocatedContact[];
  center: { lat: number; lng: number } | null;
  radiusMiles: number;
  onPickCenter: (c: { lat: number; lng: number }) => void;
  onViewDetails: (id: number) => void;
}) {
  const mapRef = useRef<MapRef>(null);
  const [open, setOpen] = useState<LocatedContact | null>(null);
  const webgl = useMemo(hasWebGl, []);
  const first = contacts[0];

  useEffect(() => {
    if (first) mapRef.current?.flyTo({ center: [first.lng, first.lat], zoom: 10, duration: 0 });
  }, [first]);

  const circle = useMemo(
    () => (center ? circlePolygon(center.lat, center.lng, Math.max(0, radiusMiles) * METRES_PER_MILE) : null),
    [center, radiusMiles],
  );

  if (!webgl) {
    return (
      <div className="rounded-xl border border-border p-4 text-sm">
        <p className="mb-2 text-muted-foreground">
          This browser cannot draw the map (WebGL is off). Located contacts:
        </p>
        <ul className="grid gap-1">
          {contacts.map((c) => (
            <li key={c.id}>
              <button type="button" className="underline" onClick={() => onViewDetails(c.id)}>
                {contactName(c)}
              </button>{" "}
              ({c.lat.toFixed(3)}, {c.lng.toFixed(3)})
            </li>
          ))}
        </ul>
      </div>
    );
  }

  return (
    <div
      className="h-[65vh] min-h-96 overflow-hidden rounded-xl border border-border"
      data-testid="contact-map"
    >
      <MapGL
        ref={mapRef}
        initialViewState={{ latitude: first?.lat ?? 43.42, longitude: first?.lng ?? -83.95, zoom: 10 }}
        mapStyle={OFFLINE_STYLE}
        attributionControl={{ customAttribution: "US states: us-atlas (US Census Bureau)" }}
        onClick={(e) => onPickCenter({ lat: e.lngLat.lat, lng: e.lngLat.lng })}
        cursor="crosshair"
      >
        <NavigationControl position="top-right" showCompass={false} />
        {circle && (
          <Source id="radius" type="geojson" data={circle}>
            <Layer id="radius-fill" type="fill" paint={{ "fill-color": "#6366f1", "fill-opacity": 0.15 }} />
            <Layer id="radius-line" type="line" paint={{ "line-color": "#6366f1", "line-width": 2 }} />
          </Source>
        )}
        {center && (
          <Marker latitude={center.lat} longitude={center.lng} anchor="center">
            <div
              className="size-3 rounded-full border-2 border-white bg-indigo-600 shadow"
              title="Search center"
            />
          </Marker>
        )}
        {contacts.map((c) => (
          <Marker
            key={c.id}
            latitude={c.lat}
            longitude={c.lng}
            anchor="bottom"
            onClick={(e) => {
              e.originalEvent.stopPropagation();
              setOpen(c);
            }}
          >
            <button
              type="button"
              title={[c.first_name, c.last_name].filter(Boolean).join(" ") || contactName(c)}
              aria-label={`Contact ${contactName(c)}`}
              className="block size-6 cursor-pointer rounded-full rounded-br-none border-2 border-white bg-rose-600 shadow-md [transform:rotate(45deg)]"
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
            <div className="grid gap-0.5 text-sm text-slate-900" data-testid="map-info-window">
              <p className="font-semibold">{contactName(open)}</p>
              <p>{open.email || "N/A"}</p>
              <p>{open.phone || open.mobile || "N/A"}</p>
              <p>{open.company || "N/A"}</p>
              <p>{[open.city, open.state].filter(Boolean).join(", ") || "N/A"}</p>
              <button
                type="button"
                className="mt-1 w-fit rounded bg-indigo-600 px-2 py-1 text-xs text-white"
                onClick={() => onViewDetails(open.id)}
              >
                View Details
              </button>
            </div>
          </Popup>
        )}
      </MapGL>
    </div>
  );
}
