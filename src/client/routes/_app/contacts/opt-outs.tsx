import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { createFileRoute, Link } from "@tanstack/react-router";
import { ArrowLeft, Download, ShieldOff } from "lucide-react";
import { useEffect, useState } from "react";
import { PageHeader } from "@/client/components/layout/page-header";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/client/components/ui/table";
import { withShownWorkspace } from "@/client/features/workspaces/shown-workspace";
import { errorMessage } from "@/client/lib/errors";
import { formatDateTime, formatNumber, plural } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";

export const Route = createFileRoute("/_app/contacts/opt-outs")({
  component: OptOutsPage,
});

/** The channel filter's choices (server compliance SUPPRESSION_CHANNELS; "voice" lists voicemail too). */
const CHANNELS = [
  { value: "", label: "All channels" },
  { value: "email", label: "Email" },
  { value: "sms", label: "SMS" },
  { value: "voice", label: "Calls and voicemail" },
  { value: "all", label: "Every channel at once" },
] as const;
type ChannelFilter = (typeof CHANNELS)[number]["value"];

/** A suppression's channel in words. */
const CHANNEL_LABELS: Record<string, string> = {
  email: "Email",
  sms: "SMS",
  voice: "Calls",
  voicemail: "Voicemail",
  all: "Every channel",
};

const PAGE_SIZE = 25;

/**
 * Contacts > Opt-outs: the workspace's suppression list (tRPC crm.optOutList), newest first: channel,
 * address or number, how they opted out, when, and the contact it belongs to (a link) when one does.
 * Search (a contact's name, address, number, reason or source; typed text applies after a short pause), a channel
 * filter, pages of 25, an empty state, and "Export CSV" (GET /api/contacts/opt-outs.csv with the same
 * search and channel). Read only: only the person can opt back in, which the page says.
 */
function OptOutsPage() {
  const trpc = useTRPC();
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  const [channel, setChannel] = useState<ChannelFilter>("");
  const [page, setPage] = useState(1);
  useEffect(() => {
    const timer = window.setTimeout(() => {
      setSearch(typed.trim());
      setPage(1);
    }, 250);
    return () => window.clearTimeout(timer);
  }, [typed]);
  const input = { ...(search ? { search } : {}), ...(channel ? { channel } : {}), page, limit: PAGE_SIZE };
  const list = useQuery({ ...trpc.crm.optOutList.queryOptions(input), placeholderData: keepPreviousData });
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const filtered = !!search || !!channel;
  const exportQuery = new URLSearchParams({ ...(search ? { search } : {}), ...(channel ? { channel } : {}) });
  const exportHref = withShownWorkspace(
    `/api/contacts/opt-outs.csv${exportQuery.size ? `?${exportQuery.toString()}` : ""}`,
  );

  return (
    <>
      <PageHeader
        title="Opt-outs"
        description="Everyone who asked not to hear from you: unsubscribes, STOP replies, keypresses, bounces and complaints. Campaigns and single sends skip them."
        actions={
          <>
            <Button variant="outline" asChild>
              <Link to="/contacts">
                <ArrowLeft aria-hidden /> Back to Contacts
              </Link>
            </Button>
            <Button variant="outline" asChild>
              <a href={exportHref} download>
                <Download aria-hidden /> Export CSV
              </a>
            </Button>
          </>
        }
      />
      <p className="mb-4 text-sm text-muted-foreground" data-testid="opt-outs-read-only">
        Only the person can opt back in (for texts, by replying START), so opt-outs cannot be removed here.
      </p>

      <div className="mb-4 flex flex-wrap items-end gap-3">
        <div className="grid min-w-[min(16rem,100%)] flex-1 gap-1.5">
          <Label htmlFor="opt-outs-search">Search</Label>
          <Input
            id="opt-outs-search"
            type="search"
            placeholder="Name, email, number, reason"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
          />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="opt-outs-channel">Channel</Label>
          <select
            id="opt-outs-channel"
            className="h-9 rounded-md border border-input bg-card px-2 text-sm"
            value={channel}
            onChange={(e) => {
              setChannel(e.target.value as ChannelFilter);
              setPage(1);
            }}
          >
            {CHANNELS.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
      </div>

      {list.isError && (
        <AlertBanner variant="error" className="mb-4">
          {errorMessage(list.error, "The opt-outs could not be loaded")}
        </AlertBanner>
      )}
      {list.isPending ? (
        <p className="text-muted-foreground">Loading opt-outs...</p>
      ) : list.data && list.data.entries.length === 0 ? (
        <EmptyState
          icon={ShieldOff}
          title={filtered ? "No opt-outs match" : "No one has opted out"}
          description={
            filtered
              ? "Try another search or channel."
              : "When someone unsubscribes, replies STOP, presses 9 during a call, or an email bounces, they are listed here."
          }
        />
      ) : (
        list.data && (
          <>
            <p className="mb-2 text-sm text-muted-foreground" role="status" data-testid="opt-outs-count">
              {plural(total, "opt-out")}
              {filtered ? " match" : ""}
            </p>
            {list.data.name_match_cap !== null && (
              <p className="mb-2 text-sm text-muted-foreground" data-testid="opt-outs-name-capped">
                More than {formatNumber(list.data.name_match_cap)} contacts have this in their name, so only
                the opt-outs of the first {formatNumber(list.data.name_match_cap)} are listed by name. Search
                by address or number to find anyone else.
              </p>
            )}
            <section
              className="overflow-x-auto rounded-lg border border-border"
              aria-label="Opt-outs"
              // a scrolling region at narrow widths: reachable by keyboard
              // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable (axe scrollable-region-focusable)
              tabIndex={0}
            >
              <Table>
                <TableHeader>
                  <TableRow>
                    <TableHead>Channel</TableHead>
                    <TableHead>Address or number</TableHead>
                    <TableHead>How</TableHead>
                    <TableHead>Date</TableHead>
                    <TableHead>Contact</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {list.data.entries.map((e) => (
                    <TableRow key={e.id}>
                      <TableCell>{CHANNEL_LABELS[e.channel] ?? e.channel}</TableCell>
                      <TableCell className="break-all">{e.value}</TableCell>
                      <TableCell>{e.how}</TableCell>
                      <TableCell className="whitespace-nowrap">{formatDateTime(e.created_at)}</TableCell>
                      <TableCell>
                        {e.contact ? (
                          <Link
                            to="/contacts/$id"
                            params={{ id: String(e.contact.id) }}
                            className="text-primary-text underline"
                          >
                            {e.contact.name}
                          </Link>
                        ) : (
                          <span className="text-muted-foreground">No contact</span>
                        )}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </section>
            {pages > 1 && (
              <nav className="mt-4 flex flex-wrap items-center justify-between gap-2" aria-label="Pagination">
                <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Previous
                </Button>
                <span className="text-sm text-muted-foreground">
                  Page {formatNumber(page)} of {formatNumber(pages)}
                </span>
                <Button
                  size="sm"
                  variant="outline"
                  disabled={page >= pages}
                  onClick={() => setPage(page + 1)}
                >
                  Next
                </Button>
              </nav>
            )}
          </>
        )
      )}
    </>
  );
}
