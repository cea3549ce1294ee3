import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Search, Users } from "lucide-react";
import { useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Checkbox } from "@/client/components/ui/checkbox";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Input } from "@/client/components/ui/input";
import { Skeleton } from "@/client/components/ui/skeleton";
import { contactName, LEAD_STATUSES, LIFECYCLE_STAGES } from "@/client/features/crm/api";
import { ContactNameText } from "@/client/features/crm/contact-name";
import { contactSendNumber } from "@/client/features/crm/send-number";
import { formatNumber, plural, titleCase } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";
import type { AudienceFilterInput, ListedContact, PickAll } from "./audience";

const PAGE_SIZE = 25;

const selectClass = "h-10 rounded-lg border border-input bg-card px-3 text-sm";

/** A contact's email or phone as the picker shows it, "none" (muted) without one. */
function Address({ value }: { value: string | null }) {
  return value ?? <span className="text-muted-foreground">none</span>;
}

/**
 * Contacts chosen from the CRM (issue 14): search (name, email, company, phone), lifecycle stage,
 * lead status and tag filters, pages of 25 from the server (tRPC `crm.list`), tick boxes, and
 * 'Select all N matching' (the whole filter result, resolved by the server at launch); unticking a
 * contact after it excludes that contact (`pickAll.excludeIds`, the audience's `excludeIds`).
 * Only the contacts the campaign can reach are offered: the server lists those with an email
 * (`need` "email") or a valid phone or mobile number (`need` "phone": SMS, calls, voicemail), by the
 * rule the review skips the others by (`crm.list` `reachable`; 'Select all N matching' is the audience
 * filter with the same `reachable`); a line under the table says so. A contact's number is the one the
 * campaign sends to (`numberKind`: "sms" texts the mobile first, "voice" calls the phone first;
 * crm/send-number contactSendNumber, as that field was typed), not an invalid number it also has.
 * Below sm (a phone) the email or phone is shown under the name, in the name's column, instead of
 * in a column of its own, and long names and addresses wrap where they must (wrap-anywhere), so a
 * long address neither widens the table past the screen nor is squeezed into a narrow column.
 */
