import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { ConfirmDialog } from "@/client/components/ui/confirm-dialog";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { FormField } from "@/client/components/ui/form-field";
import { Input } from "@/client/components/ui/input";
import { Skeleton } from "@/client/components/ui/skeleton";
import { sameSlotOr } from "@/client/lib/focus-rescue";
import { plural, titleCase } from "@/client/lib/format";
import { useTRPC } from "@/client/trpc";
import {
  type ContactFilter,
  invalidateCrm,
  type LeadStatus,
  type LifecycleStage,
  type Segment,
  type Tag,
} from "./api";

/** A segment's stored filter (SegmentFilter keys) from the list's filter. */
export function toSegmentFilter(f: ContactFilter): {
  search?: string;
  lifecycle_stage?: LifecycleStage;
  lead_status?: LeadStatus;
  tag_id?: number;
} {
  return {
    ...(f.search ? { search: f.search } : {}),
    ...(f.stage ? { lifecycle_stage: f.stage as LifecycleStage } : {}),
    ...(f.status ? { lead_status: f.status as LeadStatus } : {}),
    ...(f.tag ? { tag_id: f.tag } : {}),
  };
}

/** The contacts list filter of a saved segment's filter. */
export function fromSegmentFilter(f: Segment["filter"]): ContactFilter {
  return {
    search: f.search || undefined,
    stage: f.lifecycle_stage || undefined,
    status: f.lead_status || undefined,
    tag: f.tag_id || undefined,
  };
}

