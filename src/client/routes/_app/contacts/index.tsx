import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { createFileRoute, Link, useNavigate } from "@tanstack/react-router";
import type { inferRouterInputs } from "@trpc/server";
import {
  BookmarkPlus,
  Download,
  Eye,
  Filter,
  LayoutGrid,
  List,
  Map as MapIcon,
  Plus,
  Search,
  SearchCheck,
  ShieldOff,
  Tag as TagIcon,
  Trash2,
  Upload,
  Users,
} from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { PageHeader } from "@/client/components/layout/page-header";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Checkbox } from "@/client/components/ui/checkbox";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Input } from "@/client/components/ui/input";
import { Skeleton } from "@/client/components/ui/skeleton";
import { useUsage } from "@/client/features/billing/usage";
import {
  type ContactFilter,
  contactName,
  filterQuery,
  invalidateCrm,
  LEAD_STATUSES,
  type LeadStatus,
  LIFECYCLE_STAGES,
  type LifecycleStage,
  type ListedContact,
} from "@/client/features/crm/api";
import { ContactNameText } from "@/client/features/crm/contact-name";
import {
  AddContactDialog,
  ChoiceDialog,
  NewTagRow,
  stageOptions,
  useTags,
} from "@/client/features/crm/dialogs";
import { ImportDialog } from "@/client/features/crm/import-dialog";
import { SaveSegmentDialog, SegmentsDialog, toSegmentFilter } from "@/client/features/crm/segments";
import { StageBadge } from "@/client/features/crm/stage-badge";
import { withShownWorkspace } from "@/client/features/workspaces/shown-workspace";
import { formatNumber, plural, titleCase } from "@/client/lib/format";
import { useTRPC, useTRPCClient } from "@/client/trpc";
import type { AppRouter } from "@/server/trpc/router";

/** The list's state in the URL (issue 14): Back from a contact returns to the same list. */
interface ContactsSearch {
  search?: string;
  stage?: LifecycleStage;
  status?: LeadStatus;
  tag?: number;
  page?: number;
  view?: "grid";
}

const positiveInt = (v: unknown) => {
  const n = Number(v);
  return v !== undefined && v !== "" && Number.isInteger(n) && n > 0 ? n : undefined;
};

export const Route = createFileRoute("/_app/contacts/")({
  validateSearch: (raw: Record<string, unknown>): ContactsSearch => {
    const search = typeof raw.search === "string" ? raw.search.trim().slice(0, 100) : "";
    const stage = LIFECYCLE_STAGES.find((s) => s === raw.stage);
    const status = LEAD_STATUSES.find((s) => s === raw.status);
    const tag = positiveInt(raw.tag);
    const page = positiveInt(raw.page);
    return {
      ...(search ? { search } : {}),
      ...(stage ? { stage } : {}),
      ...(status ? { status } : {}),
      ...(tag ? { tag } : {}),
      ...(page && page > 1 ? { page } : {}),
      ...(raw.view === "grid" ? { view: "grid" as const } : {}),
    };
  },
  component: ContactsPage,
});

type Banner = { variant: "success" | "error"; message: string };
type Modal =
  | null
  | "add"
  | "import"
  | "stage"
  | "status"
  | "tag"
  | "untag"
  | "save-segment"
  | "segments"
  | "delete"
  | "delete-one";

/** A bulk action over the selection (tRPC crm.bulk). */
type BulkInput = inferRouterInputs<AppRouter>["crm"]["bulk"];