export function ContactPicker({
  picked,
  onPicked,
  pickAll,
  onPickAll,
  need,
  numberKind = "sms",
}: {
  picked: Map<number, ListedContact | null>;
  onPicked: (m: Map<number, ListedContact | null>) => void;
  pickAll: PickAll | null;
  onPickAll: (p: PickAll | null) => void;
  need: "phone" | "email";
  /** which number of a contact a phone campaign uses: "sms" (texts) or "voice" (calls, voicemail) */
  numberKind?: "sms" | "voice";
}) {
  const trpc = useTRPC();
  const [searchText, setSearchText] = useState("");
  const [filter, setFilter] = useState<AudienceFilterInput>({});
  const [page, setPage] = useState(1);
  const { data: tags } = useQuery(trpc.crm.tags.queryOptions());
  const { data, isPending, isError } = useQuery({
    ...trpc.crm.list.queryOptions({
      search: filter.search || undefined,
      stage: filter.stage || undefined,
      status: filter.status || undefined,
      tag: filter.tagId || undefined,
      page,
      limit: PAGE_SIZE,
      reachable: need,
    }),
    placeholderData: keepPreviousData,
  });
  const contacts = data?.contacts ?? [];
  const total = data?.pagination.total ?? 0;
  const capped = !!data?.pagination.total_capped;
  const pages = data?.pagination.pages ?? 1;
  const filtered = !!(filter.search || filter.stage || filter.status || filter.tagId);
  const excluded = new Set(pickAll?.excludeIds ?? []);
  const isPicked = (id: number) => (pickAll ? !excluded.has(id) : picked.has(id));
  const allOnPage = contacts.length > 0 && contacts.every((c) => isPicked(c.id));
  const selectedCount = pickAll ? Math.max(0, pickAll.count - excluded.size) : picked.size;
  const addressOf = (c: ListedContact) =>
    need === "phone" ? (contactSendNumber(numberKind, c)?.typed ?? null) : c.email || null;
  const reach = need === "phone" ? "a valid phone number" : "an email address";

  const update = (next: Partial<AudienceFilterInput>) => {
    setFilter((f) => ({ ...f, ...next }));
    setPage(1);
    // "all matching" belongs to the old filter
    if (pickAll) onPickAll(null);
  };
  function toggle(c: ListedContact) {
    if (pickAll) {
      // still "all matching": the contact is left out of it (or taken back in)
      excluded.has(c.id) ? excluded.delete(c.id) : excluded.add(c.id);
      onPickAll({ ...pickAll, excludeIds: [...excluded] });
      return;
    }
    const m = new Map(picked);
    m.has(c.id) ? m.delete(c.id) : m.set(c.id, c);
    onPicked(m);
  }
  function togglePage() {
    if (pickAll) {
      for (const c of contacts) allOnPage ? excluded.add(c.id) : excluded.delete(c.id);
      onPickAll({ ...pickAll, excludeIds: [...excluded] });
      return;
    }
    const m = new Map(picked);
    if (allOnPage) for (const c of contacts) m.delete(c.id);
    else for (const c of contacts) m.set(c.id, c);
    onPicked(m);
  }

  return (
    <div className="space-y-3">
      <div className="flex flex-col gap-2 md:flex-row md:flex-wrap md:items-center">
        <form
          className="relative min-w-0 flex-1"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            update({ search: searchText.trim() || undefined });
          }}
        >
          <Search
            className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground"
            aria-hidden
          />
          <Input
            aria-label="Search contacts to add"
            placeholder="Search name, email, company or phone and press Enter"
            className="pl-9"
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
          />
        </form>
        <select
          aria-label="Filter by lifecycle stage"
          className={selectClass}
          value={filter.stage ?? ""}
          onChange={(e) => update({ stage: (e.target.value || undefined) as AudienceFilterInput["stage"] })}
        >
          <option value="">All stages</option>
          {LIFECYCLE_STAGES.map((s) => (
            <option key={s} value={s}>
              {titleCase(s)}
            </option>
          ))}
        </select>
        <select
          aria-label="Filter by lead status"
          className={selectClass}
          value={filter.status ?? ""}
          onChange={(e) => update({ status: (e.target.value || undefined) as AudienceFilterInput["status"] })}
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
          className={selectClass}
          value={filter.tagId ? String(filter.tagId) : ""}
          onChange={(e) => update({ tagId: e.target.value ? Number(e.target.value) : undefined })}
        >
          <option value="">All tags</option>
          {(tags ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </div>

      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium" data-testid="picker-selected">
          {formatNumber(selectedCount)} selected
        </span>
        {!pickAll && allOnPage && total > contacts.length && (
          <Button
            variant="link"
            size="sm"
            // the server resolves the same list at launch: the filter's contacts this campaign reaches
            onClick={() =>
              onPickAll({ filter: { ...filter, reachable: need }, count: total, excludeIds: [] })
            }
          >
            Select all {formatNumber(total)}
            {capped ? "+" : ""} matching
          </Button>
        )}
        {pickAll && (
          <span className="text-muted-foreground">
            All contacts with {reach}
            {filtered ? " matching this filter" : ""} are selected
            {excluded.size > 0 ? `, except ${plural(excluded.size, "unticked contact")}` : ""}.
          </span>
        )}
        {selectedCount > 0 && (
          <Button
            variant="ghost"
            size="sm"
            onClick={() => {
              onPickAll(null);
              onPicked(new Map());
            }}
          >
            Clear selection
          </Button>
        )}
      </div>

      {isError && <AlertBanner variant="error">Could not load contacts. Please try again.</AlertBanner>}
      {isPending ? (
        <Skeleton className="h-40 w-full" />
      ) : contacts.length === 0 ? (
        filtered ? (
          <EmptyState
            icon={Search}
            title="No contacts match"
            description={`Try another search or filter. Only contacts with ${reach} are listed.`}
          />
        ) : (
          <EmptyState
            icon={Users}
            title={`No contacts with ${reach}`}
            description="Add or import contacts, or upload a CSV instead."
            action={<Link to="/contacts">Go to contacts</Link>}
          />
        )
      ) : (
        <div className="overflow-x-auto rounded-lg border">
          <table className="w-full text-sm">
            <thead className="border-b bg-muted/40 text-left text-xs text-muted-foreground uppercase">
              <tr>
                <th className="w-10 p-2">
                  <Checkbox aria-label="Select all on this page" checked={allOnPage} onChange={togglePage} />
                </th>
                <th className="p-2">
                  Name<span className="sm:hidden"> and {need === "phone" ? "phone" : "email"}</span>
                </th>
                <th className="hidden p-2 sm:table-cell">{need === "phone" ? "Phone" : "Email"}</th>
                <th className="hidden p-2 sm:table-cell">Company</th>
                <th className="hidden p-2 md:table-cell">Tags</th>
              </tr>
            </thead>
            <tbody>
              {contacts.map((c) => (
                <tr key={c.id} className="border-b last:border-0">
                  <td className="p-2">
                    <Checkbox
                      aria-label={`Select ${contactName(c)}`}
                      checked={isPicked(c.id)}
                      onChange={() => toggle(c)}
                    />
                  </td>
                  <td className="p-2">
                    <span className="block wrap-anywhere">
                      <ContactNameText contact={c} />
                    </span>
                    {/* below sm the address goes under the name (its own column left no room) */}
                    {contactName(c) !== addressOf(c) && (
                      <span className="block text-muted-foreground wrap-anywhere sm:hidden">
                        <Address value={addressOf(c)} />
                      </span>
                    )}
                  </td>
                  <td className="hidden p-2 wrap-anywhere sm:table-cell">
                    <Address value={addressOf(c)} />
                  </td>
                  <td className="hidden p-2 sm:table-cell">{c.company ?? ""}</td>
                  <td className="hidden p-2 md:table-cell">{c.tags.map((t) => t.name).join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {contacts.length > 0 && (
        <p className="text-xs text-muted-foreground" data-testid="picker-reach-note">
          Contacts without {reach} are not listed: this campaign cannot reach them.
        </p>
      )}
      {pages > 1 && (
        <nav className="flex items-center justify-between gap-2" aria-label="Contact pages">
          <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </Button>
          <span className="text-sm text-muted-foreground">
            Page {page} of {formatNumber(pages)}
          </span>
          <Button size="sm" variant="outline" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </Button>
        </nav>
      )}
    </div>
  );
}
