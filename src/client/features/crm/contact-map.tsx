import type { Feature, FeatureCollection, Polygon } from "geojson";
import "maplibre-gl/dist/maplibre-gl.css";
import type { inferRouterOutputs } from "@trpc/server";
import { type StyleSpecification, setWorkerUrl } from "maplibre-gl";
// maplibre-gl 6 looks for its worker next to its own module, which a bundle does not have: point it
// at the worker file Vite copies into the build
import maplibreWorkerUrl from "maplibre-gl/dist/maplibre-gl-worker.mjs?url";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import MapGL, {
  Layer,
  type MapRef,
  Marker,
  NavigationControl,
  Popup,
  Source,
  type ViewStateChangeEvent,
} from "react-map-gl/maplibre";
import Supercluster, { type ClusterFeature, type PointFeature } from "supercluster";
import { feature } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import statesTopo from "us-atlas/states-10m.json";
import { plural } from "@/client/lib/format";
import type { AppRouter } from "@/server/trpc/router";
import { contactName } from "./api";

setWorkerUrl(maplibreWorkerUrl);

/** 1 mile in metres (spec section 10). */
export const METRES_PER_MILE = 1609.34;
const EARTH_RADIUS_M = 6_371_008.8;
/** Spec section 10: default centre near 43.42, -83.95 at zoom 10 when there is nothing to fit. */
const DEFAULT_VIEW = { latitude: 43.42, longitude: -83.95, zoom: 10 };
/** How long the street style may take to load before the offline outline is drawn instead. */
const STYLE_TIMEOUT_MS = 8000;
/** Zoom used for a single contact (fitting one point has no extent). */
const SINGLE_ZOOM = 10;
const FIT_PADDING = 56;

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

/** A contact as `crm.mapContacts` / `crm.searchLocation` return it. */
export type MapContact = inferRouterOutputs<AppRouter>["crm"]["mapContacts"][number];

/** A contact with its latitude/longitude parsed to numbers. */
export type LocatedContact = MapContact & { lat: number; lng: number };

type Bounds = [[number, number], [number, number]];

/** The [[west, south], [east, north]] box around the contacts, or null when there are fewer than two. */
export function contactBounds(contacts: { lat: number; lng: number }[]): Bounds | null {
  if (contacts.length < 2) return null;
  let w = Infinity;
  let s = Infinity;
  let e = -Infinity;
  let n = -Infinity;
  for (const c of contacts) {
    w = Math.min(w, c.lng);
    e = Math.max(e, c.lng);
    s = Math.min(s, c.lat);
    n = Math.max(n, c.lat);
  }
  return [
    [w, s],
    [e, n],
  ];
}

type ContactPoint = { contactId: number };
type ClusterOrPoint = ClusterFeature<Record<string, never>> | PointFeature<ContactPoint>;

/**
 * The contact map (spec: Contact map; issue 14 section 5): a street basemap from `styleUrl` (MAP_STYLE_URL,
 * OpenFreeMap by default) that falls back to the bundled US-states outline when the style or its tiles
 * cannot load (offline, blocked, slow) or when `styleUrl` is null; nearby contacts grouped into cluster
 * buttons (supercluster; a click zooms in), a marker per contact titled with its name, an info window
 * on click (name, email, phone or N/A, company or N/A, city and state, View Details), click-to-set centre
 * and a translucent radius circle (miles -> metres). The view fits every shown contact whenever the set
 * changes. The container says which basemap is drawn in `data-basemap` ("streets" | "offline").
 */
