import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createFileRoute, useNavigate } from "@tanstack/react-router";
import {
  Columns3,
  Filter,
  LayoutGrid,
  Map as MapIcon,
  RotateCcw,
  Save,
  Search,
  Table2,
  X,
} from "lucide-react";
import { lazy, memo, Suspense, useCallback, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { PageHeader } from "@/client/components/layout/page-header";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Badge } from "@/client/components/ui/badge";
import { Button } from "@/client/components/ui/button";
import { Card, CardContent } from "@/client/components/ui/card";
import { Checkbox } from "@/client/components/ui/checkbox";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import {
  Dialog,
  DialogContent,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Progress } from "@/client/components/ui/progress";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/client/components/ui/tabs";
import { type PlanRefusal, PlanRefusalLink, planRefusalOf } from "@/client/features/billing/plan-refusal";
import type { AudienceHandOff } from "@/client/features/campaigns/audience";
import { ListTextInput } from "@/client/features/leads/list-text-input";
import { SwapLocationDialog, type SwapTarget } from "@/client/features/leads/swap-location-dialog";
import type { Business, FilterInfo, SearchResult } from "@/client/features/leads/types";
import { sameSlotOr, useFocusBackWhenIdle } from "@/client/lib/focus-rescue";
import { formatNumber, plural } from "@/client/lib/format";
import { cn } from "@/client/lib/utils";
import { useTRPC } from "@/client/trpc";
import { readableTextOn } from "@/server/lib/contrast";

const LeadsMap = lazy(() =>
  import("@/client/features/leads/leads-map").then((m) => ({ default: m.LeadsMap })),
);

export const Route = createFileRoute("/_app/contacts/business-search")({
  component: BusinessSearchPage,
});

type Filters = Record<string, unknown>;
type View = "grid" | "table" | "kanban" | "map";
const TIERS = [
  { tier: "HOT", emoji: "🔥", color: "#ef4444" },
  { tier: "WARM", emoji: "🌤️", color: "#f59e0b" },
  { tier: "COLD", emoji: "❄️", color: "#3b82f6" },
] as const;

/** The tier shown for a result; a result without one shows COLD, blue (spec section 4). */
const tierOf = (b: Business) => b.leadTier ?? TIERS[2];

/**
 * The toast's description of the skipped results of an "Add to contacts": each result's name and
 * why ("Patel Plumbing: same email as Patel Plumber"), at most 5, then "and N more"; undefined when
 * none was skipped.
 */
function skippedDescription(skipped: { name: string; reason: string }[]): string | undefined {
  if (!skipped.length) return undefined;
  const shown = skipped.slice(0, 5).map((s) => `${s.name}: ${s.reason}`);
  if (skipped.length > 5) shown.push(`and ${formatNumber(skipped.length - 5)} more`);
  return `Skipped: ${shown.join("; ")}`;
}

/**
 * Business Lead Search (spec section 2; issue 13): preset, location and business type, radius and
 * circle-size sliders, the 131-filter panel in 19 tabs (filters the active provider cannot answer are
 * disabled with the reason), a progress bar while circles are searched, the results summary, Grid /
 * Table / Kanban / Map views, saved searches (Load, Swap Location, Delete), and Add to contacts /
 * Start a campaign on selected results.
 */
