import { useMutation, useQuery } from "@tanstack/react-query";
import { createFileRoute, Link, useNavigate } from "@tanstack/react-router";
import { ArrowLeft, List, MapPin, RotateCcw, Search } from "lucide-react";
import { lazy, Suspense, useMemo, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import type { LocatedContact, MapContact } from "@/client/features/crm/contact-map";
import { errorMessage } from "@/client/lib/errors";
import { plural } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";
import { displayNameOf } from "@/server/features/crm/contact-name";

const ContactMap = lazy(() =>
  import("@/client/features/crm/contact-map").then((m) => ({ default: m.ContactMap })),
);

export const Route = createFileRoute("/_app/contacts/map")({
  component: ContactMapPage,
});

/** Latitude/longitude parsed to numbers; only contacts with both are shown (spec section 3). */
function located(list: MapContact[]): LocatedContact[] {
  return list.flatMap((c) => {
    const lat = c.latitude === null ? Number.NaN : Number(c.latitude);
    const lng = c.longitude === null ? Number.NaN : Number(c.longitude);
    return Number.isFinite(lat) && Number.isFinite(lng) ? [{ ...c, lat, lng }] : [];
  });
}

function ContactMapPage() {
  const navigate = useNavigate();
  const trpc = useTRPC();
  // always refetched on entry: an address edited elsewhere may have moved a contact
  const all = useQuery({ ...trpc.crm.mapContacts.queryOptions(), staleTime: 0 });
  const config = useQuery({ ...trpc.crm.mapConfig.queryOptions(), staleTime: Infinity });
  const locationSearch = useMutation(trpc.crm.searchLocation.mutationOptions());
  const [center, setCenter] = useState<{ lat: number; lng: number } | null>(null);
  const [radius, setRadius] = useState(50);
  const [results, setResults] = useState<MapContact[] | null>(null);
  const [message, setMessage] = useState<{ variant: "success" | "error" | "info"; text: string } | null>(
    null,
  );
  const shown = useMemo(() => located(results ?? all.data ?? []), [results, all.data]);
  // the search centre without a pointer: a contact's location, picked by name (keyboard, screen
  // readers); each label names the contact and where they are, numbered when two read the same
  const centreChoices = useMemo(() => {
    const seen = new Map<string, number>();
    return located(all.data ?? []).map((c) => {
      // the app's display name (a business saved from lead search goes by its company), else its id
      const name = displayNameOf(c) ?? `Contact ${c.id}`;
      const place = [c.city, c.state].filter(Boolean).join(", ");
      const base = place ? `${name} (${place})` : name;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { label: n > 1 ? `${base} #${n}` : base, lat: c.lat, lng: c.lng };
    });
  }, [all.data]);
  const [centreText, setCentreText] = useState("");
  function pickCentre(text: string) {
    setCentreText(text);
    const choice = centreChoices.find((c) => c.label === text);
    if (choice) {
      setCenter({ lat: choice.lat, lng: choice.lng });
      setMessage(null);
    }
  }

  async function searchRadius() {
    if (!center) {
      setMessage({ variant: "info", text: "Click on the map to set a search center first" });
      return;
    }
    try {
      const found = await locationSearch.mutateAsync({
        latitude: center.lat,
        longitude: center.lng,
        radius_miles: radius,
      });
      setResults(found);
      setMessage({
        variant: "success",
        text: `Found ${plural(found.length, "contact")} within ${plural(radius, "mile")}`,
      });
    } catch (e) {
      setMessage({ variant: "error", text: `Search failed: ${errorMessage(e, "Unknown error")}` });
    }
  }

  function reset() {
    setCenter(null);
    setCentreText("");
    setResults(null);
    setMessage(null);
    void all.refetch();
  }

  return (
    <div className="grid gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex items-center gap-2">
          <Button variant="ghost" size="icon-sm" asChild aria-label="Back to contacts">
            <Link to="/contacts">
              <ArrowLeft aria-hidden />
            </Link>
          </Button>
          <h1 className="text-2xl font-semibold">Contact Map ({plural(shown.length, "contact")})</h1>
        </div>
        <Button variant="outline" onClick={() => void navigate({ to: "/contacts" })}>
          <List aria-hidden /> List View
        </Button>
      </div>

      <div className="flex flex-wrap items-end gap-3">
        <div className="grid gap-1.5">
          <Label htmlFor="map-centre">Search around a contact</Label>
          <Input
            id="map-centre"
            list="map-centre-contacts"
            className="w-64 max-w-full"
            placeholder="Type a contact's name"
            autoComplete="off"
            value={centreText}
            onChange={(e) => pickCentre(e.target.value)}
          />
          <datalist id="map-centre-contacts">
            {centreChoices.map((c) => (
              <option key={c.label} value={c.label} />
            ))}
          </datalist>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="radius">Search radius (miles)</Label>
          <Input
            id="radius"
            type="number"
            min={1}
            max={500}
            className="w-32"
            value={radius}
            onChange={(e) => setRadius(Number(e.target.value))}
          />
        </div>
        <Button onClick={() => void searchRadius()} loading={locationSearch.isPending}>
          <Search aria-hidden /> Search by Radius
        </Button>
        <Button variant="outline" onClick={reset}>
          <RotateCcw aria-hidden /> Reset
        </Button>
        <p className="text-sm text-muted-foreground">
          {center
            ? `Center: ${center.lat.toFixed(4)}, ${center.lng.toFixed(4)}`
            : "Click the map, or pick a contact, to set the search center."}
        </p>
      </div>

      {message && (
        <AlertBanner variant={message.variant} onDismiss={() => setMessage(null)}>
          {message.text}
        </AlertBanner>
      )}

      {all.isPending || config.isPending ? (
        <p className="py-16 text-center text-muted-foreground">Loading map...</p>
      ) : (
        <>
          {shown.length === 0 && !results && (
            <EmptyState
              icon={MapPin}
              title="No contacts with location data found."
              description="Add city and state to contacts to see them on the map!"
            />
          )}
          <Suspense fallback={<p className="py-16 text-center text-muted-foreground">Loading map...</p>}>
            <ContactMap
              contacts={shown}
              styleUrl={config.data?.styleUrl ?? null}
              center={center}
              radiusMiles={radius}
              onPickCenter={setCenter}
              onViewDetails={(id) => void navigate({ to: "/contacts/$id", params: { id: String(id) } })}
            />
          </Suspense>
        </>
      )}
    </div>
  );
}
