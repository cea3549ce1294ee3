import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { FileSpreadsheet, Users } from "lucide-react";
import { useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { EmptyState } from "@/client/components/ui/empty-state";
import { Input } from "@/client/components/ui/input";
import { Label } from "@/client/components/ui/label";
import { Skeleton } from "@/client/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/client/components/ui/table";
import type { Contact } from "@/client/features/crm/api";
import { api } from "@/client/lib/api";
import type { BuilderRecipient } from "./api";
import { parseRecipientsCsv } from "./csv";

export function contactName(c: Pick<Contact, "first_name" | "last_name" | "email">) {
  return [c.first_name, c.last_name].filter(Boolean).join(" ") || c.email || "(no name)";
}

/**
 * Step "Select Contacts" (spec section 2): the user's CRM contacts in a table with select-all and
 * deselect-all (columns Name, Phone, Company), plus an optional CSV upload whose rows become
 * contacts at launch. With no contacts, a link to /contacts is offered.
 */
export function ContactPicker({
  selected,
  onSelected,
  csvRows,
  onCsvRows,
  need,
}: {
  selected: Contact[];
  onSelected: (c: Contact[]) => void;
  csvRows: BuilderRecipient[];
  onCsvRows: (rows: BuilderRecipient[]) => void;
  need: "phone" | "email";
}) {
  const [csvError, setCsvError] = useState<string | null>(null);
  const [fileName, setFileName] = useState("");
  const { data, isLoading } = useQuery({
    queryKey: ["campaigns", "contact-picker"],
    queryFn: () =>
      api
        .get<{ contacts: Contact[]; pagination: { total: number } }>("/api/contacts?page=1&limit=200")
        .catch((e) => {
          console.error(e); // spec section 8: contact load failures are only logged
          return { contacts: [] as Contact[], pagination: { total: 0 } };
        }),
  });
  const contacts = (data?.contacts ?? []).filter((c) => (need === "phone" ? c.phone || c.mobile : c.email));
  const ids = new Set(selected.map((c) => c.id));
  const toggle = (c: Contact) =>
    onSelected(ids.has(c.id) ? selected.filter((s) => s.id !== c.id) : [...selected, c]);

  async function onFile(file: File | undefined) {
    if (!file) return;
    setFileName(file.name);
    try {
      const rows = parseRecipientsCsv(
        await file.text(),
        need,
        need === "phone" ? 'CSV must have a "phone" or "mobile" column' : 'CSV must have an "email" column',
      );
      onCsvRows(rows);
      setCsvError(null);
    } catch (e) {
      onCsvRows([]);
      setCsvError((e as Error).message);
    }
  }

  return (
    <div className="space-y-6">
      <div className="space-y-2">
        <Label htmlFor="campaign-csv">Upload contacts (CSV, optional)</Label>
        <Input
          id="campaign-csv"
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => void onFile(e.target.files?.[0])}
        />
        {fileName && !csvError && (
          <p className="flex items-center gap-2 text-sm text-muted-foreground">
            <FileSpreadsheet className="size-4" aria-hidden /> {fileName}: {csvRows.length} contacts
          </p>
        )}
        {csvError && <AlertBanner variant="error">{csvError}</AlertBanner>}
      </div>
      {isLoading ? (
        <Skeleton className="h-40 w-full" />
      ) : contacts.length === 0 ? (
        <EmptyState
          icon={Users}
          title="No contacts yet"
          description={
            need === "phone"
              ? "Add contacts with a phone number, or upload a CSV above."
              : "Add contacts, or upload a CSV above."
          }
          action={<Link to="/contacts">Go to contacts</Link>}
        />
      ) : (
        <div className="space-y-2">
          <div className="flex items-center justify-between">
            <p className="text-sm text-muted-foreground">
              {selected.length} of {contacts.length} selected
            </p>
            <div className="flex gap-2">
              <Button variant="outline" size="sm" onClick={() => onSelected(contacts)}>
                Select all
              </Button>
              <Button variant="outline" size="sm" onClick={() => onSelected([])}>
                Deselect all
              </Button>
            </div>
          </div>
          <div className="max-h-96 overflow-auto rounded-lg border">
            <Table>
              <TableHeader>
                <TableRow>
                  <TableHead className="w-10">
                    <span className="sr-only">Selected</span>
                  </TableHead>
                  <TableHead>Name</TableHead>
                  <TableHead>{need === "phone" ? "Phone" : "Email"}</TableHead>
                  <TableHead>Company</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {contacts.map((c) => (
                  <TableRow key={c.id} className="cursor-pointer" onClick={() => toggle(c)}>
                    <TableCell>
                      <input
                        type="checkbox"
                        aria-label={`Select ${contactName(c)}`}
                        checked={ids.has(c.id)}
                        onChange={() => toggle(c)}
                        onClick={(e) => e.stopPropagation()}
                      />
                    </TableCell>
                    <TableCell>{contactName(c)}</TableCell>
                    <TableCell>{need === "phone" ? c.phone || c.mobile : c.email}</TableCell>
                    <TableCell>{c.company ?? ""}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        </div>
      )}
    </div>
  );
}