/** "Search 'acme' · Customer · Qualified · tag VIP", or "All contacts". */
export function describeFilter(f: ContactFilter, tags: Tag[]): string {
  const parts = [
    f.search ? `Search "${f.search}"` : "",
    f.stage ? titleCase(f.stage) : "",
    f.status ? titleCase(f.status) : "",
    f.tag ? `tag ${tags.find((t) => t.id === f.tag)?.name ?? `#${f.tag}`}` : "",
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : "All contacts";
}

/** 'Save as segment': names the contacts list's current filter as a saved segment (tRPC `crm.createList`). */
export function SaveSegmentDialog({
  open,
  onOpenChange,
  filter,
  tags,
  onSaved,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  filter: ContactFilter;
  tags: Tag[];
  onSaved: (name: string) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const save = useMutation(
    trpc.crm.createList.mutationOptions({
      onSuccess: async (s) => {
        await invalidateCrm(qc);
        setName("");
        onOpenChange(false);
        onSaved(s.name);
      },
    }),
  );
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        save.reset();
        onOpenChange(o);
      }}
    >
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Save as segment</DialogTitle>
          <DialogDescription>
            {describeFilter(filter, tags)}. A segment is re-evaluated each time you use it, so new contacts
            that match are included.
          </DialogDescription>
        </DialogHeader>
        <form
          className="grid gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (!name.trim()) return;
            save.mutate({ name: name.trim(), filter: toSegmentFilter(filter) });
          }}
        >
          {save.error && <AlertBanner variant="error">{save.error.message}</AlertBanner>}
          <FormField label="Segment name" htmlFor="segment-name">
            <Input
              id="segment-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={100}
              placeholder="Customers in Austin"
            />
          </FormField>
          <DialogFooter>
            <Button type="submit" disabled={!name.trim() || save.isPending}>
              {save.isPending ? "Saving..." : "Save segment"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/**
 * The saved segments (issue 14): each with its current size and filter; show it in the list,
 * rename it, replace its filter with the list's current one, or delete it (asked first in a
 * ConfirmDialog on top of this one; focus then goes to the next segment's Delete, else the title).
 */
export function SegmentsDialog({
  open,
  onOpenChange,
  currentFilter,
  tags,
  onShow,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  currentFilter: ContactFilter;
  tags: Tag[];
  onShow: (f: ContactFilter) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { data, isPending, isError } = useQuery({ ...trpc.crm.lists.queryOptions(), enabled: open });
  const [editing, setEditing] = useState<number | null>(null);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  // the segment whose Delete asks for confirmation, and its place in the list (for focus afterwards)
  const [deleting, setDeleting] = useState<{ segment: Segment; index: number } | null>(null);
  const list = useRef<HTMLUListElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const done = async () => {
    setError(null);
    await invalidateCrm(qc);
  };
  const update = useMutation(
    trpc.crm.updateList.mutationOptions({
      onSuccess: async () => {
        setEditing(null);
        await done();
      },
      onError: (e) => setError(e.message),
    }),
  );
  const remove = useMutation(
    trpc.crm.deleteList.mutationOptions({ onSuccess: done, onError: (e) => setError(e.message) }),
  );
  const current = toSegmentFilter(currentFilter);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-2xl">
        <DialogHeader>
          <DialogTitle ref={title} tabIndex={-1} className="outline-none">
            Segments
          </DialogTitle>
          <DialogDescription>Saved filters you can send campaigns to.</DialogDescription>
        </DialogHeader>
        {error && <AlertBanner variant="error">{error}</AlertBanner>}
        {isError && <AlertBanner variant="error">Could not load segments.</AlertBanner>}
        {isPending ? (
          <Skeleton className="h-24 w-full" />
        ) : !data || data.length === 0 ? (
          <p className="text-sm text-muted-foreground">
            No segments yet. Filter the contacts list, then choose 'Save as segment'.
          </p>
        ) : (
          <ul
            ref={list}
            className="max-h-[60vh] divide-y overflow-y-auto rounded-lg border"
            aria-label="Saved segments"
          >
            {data.map((s, index) => (
              <li key={s.id} className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center">
                <div className="min-w-0 flex-1">
                  {editing === s.id ? (
                    <form
                      className="flex gap-2"
                      onSubmit={(e) => {
                        e.preventDefault();
                        if (name.trim())
                          update.mutate({ id: s.id, name: name.trim(), filter: { ...s.filter } });
                      }}
                    >
                      <Input
                        aria-label={`New name for ${s.name}`}
                        value={name}
                        onChange={(e) => setName(e.target.value)}
                        maxLength={100}
                        autoFocus
                      />
                      <Button type="submit" size="sm" disabled={!name.trim() || update.isPending}>
                        Save
                      </Button>
                      <Button type="button" size="sm" variant="ghost" onClick={() => setEditing(null)}>
                        Cancel
                      </Button>
                    </form>
                  ) : (
                    <>
                      <p className="truncate font-medium">{s.name}</p>
                      <p className="text-xs text-muted-foreground">
                        {plural(s.contact_count, "contact")} ·{" "}
                        {describeFilter(fromSegmentFilter(s.filter), tags)}
                      </p>
                    </>
                  )}
                </div>
                {editing !== s.id && (
                  <div className="flex flex-wrap gap-1">
                    <Button
                      size="sm"
                      variant="outline"
                      onClick={() => {
                        onShow(fromSegmentFilter(s.filter));
                        onOpenChange(false);
                      }}
                    >
                      Show
                    </Button>
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={`Rename ${s.name}`}
                      onClick={() => {
                        setEditing(s.id);
                        setName(s.name);
                      }}
                    >
                      Rename
                    </Button>
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={`Use current filter for ${s.name}`}
                      disabled={update.isPending}
                      onClick={() => update.mutate({ id: s.id, name: s.name, filter: current })}
                    >
                      Use current filter
                    </Button>
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={`Delete ${s.name}`}
                      data-delete-segment
                      onClick={() => setDeleting({ segment: s, index })}
                    >
                      Delete
                    </Button>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </DialogContent>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete the segment "${deleting?.segment.name ?? ""}"?`}
        description="Its contacts are kept: only the saved filter is deleted."
        confirmLabel="Delete segment"
        onConfirm={() => deleting && remove.mutate({ id: deleting.segment.id })}
        focusAfterConfirm={
          deleting
            ? sameSlotOr(list, "[data-delete-segment]", deleting.index, () => title.current)
            : undefined
        }
      />
    </Dialog>
  );
}