function ContactsPage() {
  const qc = useQueryClient();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const navigate = useNavigate({ from: Route.fullPath });
  const urlSearch = Route.useSearch();
  const filter: ContactFilter = {
    search: urlSearch.search,
    stage: urlSearch.stage,
    status: urlSearch.status,
    tag: urlSearch.tag,
    page: urlSearch.page ?? 1,
  };
  const view = urlSearch.view ?? "list";
  const [searchText, setSearchText] = useState(urlSearch.search ?? "");
  // the URL is the truth (Back, links): the box follows it
  useEffect(() => setSearchText(urlSearch.search ?? ""), [urlSearch.search]);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  // "select all N matching": the whole filter result, minus the contacts unticked after it (issue 14)
  const [allMatching, setAllMatching] = useState(false);
  const [excluded, setExcluded] = useState<Set<number>>(new Set());
  const [modal, setModal] = useState<Modal>(null);
  /** the row whose Delete button opened the single-contact confirmation (modal "delete-one") */
  const [toDelete, setToDelete] = useState<ListedContact | null>(null);
  const [banner, setBanner] = useState<Banner | null>(null);
  // where focus goes when a bulk action or a delete removed the control that started it (the
  // bulk-actions bar goes with the selection, a row's Delete button with the row): the list itself
  const results = useRef<HTMLDivElement>(null);
  const focusResults = () => results.current;
  const tags = useTags();
  const { data, isPending, isError } = useQuery({
    ...trpc.crm.list.queryOptions({
      search: filter.search,
      stage: urlSearch.stage,
      status: urlSearch.status,
      tag: filter.tag,
      page: filter.page,
    }),
    placeholderData: keepPreviousData,
  });
  const contacts = data?.contacts ?? [];
  const pagination = data?.pagination;
  const total = pagination?.total ?? 0;
  const totalText = `${formatNumber(total)}${pagination?.total_capped ? "+" : ""}`;
  const filtered = !!(filter.search || filter.stage || filter.status || filter.tag);
  // the heading counts the workspace's contacts; a search or filter's matches are said beside the
  // list (a tester read "Contacts (0)" under a search as an empty workspace). The workspace's count
  // is the server's (billing.usage, which the import dialog reads too) while a filter is on.
  const workspaceTotal = useUsage().data?.usage.contacts?.used;
  const heading = filtered
    ? workspaceTotal === undefined
      ? "Contacts"
      : `Contacts (${formatNumber(workspaceTotal)})`
    : isPending
      ? "Contacts"
      : `Contacts (${totalText})`;

  const update = (next: Partial<ContactFilter> & { view?: "list" | "grid" }) => {
    void navigate({
      search: (prev) => {
        const merged = { ...prev, ...next } as Record<string, unknown>;
        const out: ContactsSearch = {};
        if (merged.search) out.search = String(merged.search);
        if (merged.stage) out.stage = merged.stage as LifecycleStage;
        if (merged.status) out.status = merged.status as LeadStatus;
        if (merged.tag) out.tag = Number(merged.tag);
        if (Number(merged.page) > 1) out.page = Number(merged.page);
        if (merged.view === "grid") out.view = "grid";
        return out;
      },
    });
    // a new filter is a new list: the selection goes; paging through the same list keeps it (a QA
    // pass lost "Select all 220 matching" and page 1's ticks by moving to page 2)
    if (Object.keys(next).some((k) => k !== "page" && k !== "view")) clearSelection();
  };
  const pageIds = contacts.map((c) => c.id);
  const isSelected = (id: number) => (allMatching ? !excluded.has(id) : selected.has(id));
  const allOnPage = pageIds.length > 0 && pageIds.every(isSelected);
  const selectedCount = allMatching ? Math.max(0, total - excluded.size) : selected.size;

  function clearSelection() {
    setSelected(new Set());
    setAllMatching(false);
    setExcluded(new Set());
  }
  function toggleAll() {
    if (allMatching) {
      // all matching stays chosen: this page is excluded from it, or taken back in
      setExcluded((x) => {
        const n = new Set(x);
        for (const id of pageIds) allOnPage ? n.add(id) : n.delete(id);
        return n;
      });
      return;
    }
    // this page's rows join the selection or leave it; other pages' ticks stay
    setSelected((sel) => {
      const n = new Set(sel);
      for (const id of pageIds) allOnPage ? n.delete(id) : n.add(id);
      return n;
    });
  }
  function toggle(id: number) {
    const flip = (s: Set<number>) => {
      const n = new Set(s);
      n.has(id) ? n.delete(id) : n.add(id);
      return n;
    };
    if (allMatching) setExcluded(flip);
    else setSelected(flip);
  }

  async function bulk(operation: BulkInput["operation"], body: NonNullable<BulkInput["data"]> = {}) {
    const target = allMatching
      ? { filter: toSegmentFilter(filter), ...(excluded.size ? { excludeIds: [...excluded] } : {}) }
      : { contactIds: [...selected] };
    const res = await client.crm.bulk.mutate({ ...target, operation, data: body });
    await invalidateCrm(qc);
    clearSelection();
    // each operation answers its own count ({deleted} | {updated} | {tagged} | {untagged})
    return res as Partial<Record<"deleted" | "updated" | "tagged" | "untagged", number>>;
  }

  /** Deletes the selection, once confirmed in the dialog (modal "delete"). */
  async function bulkDelete() {
    try {
      const r = await bulk("delete");
      setBanner({ variant: "success", message: `Successfully deleted ${plural(r.deleted ?? 0, "contact")}` });
    } catch (e) {
      setBanner({ variant: "error", message: `Failed: ${(e as Error).message || "Unknown error"}` });
    }
  }

  /**
   * Deletes one contact, once confirmed in the app's dialog (modal "delete-one", opened by the row's
   * Delete button); the dialog's focusAfterConfirm moves focus to the contact list when the row goes.
   */
  async function deleteOne(c: ListedContact) {
    try {
      await client.crm.delete.mutate({ id: c.id });
      await invalidateCrm(qc);
      setBanner({ variant: "success", message: `Deleted ${contactName(c)}` });
    } catch (e) {
      setBanner({ variant: "error", message: `Error: ${(e as Error).message || "Unknown error"}` });
    }
  }

  const pages = pagination?.pages ?? 1;
  const page = pagination?.page ?? 1;

  return (
    <>
      <PageHeader
        title={heading}
        description="Search, segment and reach the people and businesses you work with."
        actions={
          <>
            <Button onClick={() => setModal("add")}>
              <Plus aria-hidden /> Add Contact
            </Button>
            <Button variant="outline" onClick={() => setModal("import")}>
              <Upload aria-hidden /> Import CSV
            </Button>
            <Button variant="outline" onClick={() => setModal("segments")}>
              <Filter aria-hidden /> Segments
            </Button>
            <Button variant="outline" asChild>
              <a
                href={withShownWorkspace(
                  `/api/contacts/export.csv${filterQuery({ ...filter, page: undefined })}`,
                )}
                download
              >
                <Download aria-hidden /> Export CSV
              </a>
            </Button>
            <Button variant="outline" asChild>
              <Link to="/contacts/business-search">
                <SearchCheck aria-hidden /> Find Businesses
              </Link>
            </Button>
            <Button variant="outline" asChild>
              <Link to="/contacts/map">
                <MapIcon aria-hidden /> Map View
              </Link>
            </Button>
            <Button variant="outline" asChild>
              <Link to="/contacts/opt-outs">
                <ShieldOff aria-hidden /> Opt-outs
              </Link>
            </Button>
          </>
        }
      />

      {banner && (
        <AlertBanner variant={banner.variant} onDismiss={() => setBanner(null)} className="mb-4">
          {banner.message}
        </AlertBanner>
      )}

      <div className="mb-4 flex flex-col gap-2 lg:flex-row lg:items-center">
        <form
          className="relative flex-1"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            update({ search: searchText.trim(), page: 1 });
          }}
        >
          <Search
            className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
            aria-hidden
          />
          <Input
            aria-label="Search contacts"
            placeholder="Search name, email, company or phone and press Enter"
            className="pl-9"
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
          />
        </form>
        <select
          aria-label="Lifecycle stage"
          className="h-10 rounded-lg border border-input bg-card px-3 text-sm"
          value={filter.stage ?? ""}
          onChange={(e) => update({ stage: e.target.value || undefined, page: 1 })}
        >
          <option value="">All stages</option>
          {LIFECYCLE_STAGES.map((s) => (
            <option key={s} value={s}>
              {titleCase(s)}
            </option>
          ))}
        </select>
        <select
          aria-label="Lead status"
          className="h-10 rounded-lg border border-input bg-card px-3 text-sm"
          value={filter.status ?? ""}
          onChange={(e) => update({ status: e.target.value || undefined, page: 1 })}
        >
          <option value="">All statuses</option>
          {LEAD_STATUSES.map((s) => (
            <option key={s} value={s}>
              {titleCase(s)}
            </option>
          ))}
        </select>
        <select
          aria-label="Filter by tag"
          className="h-10 rounded-lg border border-input bg-card px-3 text-sm"
          value={filter.tag ? String(filter.tag) : ""}
          onChange={(e) => update({ tag: e.target.value ? Number(e.target.value) : undefined, page: 1 })}
        >
          <option value="">All tags</option>
          {tags.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        {filtered && (
          <Button variant="outline" onClick={() => setModal("save-segment")}>
            <BookmarkPlus aria-hidden /> Save as segment
          </Button>
        )}
        <div className="flex rounded-lg border border-border p-0.5" role="group" aria-label="View">
          <Button
            size="icon-sm"
            variant={view === "list" ? "secondary" : "ghost"}
            aria-pressed={view === "list"}
            aria-label="List view"
            onClick={() => update({ view: "list" })}
          >
            <List aria-hidden />
          </Button>
          <Button
            size="icon-sm"
            variant={view === "grid" ? "secondary" : "ghost"}
            aria-pressed={view === "grid"}
            aria-label="Grid view"
            onClick={() => update({ view: "grid" })}
          >
            <LayoutGrid aria-hidden />
          </Button>
        </div>
      </div>

      {selectedCount > 0 && (
        // sticky below the 56 px header: a contact checked far down the list (a phone shows about 6 rows)
        // keeps its actions in sight, not above the screen; opaque, with the tint laid over it
        <div
          className="sticky top-16 z-10 mb-4 flex flex-wrap items-center gap-2 rounded-lg border border-primary/30 bg-background bg-linear-to-r from-primary/5 to-primary/5 px-4 py-2 shadow-sm"
          role="region"
          aria-label="Bulk actions"
        >
          <span className="text-sm font-medium" data-testid="selected-count">
            {formatNumber(selectedCount)} selected
          </span>
          {allOnPage && !allMatching && total > contacts.length && (
            <Button
              variant="link"
              size="sm"
              onClick={() => {
                setAllMatching(true);
                setExcluded(new Set());
              }}
            >
              Select all {totalText} matching
            </Button>
          )}
          <Button variant="link" size="sm" onClick={clearSelection}>
            Clear selection
          </Button>
          <div className="ml-auto flex flex-wrap gap-2">
            <Button size="sm" variant="outline" onClick={() => setModal("tag")}>
              <TagIcon aria-hidden /> Add Tag
            </Button>
            <Button
              size="sm"
              variant="outline"
              onClick={() => setModal("untag")}
              disabled={tags.length === 0}
            >
              Remove Tag
            </Button>
            <Button size="sm" variant="outline" onClick={() => setModal("stage")}>
              Update Stage
            </Button>
            <Button size="sm" variant="outline" onClick={() => setModal("status")}>
              Update Status
            </Button>
            <Button size="sm" variant="destructive" onClick={() => setModal("delete")}>
              <Trash2 aria-hidden /> Delete
            </Button>
          </div>
        </div>
      )}

      {filtered && !isPending && !isError && (
        <p className="mb-2 text-sm text-muted-foreground" role="status" data-testid="match-count">
          {totalText} {total === 1 && !pagination?.total_capped ? "contact matches" : "contacts match"}{" "}
          {filter.search ? `“${filter.search}”` : "these filters"}
          {filter.search && (filter.stage || filter.status || filter.tag) ? " and these filters" : ""}
        </p>
      )}
      <div
        ref={results}
        role="region"
        aria-label="Contact list"
        tabIndex={-1}
        className="rounded-xl outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        {isError && (
          <AlertBanner variant="error">Could not load contacts. Please refresh the page.</AlertBanner>
        )}
        {isPending ? (
          <div className="grid gap-2">
            {Array.from({ length: 6 }, (_, i) => (
              <Skeleton key={String(i)} className="h-12" />
            ))}
          </div>
        ) : contacts.length === 0 ? (
          filtered ? (
            <EmptyState
              icon={Search}
              title="No contacts match"
              description="Try another search or clear the filters."
              action={
                <Button
                  variant="outline"
                  onClick={() => {
                    setSearchText("");
                    update({
                      search: undefined,
                      stage: undefined,
                      status: undefined,
                      tag: undefined,
                      page: 1,
                    });
                  }}
                >
                  Clear filters
                </Button>
              }
            />
          ) : (
            <EmptyState
              icon={Users}
              title="No contacts yet"
              description="Add your first contact or import a CSV from your spreadsheet, Google Contacts, Outlook, Mailchimp or HubSpot."
              action={
                <div className="flex gap-2">
                  <Button onClick={() => setModal("add")}>
                    <Plus aria-hidden /> Add Contact
                  </Button>
                  <Button variant="outline" onClick={() => setModal("import")}>
                    <Upload aria-hidden /> Import CSV
                  </Button>
                </div>
              }
            />
          )
        ) : view === "list" ? (
          <div className="overflow-x-auto rounded-xl border border-border bg-card">
            <table className="w-full text-sm">
              <thead className="border-b border-border bg-muted/40 text-left text-xs text-muted-foreground uppercase">
                <tr>
                  <th className="w-10 p-3">
                    <Checkbox aria-label="Select all" checked={allOnPage} onChange={toggleAll} />
                  </th>
                  <th className="p-3">Name</th>
                  <th className="hidden p-3 sm:table-cell">Email</th>
                  <th className="hidden p-3 md:table-cell">Company</th>
                  <th className="hidden p-3 lg:table-cell">Phone</th>
                  <th className="p-3">Stage</th>
                  <th className="hidden p-3 xl:table-cell">Tags</th>
                  <th className="hidden p-3 lg:table-cell">Score</th>
                  {/* kept in view when the table scrolls sideways (View and Delete were off-screen at 1280 px) */}
                  <th className="sticky right-0 bg-card p-3 text-right shadow-[-1px_0_0_0_var(--color-border)]">
                    Actions
                  </th>
                </tr>
              </thead>
              <tbody>
                {contacts.map((c) => (
                  <tr key={c.id} className="border-b border-border last:border-0 hover:bg-accent/30">
                    <td className="p-3">
                      <Checkbox
                        aria-label={`Select ${contactName(c)}`}
                        checked={isSelected(c.id)}
                        onChange={() => toggle(c.id)}
                      />
                    </td>
                    <td className="p-3 font-medium">
                      <Link to="/contacts/$id" params={{ id: String(c.id) }} className="hover:underline">
                        <ContactNameText contact={c} />
                      </Link>
                    </td>
                    <td
                      className="hidden max-w-56 truncate p-3 text-muted-foreground sm:table-cell"
                      title={c.email || undefined}
                    >
                      {c.email || "-"}
                    </td>
                    <td className="hidden max-w-44 truncate p-3 md:table-cell" title={c.company || undefined}>
                      {c.company || "-"}
                    </td>
                    <td className="hidden p-3 whitespace-nowrap lg:table-cell">
                      {c.phone || c.mobile || "-"}
                    </td>
                    <td className="p-3">
                      <StageBadge stage={c.lifecycle_stage} />
                    </td>
                    <td className="hidden p-3 xl:table-cell">
                      <TagChips tags={c.tags} />
                    </td>
                    <td className="hidden p-3 lg:table-cell">{c.lead_score ?? 0}</td>
                    <td className="sticky right-0 bg-card p-3 text-right whitespace-nowrap shadow-[-1px_0_0_0_var(--color-border)]">
                      <Button
                        size="icon-sm"
                        variant="ghost"
                        aria-label={`View ${contactName(c)}`}
                        onClick={() => void navigate({ to: "/contacts/$id", params: { id: String(c.id) } })}
                      >
                        <Eye aria-hidden />
                      </Button>
                      <Button
                        size="icon-sm"
                        variant="ghost"
                        aria-label={`Delete ${contactName(c)}`}
                        onClick={() => {
                          setToDelete(c);
                          setModal("delete-one");
                        }}
                      >
                        <Trash2 aria-hidden />
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-3">
            {contacts.map((c) => (
              <Link
                key={c.id}
                to="/contacts/$id"
                params={{ id: String(c.id) }}
                className="flex gap-3 rounded-xl border border-border bg-card p-4 transition hover:shadow-md focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
              >
                <div className="flex size-10 shrink-0 items-center justify-center rounded-full bg-primary/15 font-semibold text-primary-text">
                  {(contactName(c)[0] ?? "?").toUpperCase()}
                </div>
                <div className="min-w-0 flex-1">
                  <p className="font-medium break-words sm:truncate">
                    <ContactNameText contact={c} />
                  </p>
                  <p className="text-sm break-all text-muted-foreground sm:truncate">{c.email || "-"}</p>
                  <p className="text-sm break-words sm:truncate">{c.company || "No company"}</p>
                  <p className="text-sm break-words sm:truncate">{c.phone || c.mobile || "No phone"}</p>
                  <div className="mt-2 flex flex-wrap items-center gap-1">
                    <StageBadge stage={c.lifecycle_stage} />
                    <TagChips tags={c.tags} />
                  </div>
                </div>
              </Link>
            ))}
          </div>
        )}

        {pages > 1 && (
          <nav className="mt-4 flex flex-wrap items-center justify-between gap-2" aria-label="Pagination">
            <div className="flex gap-2">
              <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => update({ page: 1 })}>
                First
              </Button>
              <Button
                size="sm"
                variant="outline"
                disabled={page <= 1}
                onClick={() => update({ page: page - 1 })}
              >
                Previous
              </Button>
            </div>
            <span className="text-sm text-muted-foreground">
              Page {page} of {pages} ({totalText} total{" "}
              {total === 1 && !pagination?.total_capped ? "contact" : "contacts"})
            </span>
            <div className="flex gap-2">
              <Button
                size="sm"
                variant="outline"
                disabled={page >= pages}
                onClick={() => update({ page: page + 1 })}
              >
                Next
              </Button>
              <Button
                size="sm"
                variant="outline"
                disabled={page >= pages}
                onClick={() => update({ page: pages })}
              >
                Last
              </Button>
            </div>
          </nav>
        )}
      </div>

      <SaveSegmentDialog
        open={modal === "save-segment"}
        onOpenChange={(o) => setModal(o ? "save-segment" : null)}
        filter={filter}
        tags={tags}
        onSaved={(name) => setBanner({ variant: "success", message: `Saved segment "${name}"` })}
      />
      <SegmentsDialog
        open={modal === "segments"}
        onOpenChange={(o) => setModal(o ? "segments" : null)}
        currentFilter={filter}
        tags={tags}
        onShow={(f) => update({ search: f.search, stage: f.stage, status: f.status, tag: f.tag, page: 1 })}
      />
      <AddContactDialog open={modal === "add"} onOpenChange={(o) => setModal(o ? "add" : null)} />
      <ImportDialog open={modal === "import"} onOpenChange={(o) => setModal(o ? "import" : null)} />
      <ChoiceDialog
        open={modal === "stage"}
        onOpenChange={(o) => setModal(o ? "stage" : null)}
        title="Update Lifecycle Stage"
        description={`Set the lifecycle stage of ${plural(selectedCount, "contact")}.`}
        label="Lifecycle stage"
        options={stageOptions(LIFECYCLE_STAGES)}
        confirmLabel="Update Stage"
        focusAfterConfirm={focusResults}
        onConfirm={async (v) => {
          const r = await bulk("update_stage", { lifecycle_stage: v as LifecycleStage });
          setBanner({ variant: "success", message: `Updated ${plural(r.updated ?? 0, "contact")} to ${v}` });
        }}
      />
      <ChoiceDialog
        open={modal === "status"}
        onOpenChange={(o) => setModal(o ? "status" : null)}
        title="Update Lead Status"
        description={`Set the lead status of ${plural(selectedCount, "contact")}.`}
        label="Lead status"
        options={stageOptions(LEAD_STATUSES)}
        confirmLabel="Update Status"
        focusAfterConfirm={focusResults}
        onConfirm={async (v) => {
          const r = await bulk("update_status", { lead_status: v as LeadStatus });
          setBanner({ variant: "success", message: `Updated ${plural(r.updated ?? 0, "contact")} to ${v}` });
        }}
      />
      <ChoiceDialog
        open={modal === "tag"}
        onOpenChange={(o) => setModal(o ? "tag" : null)}
        title="Add Tag to Contacts"
        description={`Tag ${plural(selectedCount, "contact")}.`}
        label="Tag"
        options={tags.map((t) => ({ value: String(t.id), label: t.name }))}
        confirmLabel="Add Tag"
        focusAfterConfirm={focusResults}
        extra={(choose) => <NewTagRow onCreated={(t) => choose(String(t.id))} />}
        onConfirm={async (v) => {
          const r = await bulk("add_tag", { tag_id: Number(v) });
          setBanner({ variant: "success", message: `Tagged ${plural(r.tagged ?? 0, "contact")}` });
        }}
      />
      <ChoiceDialog
        open={modal === "untag"}
        onOpenChange={(o) => setModal(o ? "untag" : null)}
        title="Remove Tag from Contacts"
        description={`Take a tag off ${plural(selectedCount, "contact")}. The tag itself is kept.`}
        label="Tag"
        options={tags.map((t) => ({ value: String(t.id), label: t.name }))}
        confirmLabel="Remove Tag"
        focusAfterConfirm={focusResults}
        onConfirm={async (v) => {
          const r = await bulk("remove_tag", { tag_id: Number(v) });
          setBanner({
            variant: "success",
            message: `Removed the tag from ${plural(r.untagged ?? 0, "contact")}`,
          });
        }}
      />
      <ConfirmDialog
        open={modal === "delete"}
        onOpenChange={(o) => setModal(o ? "delete" : null)}
        title={`Delete ${plural(selectedCount, "selected contact")}?`}
        description="Their notes, activities and campaign history go with them. This cannot be undone."
        confirmLabel="Delete contacts"
        onConfirm={() => void bulkDelete()}
        focusAfterConfirm={focusResults}
      />
      <ConfirmDialog
        open={modal === "delete-one" && toDelete !== null}
        onOpenChange={(o) => setModal(o ? "delete-one" : null)}
        title={toDelete ? `Delete ${contactName(toDelete)}?` : "Delete contact?"}
        description="Their notes, activities and campaign history go with them. This cannot be undone."
        confirmLabel={toDelete ? `Delete ${contactName(toDelete)}` : "Delete contact"}
        onConfirm={() => toDelete && void deleteOne(toDelete)}
        focusAfterConfirm={focusResults}
      />
    </>
  );
}

/** A contact's tags as small coloured chips. */
function TagChips({ tags }: { tags: ListedContact["tags"] }) {
  if (tags.length === 0) return <span className="text-muted-foreground">-</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {tags.map((t) => (
        <span
          key={t.id}
          className="inline-flex items-center gap-1 rounded-full border border-border px-2 py-0.5 text-xs whitespace-nowrap"
        >
          <span className="size-2 rounded-full" style={{ backgroundColor: t.color }} aria-hidden />
          {t.name}
        </span>
      ))}
    </span>
  );
}