function BusinessSearchPage() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const catalogue = useQuery(trpc.leads.filters.queryOptions());
  const presets = useQuery(trpc.leads.presets.queryOptions());
  const saved = useQuery(trpc.leads.savedSearches.queryOptions());
  const defaults = (catalogue.data?.defaults ?? { recentReviewDays: 90 }) as Filters;

  const [presetId, setPresetId] = useState("");
  const [location, setLocation] = useState("");
  const [businessType, setBusinessType] = useState("");
  const [radius, setRadius] = useState(25);
  const [circle, setCircle] = useState(2);
  const [filters, setFilters] = useState<Filters>({ recentReviewDays: 90 });
  const [showFilters, setShowFilters] = useState(false);
  const [tab, setTab] = useState("basic");
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  // the plan refusal behind `error` when it is one (the month's searches, the contact limit): the
  // banner adds its link to /pricing (or the owner-only sentence); kept with its sentence, so another
  // error shown later never gets it
  const [refused, setRefused] = useState<{ message: string; refusal: PlanRefusal } | null>(null);
  const [view, setView] = useState<View>("grid");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [saveOpen, setSaveOpen] = useState(false);
  const [searchName, setSearchName] = useState("");
  /** why the last save failed, shown in the Save Search dialog (the page's banner is behind it) */
  const [saveError, setSaveError] = useState<string | null>(null);
  /** the sentence of the last failed search (read by saveSearch) */
  const lastError = useRef("");
  const [searchId, setSearchId] = useState<string | null>(null);
  const [enrich, setEnrich] = useState(false);
  const [enrichingId, setEnrichingId] = useState<string | null>(null);
  // the saved search whose Delete asks for confirmation, and its place in the list (focus afterwards)
  type Saved = NonNullable<typeof saved.data>[number];
  const [deletingSaved, setDeletingSaved] = useState<{ search: Saved; index: number } | null>(null);
  // the saved search whose Swap Location dialog is open
  const [swapping, setSwapping] = useState<Saved | null>(null);
  const savedList = useRef<HTMLUListElement>(null);
  const savedHeading = useRef<HTMLHeadingElement>(null);

  const progress = useQuery({
    ...trpc.leads.progress.queryOptions({ searchId: searchId ?? "" }),
    enabled: !!searchId,
    refetchInterval: 300,
  });

  // website enrichment runs in the background after the search: follow it, then reload the results
  const enrichProgress = useQuery({
    ...trpc.leads.progress.queryOptions({ searchId: enrichingId ?? "" }),
    enabled: !!enrichingId,
    refetchInterval: (q) => {
      const st = q.state.data?.enrichment.status;
      return st === "completed" || st === "failed" ? false : 1000;
    },
  });
  const enrichStatus = enrichingId ? enrichProgress.data?.enrichment.status : undefined;
  const enrichedResults = useQuery({
    ...trpc.leads.results.queryOptions({ searchId: enrichingId ?? "" }),
    enabled: !!enrichingId && enrichStatus === "completed",
  });
  const enrichedBusinesses = enrichStatus === "completed" ? enrichedResults.data : undefined;

  const searchM = useMutation(trpc.leads.search.mutationOptions());
  const swapM = useMutation(trpc.leads.swapLocation.mutationOptions());
  const deleteM = useMutation(trpc.leads.deleteSavedSearch.mutationOptions());
  const addM = useMutation(trpc.leads.addToContacts.mutationOptions());
  const searching = searchM.isPending || swapM.isPending;

  const refreshSaved = () => qc.invalidateQueries({ queryKey: trpc.leads.savedSearches.queryKey() });

  function begin() {
    setError(null);
    setResult(null);
    setSelected(new Set());
    setEnrichingId(null);
    const id = crypto.randomUUID();
    setSearchId(id);
    return id;
  }

  function finish(r: SearchResult) {
    setResult(r);
    setSearchId(null);
    setEnrichingId(r.enrichment.status === "queued" ? r.searchId : null);
    toast.success(
      `Found ${plural(r.totalResults, "business", "businesses")} within ${plural(r.radius, "mile")}`,
    );
  }

  function fail(e: unknown) {
    setSearchId(null);
    const msg = e instanceof Error && e.message ? e.message : "Search failed";
    lastError.current = msg;
    const refusal = planRefusalOf(e);
    setRefused(refusal ? { message: msg, refusal } : null);
    setError(msg);
  }

  async function runSearch(extra: Record<string, unknown> = {}) {
    if (!location.trim() || !businessType.trim()) {
      setError("Please enter both location and business type");
      return null;
    }
    const id = begin();
    try {
      const r = await searchM.mutateAsync({
        location,
        businessType,
        radius,
        searchRadius: circle,
        filters,
        usePreset: presetId || undefined,
        searchId: id,
        enrich: enrich || undefined,
        ...extra,
      });
      finish(r);
      return r;
    } catch (e) {
      fail(e);
      return null;
    }
  }

  async function saveSearch() {
    setSaveError(null);
    if (!searchName.trim()) {
      setSaveError("Please enter a search name");
      return;
    }
    if (!location.trim() || !businessType.trim()) {
      setSaveError("Please enter both location and business type");
      return;
    }
    lastError.current = "";
    const r = await runSearch({ saveSearch: true, searchName });
    if (r) {
      toast.success("Search saved successfully!");
      setSaveOpen(false);
      setSearchName("");
      refreshSaved();
    } else setSaveError(`Failed to save search: ${lastError.current || "Search failed"}`);
  }

  /**
   * Runs `target` at `newLocation` (POST /api/maps/swap-location; the server refuses an empty or unknown
   * location with a sentence, and the saved search stays as it was). The page's results stay until
   * the swap's search completed; then they are its results and the location field holds the new
   * location. Rejects with the server's error (SwapLocationDialog shows it).
   */
  async function swapLocation(target: SwapTarget, newLocation: string) {
    const id = crypto.randomUUID();
    setSearchId(id); // the progress bar follows the swap's search
    try {
      const r = await swapM.mutateAsync({ savedSearchId: target.id, newLocation, searchId: id });
      setError(null);
      setSelected(new Set());
      setLocation(newLocation.trim());
      finish(r);
      refreshSaved();
    } catch (e) {
      setSearchId(null);
      throw e;
    }
  }

  function choosePreset(id: string) {
    setPresetId(id);
    const p = presets.data?.find((x) => x.id === id);
    if (p) {
      setFilters((f) => ({ ...f, ...p.filters })); // choosing a preset merges its filters (spec section 4)
      if (!businessType.trim()) setBusinessType(p.businessType);
    }
  }

  function resetFilters() {
    setFilters({ ...defaults });
    setPresetId("");
  }

  const businesses = enrichedBusinesses ?? result?.businesses ?? [];
  const chosen = businesses.filter((b) => selected.has(b.place_id));

  // Add to contacts and Start a campaign are disabled while the add runs, which dropped keyboard focus
  // to <body>: it goes back to the one pressed (Start a campaign leaves the page on success)
  const addButton = useRef<HTMLButtonElement | null>(null);
  useFocusBackWhenIdle(addM.isPending, addButton);

  async function addToContacts(thenCampaign = false) {
    if (!result || !chosen.length) return;
    try {
      const r = await addM.mutateAsync({
        searchId: result.searchId,
        placeIds: chosen.map((b) => b.place_id),
      });
      toast.success(`Added to contacts: ${r.created} created, ${r.updated} updated, ${r.skipped} skipped`, {
        description: skippedDescription(r.skippedResults),
      });
      // the results that became or matched a contact (r.inContacts) show "In contacts" at once (the
      // server stored the flag too); the others keep their cards as they were
      const added = new Set(r.inContacts);
      setResult((cur) =>
        cur
          ? {
              ...cur,
              businesses: cur.businesses.map((b) =>
                added.has(b.place_id) ? { ...b, in_contacts: true } : b,
              ),
            }
          : cur,
      );
      void qc.invalidateQueries({ queryKey: trpc.leads.results.queryKey({ searchId: result.searchId }) });
      // "Start a campaign": the added contacts arrive as the SMS campaign's audience (selected in its
      // Select Contacts step, to change there), with how many businesses were chosen, so the builder
      // says when fewer arrived (the same business twice, a result no longer stored)
      if (thenCampaign)
        await navigate({
          to: "/campaigns/sms",
          state: {
            campaignAudience: {
              from: "business-search",
              contactIds: [...new Set(r.contactIds)],
              chosen: chosen.length,
            } satisfies AudienceHandOff,
          },
        });
    } catch (e) {
      const refusal = planRefusalOf(e);
      if (refusal && e instanceof Error) {
        // the contact limit: a banner with the way to more contacts, not a toast that goes away
        setRefused({ message: e.message, refusal });
        setError(e.message);
      } else toast.error(e instanceof Error ? e.message : "Failed to add contacts");
    }
  }

  const pct = progress.data?.circlesTotal
    ? Math.round((100 * progress.data.circlesDone) / progress.data.circlesTotal)
    : null;

  return (
    <div className="mx-auto max-w-7xl">
      <PageHeader
        title="Business Lead Search"
        description="Enhanced Multi-Circle Grid Search with 131 Advanced Filters"
      />

      <Card className="mb-6">
        <CardContent className="grid gap-4 pt-6">
          <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
            <div className="grid min-w-0 gap-1.5">
              <Label htmlFor="preset">Industry preset</Label>
              <select
                id="preset"
                value={presetId}
                onChange={(e) => choosePreset(e.target.value)}
                className="h-9 w-full min-w-0 rounded-md border border-input bg-background px-3 text-sm"
              >
                <option value="">Custom Search</option>
                {(presets.data ?? []).map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor="location">Location</Label>
              <Input
                id="location"
                placeholder="Location (city, state or zip)"
                value={location}
                onChange={(e) => setLocation(e.target.value)}
                onKeyDown={(e) => e.key === "Enter" && void runSearch()}
              />
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor="business-type">Business type</Label>
              <Input
                id="business-type"
                placeholder="Business type (e.g. dentist)"
                value={businessType}
                onChange={(e) => setBusinessType(e.target.value)}
                onKeyDown={(e) => e.key === "Enter" && void runSearch()}
              />
            </div>
          </div>
          <div className="grid gap-4 md:grid-cols-2">
            <div className="grid gap-1.5">
              <Label htmlFor="radius">Total radius: {plural(radius, "mile")}</Label>
              <input
                id="radius"
                type="range"
                min={1}
                max={50}
                step={1}
                value={radius}
                onChange={(e) => setRadius(Number(e.target.value))}
              />
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor="circle">Circle size: {plural(circle, "mile")}</Label>
              <input
                id="circle"
                type="range"
                min={1}
                max={5}
                step={0.5}
                value={circle}
                onChange={(e) => setCircle(Number(e.target.value))}
              />
            </div>
          </div>
          <label className="flex items-center gap-2 text-sm" htmlFor="enrich">
            <input
              id="enrich"
              type="checkbox"
              checked={enrich}
              onChange={(e) => setEnrich(e.target.checked)}
            />
            Visit websites for public emails and social profiles (enrichment; runs after the search)
          </label>
          <div className="flex flex-wrap gap-2">
            <Button variant="outline" onClick={() => setShowFilters((s) => !s)}>
              <Filter className="size-4" /> {showFilters ? "Hide Filters" : "Show Filters"}
            </Button>
            <Button onClick={() => void runSearch()} disabled={searching}>
              <Search className="size-4" /> {searching ? "Searching..." : "Search"}
            </Button>
            <Button variant="outline" onClick={() => setSaveOpen(true)} disabled={searching}>
              <Save className="size-4" /> Save Search
            </Button>
          </div>
        </CardContent>
      </Card>

      {showFilters && catalogue.data && (
        <FilterPanel
          catalogue={catalogue.data}
          tab={tab}
          setTab={setTab}
          filters={filters}
          setFilters={setFilters}
          enrich={enrich}
          onReset={resetFilters}
          onClose={() => setShowFilters(false)}
        />
      )}

      {searching && (
        <div className="mb-4 grid gap-1" data-testid="search-progress">
          <Progress value={pct} aria-label="Search progress" />
          <p className="text-xs text-muted-foreground">
            {progress.data?.circlesTotal
              ? `${formatNumber(progress.data.circlesDone)} of ${plural(progress.data.circlesTotal, "circle")} searched, ${plural(progress.data.apiCalls, "API call")}`
              : "Starting search..."}
          </p>
        </div>
      )}
      {error && (
        <AlertBanner variant="error" className="mb-4">
          {error} <PlanRefusalLink refusal={refused?.message === error ? refused.refusal : null} />
        </AlertBanner>
      )}

      {result && (
        <>
          <div
            className="mb-4 grid gap-2 rounded-xl border border-border p-4 text-sm sm:grid-cols-3 lg:grid-cols-6"
            data-testid="results-summary"
          >
            <Fact label="Location" value={result.location} />
            <Fact label="Circles searched" value={result.totalCircles} />
            <Fact label="API calls" value={result.apiCalls} />
            <Fact
              label="Total results"
              value={enrichedBusinesses ? enrichedBusinesses.length : result.totalResults}
            />
            {result.preset && <Fact label="Preset" value={result.preset} />}
            <Fact label="Source" value={result.provider.label} />
            {result.capped && (
              <p className="text-amber-600 sm:col-span-3 lg:col-span-6">
                The search stopped at its limit of {result.maxCalls} API calls; {result.skippedCircles}{" "}
                circles were not searched.
              </p>
            )}
            {enrichingId && (
              <div className="grid gap-1 sm:col-span-3 lg:col-span-6" data-testid="enrich-progress">
                {enrichStatus === "completed" ? (
                  <p>
                    Enrichment done: {plural(enrichProgress.data?.enrichment.total ?? 0, "website")} visited
                    {result.enrichment.deferredFilters.length > 0 &&
                      `; filters applied: ${result.enrichment.deferredFilters.join(", ")}`}
                    .
                  </p>
                ) : enrichStatus === "failed" ? (
                  <p className="text-destructive">Enrichment failed; the results are shown without it.</p>
                ) : (
                  <>
                    <Progress
                      value={
                        enrichProgress.data?.enrichment.total
                          ? Math.round(
                              (100 * enrichProgress.data.enrichment.done) /
                                enrichProgress.data.enrichment.total,
                            )
                          : null
                      }
                      aria-label="Enrichment progress"
                    />
                    <p className="text-xs text-muted-foreground">
                      {enrichProgress.data?.enrichment.total
                        ? `Visiting websites: ${enrichProgress.data.enrichment.done} of ${enrichProgress.data.enrichment.total}`
                        : "Enrichment queued..."}
                      {result.enrichment.deferredFilters.length > 0 &&
                        ` (then filtering by ${result.enrichment.deferredFilters.join(", ")})`}
                    </p>
                  </>
                )}
              </div>
            )}
            <p className="text-xs text-muted-foreground sm:col-span-3 lg:col-span-6">
              {result.provider.attribution}
            </p>
          </div>

          <div className="mb-4 flex flex-wrap items-center gap-2">
            {(
              [
                ["grid", "Grid", LayoutGrid],
                ["table", "Table", Table2],
                ["kanban", "Kanban", Columns3],
                ["map", "Map", MapIcon],
              ] as const
            ).map(([v, label, Icon]) => (
              <Button
                key={v}
                size="sm"
                variant={view === v ? "default" : "outline"}
                onClick={() => setView(v)}
                aria-pressed={view === v}
              >
                <Icon className="size-4" /> {label}
              </Button>
            ))}
            <span className="ml-auto text-sm text-muted-foreground" data-testid="selected-results">
              {selected.size} selected
            </span>
            <Button
              size="sm"
              variant="outline"
              onClick={() => setSelected(new Set(businesses.map((b) => b.place_id)))}
            >
              Select all
            </Button>
            <Button
              size="sm"
              disabled={!chosen.length || addM.isPending}
              onClick={(e) => {
                addButton.current = e.currentTarget;
                void addToContacts();
              }}
            >
              Add to contacts
            </Button>
            <Button
              size="sm"
              variant="outline"
              disabled={!chosen.length || addM.isPending}
              onClick={(e) => {
                addButton.current = e.currentTarget;
                void addToContacts(true);
              }}
            >
              Start a campaign
            </Button>
          </div>

          {businesses.length === 0 ? (
            <p className="rounded-xl border border-border p-6 text-center text-sm text-muted-foreground">
              No businesses match. Try a larger radius or fewer filters.
            </p>
          ) : (
            <Results
              view={view}
              result={result}
              businesses={businesses}
              selected={selected}
              setSelected={setSelected}
            />
          )}
        </>
      )}

      <section className="mt-8">
        <h2 ref={savedHeading} tabIndex={-1} className="mb-3 text-lg font-semibold outline-none">
          Saved searches
        </h2>
        {(saved.data ?? []).length === 0 ? (
          <p className="text-sm text-muted-foreground">No saved searches yet.</p>
        ) : (
          <ul ref={savedList} className="grid gap-2" data-testid="saved-searches">
            {(saved.data ?? []).map((s, index) => (
              <li
                key={s.id}
                className="flex flex-wrap items-center gap-2 rounded-lg border border-border p-3 text-sm"
              >
                <span className="font-medium">{s.search_name}</span>
                <span className="text-muted-foreground">
                  {s.business_type} in {s.location} · {s.radius} mi · {plural(s.result_count, "result")}
                </span>
                <span className="ml-auto flex gap-2">
                  <Button
                    size="sm"
                    variant="outline"
                    onClick={() => {
                      setLocation(s.location);
                      setBusinessType(s.business_type);
                      setRadius(s.radius);
                      setCircle(s.search_radius);
                      setFilters({ ...defaults, ...(s.filters as Filters) });
                      setPresetId(s.preset ?? "");
                    }}
                  >
                    Load
                  </Button>
                  <Button size="sm" variant="outline" onClick={() => setSwapping(s)}>
                    Swap Location
                  </Button>
                  <Button
                    size="sm"
                    variant="outline"
                    aria-label={`Delete ${s.search_name}`}
                    data-delete-saved-search
                    onClick={() => setDeletingSaved({ search: s, index })}
                  >
                    Delete
                  </Button>
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <ConfirmDialog
        open={deletingSaved !== null}
        onOpenChange={(o) => !o && setDeletingSaved(null)}
        title={`Delete the saved search "${deletingSaved?.search.search_name ?? ""}"?`}
        description={
          deletingSaved
            ? `${deletingSaved.search.business_type} in ${deletingSaved.search.location}, ${deletingSaved.search.radius} mi. Businesses you added to your contacts from it are kept.`
            : ""
        }
        confirmLabel="Delete saved search"
        onConfirm={() => {
          const id = deletingSaved?.search.id;
          if (!id) return;
          deleteM.mutateAsync({ id }).then(refreshSaved, () => toast.error("Failed to delete search"));
        }}
        focusAfterConfirm={
          deletingSaved
            ? sameSlotOr(
                savedList,
                "[data-delete-saved-search]",
                deletingSaved.index,
                () => savedHeading.current,
              )
            : undefined
        }
      />

      <SwapLocationDialog
        search={swapping}
        onOpenChange={(o) => !o && setSwapping(null)}
        onSwap={swapLocation}
        onLateError={(message) => setError(message)}
      />

      <Dialog
        open={saveOpen}
        onOpenChange={(open) => {
          setSaveOpen(open);
          if (!open) setSaveError(null);
        }}
      >
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Save Search</DialogTitle>
          </DialogHeader>
          {/* a form: Enter in the name saves; the reason a save failed shows here, not behind the dialog */}
          <form
            className="grid gap-4"
            onSubmit={(e) => {
              e.preventDefault();
              void saveSearch();
            }}
          >
            <div className="grid gap-1.5">
              <Label htmlFor="search-name">Search name</Label>
              <Input
                id="search-name"
                value={searchName}
                aria-invalid={saveError ? true : undefined}
                aria-describedby={saveError ? "search-name-error" : undefined}
                onChange={(e) => setSearchName(e.target.value)}
              />
            </div>
            {saveError && (
              <div id="search-name-error">
                <AlertBanner variant="error">{saveError}</AlertBanner>
              </div>
            )}
            <DialogFooter>
              <Button type="button" variant="outline" onClick={() => setSaveOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" disabled={searching}>
                Save
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </div>
  );
}

function Fact({ label, value }: { label: string; value: string | number }) {
  return (
    <div>
      <p className="text-xs text-muted-foreground">{label}</p>
      <p className="font-medium" data-testid={`summary-${label.toLowerCase().replace(/\s+/g, "-")}`}>
        {value}
      </p>
    </div>
  );
}

function FilterPanel({
  catalogue,
  tab,
  setTab,
  filters,
  setFilters,
  enrich,
  onReset,
  onClose,
}: {
  catalogue: { categories: { id: string; label: string }[]; filters: FilterInfo[] };
  enrich: boolean;
  tab: string;
  setTab: (t: string) => void;
  filters: Filters;
  setFilters: (f: Filters | ((f: Filters) => Filters)) => void;
  onReset: () => void;
  onClose: () => void;
}) {
  const set = (k: string, v: unknown) =>
    setFilters((f) => {
      const n = { ...f };
      if (v === undefined || v === "" || v === null) delete n[k];
      else n[k] = v;
      return n;
    });
  const shown = catalogue.filters.filter((f) => f.category === tab);
  return (
    <Card className="mb-6" data-testid="filter-panel">
      <CardContent className="grid gap-4 pt-6">
        <div className="flex items-center gap-2">
          <h2 className="font-semibold">Filters</h2>
          <Button size="sm" variant="outline" className="ml-auto" onClick={onReset}>
            <RotateCcw className="size-4" /> Reset All Filters
          </Button>
          <Button size="sm" variant="ghost" onClick={onClose} aria-label="Close filters">
            <X className="size-4" />
          </Button>
        </div>
        {/* Radix Tabs: the WAI-ARIA tabs pattern (Left/Right, Home/End, one Tab stop on the active tab) */}
        <Tabs value={tab} onValueChange={setTab} className="gap-3">
          <TabsList
            aria-label="Filter categories"
            className="h-auto w-full flex-wrap justify-start overflow-visible bg-transparent p-0"
          >
            {catalogue.categories.map((c) => (
              <TabsTrigger
                key={c.id}
                value={c.id}
                className="h-auto rounded-md border border-border px-2.5 py-1 text-xs font-normal text-foreground data-[state=active]:border-primary data-[state=active]:bg-primary data-[state=active]:text-primary-foreground data-[state=active]:shadow-none"
              >
                {c.label}
              </TabsTrigger>
            ))}
          </TabsList>
          <TabsContent value={tab} className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
            {shown.map((f) => (
              <FilterField
                key={f.key}
                f={f}
                enrich={enrich}
                value={filters[f.key]}
                onChange={(v) => set(f.key, v)}
              />
            ))}
          </TabsContent>
        </Tabs>
      </CardContent>
    </Card>
  );
}

function FilterField({
  f,
  enrich,
  value,
  onChange,
}: {
  f: FilterInfo;
  enrich: boolean;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  const id = `filter-${f.key}`;
  const disabled = !f.answerable && !(enrich && f.answerableWithEnrichment);
  const hint = disabled ? (
    <p className="text-xs text-muted-foreground">
      Unavailable: {f.reason}
      {f.answerableWithEnrichment && " (tick website enrichment to use it)"}
    </p>
  ) : !f.answerable ? (
    <p className="text-xs text-muted-foreground">Applied after website enrichment</p>
  ) : null;
  if (f.kind === "bool")
    return (
      <div className={cn("grid gap-0.5", disabled && "opacity-60")}>
        <label htmlFor={id} className="flex items-center gap-2 text-sm">
          <input
            id={id}
            type="checkbox"
            disabled={disabled}
            checked={value === true}
            onChange={(e) => onChange(e.target.checked || undefined)}
          />
          {f.label}
        </label>
        {hint}
      </div>
    );
  if (f.kind === "tri")
    return (
      <div className={cn("grid gap-1", disabled && "opacity-60")}>
        <Label htmlFor={id}>{f.label}</Label>
        <select
          id={id}
          disabled={disabled}
          value={value === true ? "yes" : value === false ? "no" : ""}
          onChange={(e) =>
            onChange(e.target.value === "yes" ? true : e.target.value === "no" ? false : undefined)
          }
          className="h-8 rounded-md border border-input bg-background px-2 text-sm"
        >
          <option value="">Any</option>
          <option value="yes">Only</option>
          <option value="no">Exclude</option>
        </select>
        {hint}
      </div>
    );
  if (f.kind === "list" && f.options) {
    const cur = Array.isArray(value) ? (value as (string | number)[]) : [];
    return (
      <fieldset className={cn("grid gap-1", disabled && "opacity-60")}>
        <legend className="text-sm font-medium">{f.label}</legend>
        <div className="flex flex-wrap gap-2">
          {f.options.map((o) => (
            <label key={String(o)} className="flex items-center gap-1 text-xs">
              <input
                type="checkbox"
                disabled={disabled}
                checked={cur.includes(o)}
                onChange={(e) => {
                  const next = e.target.checked ? [...cur, o] : cur.filter((x) => x !== o);
                  onChange(next.length ? next : undefined);
                }}
              />
              {String(o)}
            </label>
          ))}
        </div>
        {hint}
      </fieldset>
    );
  }
  if (f.kind === "list")
    return (
      <div className={cn("grid gap-1", disabled && "opacity-60")}>
        <Label htmlFor={id}>{f.label}</Label>
        <ListTextInput
          id={id}
          disabled={disabled}
          value={Array.isArray(value) ? (value as (string | number)[]) : undefined}
          onChange={onChange}
        />
        {hint}
      </div>
    );
  if (f.kind === "text")
    return (
      <div className={cn("grid gap-1", disabled && "opacity-60")}>
        <Label htmlFor={id}>{f.label}</Label>
        <Input
          id={id}
          disabled={disabled}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value || undefined)}
        />
        {hint}
      </div>
    );
  // min / max / days
  return (
    <div className={cn("grid gap-1", disabled && "opacity-60")}>
      <Label htmlFor={id}>{f.label}</Label>
      {f.options ? (
        <select
          id={id}
          disabled={disabled}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value || undefined)}
          className="h-8 rounded-md border border-input bg-background px-2 text-sm"
        >
          <option value="">Any</option>
          {f.options.map((o) => (
            <option key={String(o)} value={String(o)}>
              {String(o)}
            </option>
          ))}
        </select>
      ) : (
        <Input
          id={id}
          type="number"
          disabled={disabled}
          min={f.min}
          max={f.max}
          step={f.step ?? 1}
          value={typeof value === "number" ? value : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
      )}
      {hint}
    </div>
  );
}

function Results({
  view,
  result,
  businesses,
  selected,
  setSelected,
}: {
  view: View;
  result: SearchResult;
  businesses: Business[];
  selected: Set<string>;
  setSelected: (s: Set<string> | ((s: Set<string>) => Set<string>)) => void;
}) {
  // stable across renders, so ticking one card re-renders that card only (LeadCard is memoised)
  const toggle = useCallback(
    (id: string) =>
      setSelected((cur) => {
        const n = new Set(cur);
        if (n.has(id)) n.delete(id);
        else n.add(id);
        return n;
      }),
    [setSelected],
  );
  const byTier = useMemo(
    () => Object.fromEntries(TIERS.map((t) => [t.tier, businesses.filter((b) => tierOf(b).tier === t.tier)])),
    [businesses],
  );
  if (view === "table")
    return (
      <div className="overflow-x-auto rounded-xl border border-border" data-testid="results-table">
        <table className="w-full text-sm">
          <thead className="bg-muted/50 text-left">
            <tr>
              <th className="p-2"> </th>
              <th className="p-2">Name</th>
              <th className="p-2">Address</th>
              <th className="p-2">Rating</th>
              <th className="p-2">Reviews</th>
              <th className="p-2">Phone</th>
              <th className="p-2">Website</th>
              <th className="p-2">Distance</th>
              <th className="p-2">Open now</th>
              <th className="p-2">Score</th>
            </tr>
          </thead>
          <tbody>
            {businesses.map((b) => (
              <tr key={b.place_id} className="border-t border-border">
                <td className="p-2">
                  <Checkbox
                    aria-label={`Select ${b.name}`}
                    checked={selected.has(b.place_id)}
                    onChange={() => toggle(b.place_id)}
                  />
                </td>
                <td className="p-2 font-medium">{b.name}</td>
                <td className="p-2">{b.address ?? "-"}</td>
                <td className="p-2">{b.rating ?? "-"}</td>
                <td className="p-2">{b.review_count ?? "-"}</td>
                <td className="p-2">{b.phone ?? "-"}</td>
                <td className="p-2">
                  {b.website ? (
                    <a href={b.website} target="_blank" rel="noreferrer" className="underline">
                      site
                    </a>
                  ) : (
                    "-"
                  )}
                </td>
                <td className="p-2">{b.distance} mi</td>
                <td className="p-2">
                  {b.opening_hours.open_now === null ? "-" : b.opening_hours.open_now ? "Yes" : "No"}
                </td>
                <td className="p-2">
                  {tierOf(b).emoji} {b.leadScore}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  if (view === "kanban")
    return (
      <div className="grid gap-4 md:grid-cols-3" data-testid="results-kanban">
        {TIERS.map((t) => (
          <div
            key={t.tier}
            className="rounded-xl border border-border p-3"
            style={{ borderTopColor: t.color, borderTopWidth: 4 }}
          >
            <h3 className="mb-2 font-semibold">
              {t.emoji} {t.tier} ({byTier[t.tier]?.length ?? 0})
            </h3>
            <div className="grid gap-2">
              {(byTier[t.tier] ?? []).map((b) => (
                <LeadCard
                  key={b.place_id}
                  b={b}
                  selected={selected.has(b.place_id)}
                  onToggle={toggle}
                  compact
                />
              ))}
            </div>
          </div>
        ))}
      </div>
    );
  // the map alone: each marker's popup is its card (the grid under it doubled the page's DOM)
  if (view === "map")
    return (
      <Suspense fallback={<p className="text-sm text-muted-foreground">Loading map...</p>}>
        <LeadsMap result={result} businesses={businesses} />
      </Suspense>
    );
  return <Grid businesses={businesses} selected={selected} toggle={toggle} />;
}

function Grid({
  businesses,
  selected,
  toggle,
}: {
  businesses: Business[];
  selected: Set<string>;
  toggle: (id: string) => void;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3" data-testid="results-grid">
      {businesses.map((b) => (
        <LeadCard key={b.place_id} b={b} selected={selected.has(b.place_id)} onToggle={toggle} />
      ))}
    </div>
  );
}

/** One result's card; memoised (props are the business, its selection and a stable toggle). */
const LeadCard = memo(function LeadCard({
  b,
  selected,
  onToggle,
  compact,
}: {
  b: Business;
  selected: boolean;
  onToggle: (placeId: string) => void;
  compact?: boolean;
}) {
  const t = tierOf(b);
  return (
    <div
      className={cn(
        "grid gap-1 rounded-xl border p-3 text-sm",
        selected ? "border-primary" : "border-border",
      )}
      data-testid="lead-card"
    >
      <div className="flex items-start gap-2">
        <Checkbox aria-label={`Select ${b.name}`} checked={selected} onChange={() => onToggle(b.place_id)} />
        <p className="font-semibold">{b.name}</p>
        <span
          className="ml-auto shrink-0 rounded-full px-2 py-0.5 text-xs font-semibold"
          // the tier colours are data (#ef4444, #f59e0b, #3b82f6): white on them is under 4.5:1
          style={{ background: t.color, color: readableTextOn(t.color) }}
        >
          {t.emoji} {t.tier} {b.leadScore}
        </span>
      </div>
      <div className="flex flex-wrap gap-1">
        {b.demo && <Badge variant="outline">Demo data</Badge>}
        {b.is_new && <Badge>New</Badge>}
        {b.in_contacts && <Badge variant="secondary">In contacts</Badge>}
      </div>
      <p className="text-muted-foreground">{b.address ?? "No address"}</p>
      {!compact && (
        <>
          <p>
            {b.rating !== null ? `★ ${b.rating} (${plural(b.review_count ?? 0, "review")})` : "No rating"} ·{" "}
            {b.distance} mi
            {b.opening_hours.open_now !== null &&
              ` · ${b.opening_hours.open_now ? "Open now" : "Closed now"}`}
          </p>
          <p>{b.phone ?? "No phone"}</p>
          {b.website && (
            // py-0.5 and the summary's py-1: each 24 px tall, a finger's target (WCAG 2.5.8), not 20 and 16
            <a
              href={b.website}
              target="_blank"
              rel="noreferrer"
              className="break-all py-0.5 underline sm:truncate"
            >
              {b.website}
            </a>
          )}
          <details>
            <summary className="cursor-pointer py-1 text-xs text-muted-foreground">Why this score</summary>
            <ul className="mt-1 list-disc pl-4 text-xs">
              {b.scoreReasons.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          </details>
        </>
      )}
    </div>
  );
});
