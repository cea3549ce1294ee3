/** An address to place on the map. */
export interface GeocodeQuery {
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  country?: string | null;
}

/** WGS84 degrees; `precision` says what matched (a ZIP centroid or a city centroid). */
export interface GeocodeResult {
  latitude: number;
  longitude: number;
  precision: "postal_code" | "city";
}

/** Turns addresses into coordinates. Implementations: `local` (offline `zipcodes`, US only). */
export interface GeocoderProvider {
  readonly name: string;
  /** One result per query, in order; null when the address is not found. Never throws for a miss. */
  geocodeMany(queries: GeocodeQuery[]): Promise<(GeocodeResult | null)[]>;
}