export function ContactMap({
  contacts,
  styleUrl,
  center,
  radiusMiles,
  onPickCenter,
  onViewDetails,
}: {
  contacts: LocatedContact[];
  styleUrl: string | null;
  center: { lat: number; lng: number } | null;
  radiusMiles: number;
  onPickCenter: (c: { lat: number; lng: number }) => void;
  onViewDetails: (id: number) => void;
}) {
  const mapRef = useRef<MapRef>(null);
  const [open, setOpen] = useState<LocatedContact | null>(null);
  const webgl = useMemo(hasWebGl, []);
  const [fallback, setFallback] = useState(styleUrl === null);
  const [streetsReady, setStreetsReady] = useState(false);
  const tileLoaded = useRef(false);
  const [view, setView] = useState<{ bbox: [number, number, number, number]; zoom: number } | null>(null);

  const useStreets = styleUrl !== null && !fallback;
  const basemap = useStreets && streetsReady ? "streets" : useStreets ? "loading" : "offline";

  // the street style gets STYLE_TIMEOUT_MS to arrive, else the outline is drawn
  useEffect(() => {
    if (!useStreets || streetsReady) return;
    const timer = setTimeout(() => setFallback(true), STYLE_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [useStreets, streetsReady]);

  const byId = useMemo(() => new Map(contacts.map((c) => [c.id, c])), [contacts]);
  const index = useMemo(() => {
    const sc = new Supercluster<ContactPoint, Record<string, never>>({ radius: 56, maxZoom: 15 });
    sc.load(
      contacts.map((c) => ({
        type: "Feature" as const,
        properties: { contactId: c.id },
        geometry: { type: "Point" as const, coordinates: [c.lng, c.lat] },
      })),
    );
    return sc;
  }, [contacts]);
  const clusters: ClusterOrPoint[] = useMemo(
    () => (view ? index.getClusters(view.bbox, Math.floor(view.zoom)) : []),
    [index, view],
  );

  const readView = useCallback(() => {
    const map = mapRef.current;
    if (!map) return;
    const b = map.getBounds();
    setView({ bbox: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], zoom: map.getZoom() });
  }, []);

  const fitView = useCallback(() => {
    const map = mapRef.current;
    if (!map) return;
    const bounds = contactBounds(contacts);
    if (bounds) map.fitBounds(bounds, { padding: FIT_PADDING, maxZoom: 13, duration: 0 });
    else if (contacts[0]) map.jumpTo({ center: [contacts[0].lng, contacts[0].lat], zoom: SINGLE_ZOOM });
    readView();
  }, [contacts, readView]);

  // refit whenever the shown set changes (first load, radius search, reset)
  useEffect(() => {
    fitView();
  }, [fitView]);

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

  const first = contacts[0];
  const initialBounds = contactBounds(contacts);

  // the basemap is light in every theme (the offline outline's land is #f8fafc, OpenFreeMap liberty is
  // light too): the container shows that colour while it loads, and the markers' focus rings are
  // indigo-700 against it (3:1 and more, WCAG 1.4.11; indigo-400 gave 2.98:1), as is the canvas's
  // (styles.css .contact-map)
  return (
    <div
      className="contact-map relative h-[65vh] min-h-96 overflow-hidden rounded-xl border border-border bg-slate-50"
      data-testid="contact-map"
      data-basemap={basemap}
    >
      <MapGL
        ref={mapRef}
        initialViewState={
          initialBounds
            ? { bounds: initialBounds, fitBoundsOptions: { padding: FIT_PADDING, maxZoom: 13 } }
            : first
              ? { latitude: first.lat, longitude: first.lng, zoom: SINGLE_ZOOM }
              : DEFAULT_VIEW
        }
        mapStyle={useStreets ? styleUrl : OFFLINE_STYLE}
        attributionControl={
          useStreets ? { compact: true } : { customAttribution: "US states: us-atlas (US Census Bureau)" }
        }
        onLoad={() => {
          if (useStreets) setStreetsReady(true);
          fitView();
        }}
        onStyleData={() => {
          if (useStreets && mapRef.current?.isStyleLoaded()) setStreetsReady(true);
        }}
        onSourceData={(e) => {
          if (e.tile) tileLoaded.current = true;
        }}
        onError={(e) => {
          // the style URL failed, or tiles fail before any arrived: draw the offline outline
          if (useStreets && (!streetsReady || !tileLoaded.current)) setFallback(true);
          else console.warn("map:", e.error?.message);
        }}
        onMoveEnd={(_e: ViewStateChangeEvent) => readView()}
        onClick={(e) => onPickCenter({ lat: e.lngLat.lat, lng: e.lngLat.lng })}
        cursor="crosshair"
        fadeDuration={0}
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
        {clusters.map((f) => {
          const [lng, lat] = f.geometry.coordinates;
          if ("cluster" in f.properties && f.properties.cluster) {
            const count = f.properties.point_count;
            const clusterId = f.properties.cluster_id;
            const size = Math.min(56, 30 + Math.log2(count) * 5);
            return (
              <Marker key={`cluster-${clusterId}`} latitude={lat} longitude={lng} anchor="center">
                <button
                  type="button"
                  data-testid="map-cluster"
                  aria-label={`${plural(count, "contact")} here: zoom in`}
                  title={plural(count, "contact")}
                  style={{ width: size, height: size }}
                  className="flex cursor-pointer items-center justify-center rounded-full border-2 border-white bg-rose-700 text-xs font-semibold text-white shadow-md outline-none focus-visible:ring-4 focus-visible:ring-indigo-700"
                  onClick={(e) => {
                    e.stopPropagation();
                    const zoom = Math.min(index.getClusterExpansionZoom(clusterId), 18);
                    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
                    mapRef.current?.easeTo({ center: [lng, lat], zoom, duration: still ? 0 : 300 });
                  }}
                >
                  {count}
                </button>
              </Marker>
            );
          }
          const c = byId.get((f.properties as ContactPoint).contactId);
          if (!c) return null;
          return (
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
                className="block size-6 cursor-pointer rounded-full rounded-br-none border-2 border-white bg-rose-600 shadow-md outline-none [transform:rotate(45deg)] focus-visible:ring-4 focus-visible:ring-indigo-700"
              />
            </Marker>
          );
        })}
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
      {basemap === "offline" && styleUrl !== null && (
        <p className="pointer-events-none absolute bottom-2 left-2 rounded bg-white/90 px-2 py-1 text-xs text-slate-800 shadow">
          Street map unavailable: showing state outlines
        </p>
      )}
    </div>
  );
}
