import { useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { TRPCClientError } from "@trpc/client";
import { CheckCircle2, CircleAlert, Download, FileUp, Upload } from "lucide-react";
import Papa from "papaparse";
import { useEffect, useRef, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/client/components/ui/dialog";
import { Label } from "@/client/components/ui/label";
import { Progress } from "@/client/components/ui/progress";
import { PlanWayOut, useUsage } from "@/client/features/billing/usage";
import {
  reportRestWorkspaceChanged,
  shownWorkspaceHeaders,
  withShownWorkspace,
} from "@/client/features/workspaces/shown-workspace";
import { errorMessage, NETWORK_ERROR_MESSAGE } from "@/client/lib/errors";
import { formatNumber, plural } from "@/client/lib/format";
import { useTRPCClient } from "@/client/trpc";
import {
  type ColumnMapping,
  IMPORT_FIELD_LABELS,
  IMPORT_FIELDS,
  type ImportField,
  matchHeaders,
} from "@/server/features/crm/crm.headers";
import { type ImportProgress, invalidateCrm } from "./api";

/** "1 contact kept without a valid phone number (they won't get SMS or calls)" (issue 14). */
export function keptTitle(n: number): string {
  return `${plural(n, "contact")} kept without a valid phone number (they won't get SMS or calls)`;
}

/** "2 contacts imported with a field left empty" (a website or time zone the contact rules refuse). */
export function clearedTitle(n: number): string {
  return `${plural(n, "contact")} imported with a field left empty`;
}

/**
 * "3 people in this file opted out earlier: their opt-in stays off. Only they can opt back in."
 * (server `opt_outs_kept`: rows whose person unsubscribed, replied STOP or pressed 9; the file's "yes"
 * did not turn their opt-in back on).
 */
export function optedOutSentence(n: number): string {
  return n === 1
    ? "1 person in this file opted out earlier: their opt-in stays off. Only they can opt back in."
    : `${formatNumber(n)} people in this file opted out earlier: their opt-in stays off. Only they can opt back in.`;
}

/** "Some characters of 2 fields could not be read" (bytes the file's encoding could not read). */
export function unreadableTitle(n: number): string {
  return `Some characters of ${plural(n, "field")} could not be read`;
}

type ErrorRow = { kept: boolean; field?: string; kind?: string };

/** A field whose values hold bytes the file's encoding could not read (`kind` 'encoding'; older reports: field 'encoding'). */
const isEncodingRow = (e: ErrorRow) => e.kept && (e.kind === "encoding" || e.field === "encoding");

/** Phone problems of kept rows: `field` phone or mobile, or none (reports stored before `field`). */
/** A kept row whose person opted out earlier (server kind 'opted_out'): its opt-ins stayed off. */
const isOptedOutRow = (e: ErrorRow) => e.kept && e.kind === "opted_out";
const isPhoneRow = (e: ErrorRow) =>
  e.kept &&
  !isEncodingRow(e) &&
  !isOptedOutRow(e) &&
  (e.field === undefined || e.field === "phone" || e.field === "mobile");

const MAX_BYTES = 100 * 1024 * 1024;
const NONE = "__none__";

type Step = "choose" | "map" | "importing" | "done";

/** Reads the first 64 KB to pick the text encoding (BOM, UTF-16 without BOM, UTF-8, else Windows-1252). */
async function sniffEncoding(file: File): Promise<string> {
  const head = new Uint8Array(await file.slice(0, 65536).arrayBuffer());
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return "utf-8";
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  let odd = 0;
  let even = 0;
  for (let i = 0; i < Math.min(head.length, 4096); i++) if (head[i] === 0) i % 2 ? odd++ : even++;
  if (odd > 8 && even === 0) return "utf-16le";
  if (even > 8 && odd === 0) return "utf-16be";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
    return "utf-8";
  } catch {
    return "windows-1252";
  }
}

/**
 * Import Contacts (CSV) modal (spec: Contacts list modals; section 4 import states idle, importing,
 * result). Steps: choose a .csv file, map columns (pre-filled by the header rules) with a preview of
 * the first rows and a duplicate policy, then upload (progress) and follow the import job (progress)
 * to the result: 'Imported: N' (with updated rows: 'New contacts: N' and 'Updated (already in your
 * contacts): N', the server's `created` and `updated`), 'Errors: N' with the rejected rows
 * downloadable as CSV, and apart from
 * them the rows kept with an invalid phone number (server `phone_invalid`, `error_rows[].kept`: imported,
 * but unreachable by SMS and calls) with their line numbers, and the rows imported with a field left
 * empty (server `fields_cleared`: a website or time zone the contact rules refuse) with the field, and
 * the fields whose values hold bytes the file's encoding could not read (`error_rows[].kind`
 * 'encoding': the field's label and its lines), and the people who opted out earlier, whose opt-ins
 * the file did not turn back on (`opt_outs_kept`, `kind` 'opted_out': optedOutSentence and the lines). On success with none of these, the modal closes
 * after 2 seconds; the list refreshes either way.
 */
export function ImportDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const qc = useQueryClient();
  const client = useTRPCClient();
  const [step, setStep] = useState<Step>("choose");
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [headers, setHeaders] = useState<string[]>([]);
  const [preview, setPreview] = useState<string[][]>([]);
  const [mapping, setMapping] = useState<ColumnMapping>({});
  const [onDuplicate, setOnDuplicate] = useState<"skip" | "update">("skip");
  const [uploadPct, setUploadPct] = useState(0);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const closeTimer = useRef<number | null>(null);
  /** Column `col`'s first non-empty values in the preview rows ("Ada · Ben · Cy"). */
  const firstValues = (col: number) =>
    preview
      .map((r) => r[col])
      .filter(Boolean)
      .slice(0, 3)
      .join(" · ");

  function reset() {
    setStep("choose");
    setFile(null);
    setError(null);
    setHeaders([]);
    setPreview([]);
    setMapping({});
    setUploadPct(0);
    setProgress(null);
  }

  useEffect(() => {
    if (!open) {
      if (closeTimer.current) window.clearTimeout(closeTimer.current);
      reset();
    }
  }, [open]);

  async function onFile(f: File | undefined) {
    setError(null);
    if (!f) return;
    if (!/\.csv$/i.test(f.name)) return setError("Only .csv files can be imported");
    if (f.size === 0) return setError("The file is empty");
    if (f.size > MAX_BYTES) return setError("File too large. Maximum size is 100MB.");
    const encoding = await sniffEncoding(f);
    Papa.parse<string[]>(f, {
      preview: 6,
      skipEmptyLines: "greedy",
      encoding,
      complete: (res) => {
        const [head, ...rows] = res.data;
        if (!head || head.every((h) => !String(h).trim())) return setError("The file has no header row");
        setFile(f);
        setHeaders(head.map((h) => String(h).replace(/^\uFEFF/, "")));
        setPreview(rows);
        setMapping(matchHeaders(head));
        setStep("map");
      },
      error: () => setError("Error parsing CSV file"),
    });
  }

  const fieldOfColumn = (col: number): string =>
    (Object.entries(mapping).find(([, i]) => i === col)?.[0] as ImportField | undefined) ?? NONE;

  function setColumnField(col: number, field: string) {
    setMapping((m) => {
      const next: ColumnMapping = {};
      for (const [f, i] of Object.entries(m) as [ImportField, number][])
        if (i !== col && f !== field) next[f] = i;
      if (field !== NONE) next[field as ImportField] = col;
      return next;
    });
  }

  async function poll(id: string) {
    for (;;) {
      const imp = await client.crm.importStatus.query({ importId: id });
      setProgress(imp);
      if (imp.status === "completed" || imp.status === "failed") return imp;
      await new Promise((r) => setTimeout(r, 400));
    }
  }

  async function startImport() {
    if (!file) return;
    if (mapping.email === undefined) return setError("Map a column to Email: every contact needs an email.");
    setError(null);
    setStep("importing");
    const form = new FormData();
    form.append("mapping", JSON.stringify(mapping));
    form.append("on_duplicate", onDuplicate);
    form.append("file", file);
    try {
      const started = await new Promise<ImportProgress>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open("POST", "/api/contacts/import/upload");
        xhr.withCredentials = true;
        // the workspace this tab shows: refused (409) when the account now works in another
        for (const [k, v] of Object.entries(shownWorkspaceHeaders())) xhr.setRequestHeader(k, v);
        xhr.upload.onprogress = (e) =>
          e.lengthComputable && setUploadPct(Math.round((e.loaded / e.total) * 100));
        xhr.onload = () => {
          let body: { success?: boolean; error?: string; import?: ImportProgress } = {};
          try {
            body = JSON.parse(xhr.responseText);
          } catch {}
          if (xhr.status >= 200 && xhr.status < 300 && body.import) resolve(body.import);
          else {
            // a tab showing another workspace: the app-wide dialog says so (workspace-changed-dialog)
            reportRestWorkspaceChanged(body);
            reject(new Error(body.error ?? `Upload failed (${xhr.status})`));
          }
        };
        xhr.onerror = () => reject(new Error(NETWORK_ERROR_MESSAGE));
        xhr.send(form);
      });
      setUploadPct(100);
      setProgress(started);
      const done = await poll(started.id);
      setStep("done");
      await invalidateCrm(qc);
      // a clean import closes by itself; one with rejected rows, unreachable phones, fields left empty
      // or unreadable characters stays to be read
      if (
        done.status === "completed" &&
        done.errors === 0 &&
        done.phone_invalid === 0 &&
        done.fields_cleared === 0 &&
        done.opt_outs_kept === 0 &&
        !done.error_rows.some(isEncodingRow)
      ) {
        closeTimer.current = window.setTimeout(() => onOpenChange(false), 2000);
      }
    } catch (e) {
      const reason =
        e instanceof TRPCClientError
          ? errorMessage(e, "Unknown error")
          : (e as Error | undefined)?.message || "Unknown error";
      setError(`Import failed: ${reason}`);
      setStep("map");
    }
  }

  const jobPct = progress ? Math.round(progress.progress * 100) : 0;
  // the report lists rejected rows and kept rows (an invalid phone, a field left empty) together
  const kept = progress?.error_rows.filter(isPhoneRow) ?? [];
  const cleared =
    progress?.error_rows.filter((e) => e.kept && !isPhoneRow(e) && !isEncodingRow(e) && !isOptedOutRow(e)) ??
    [];
  const optedOut = progress?.error_rows.filter(isOptedOutRow) ?? [];
  const unreadable = progress?.error_rows.filter(isEncodingRow) ?? [];
  const toFix = (progress?.phone_invalid ?? 0) + (progress?.fields_cleared ?? 0);
  const rejectedRows = progress?.error_rows.filter((e) => !e.kept) ?? [];
  const rejected = groupByReason(rejectedRows);
  // the report carries the first 100 rejected rows: with more, the list says it shows a part
  const allListed = rejectedRows.length >= (progress?.errors ?? 0);

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="max-w-3xl">
        <DialogHeader>
          <DialogTitle>Import Contacts (CSV)</DialogTitle>
          <DialogDescription>
            The first line must be the header. Rows without an email are skipped and reported.
          </DialogDescription>
        </DialogHeader>

        {error && <AlertBanner variant="error">{error}</AlertBanner>}
        {(step === "choose" || step === "map" || (step === "done" && (progress?.errors ?? 0) > 0)) && (
          <ContactLimitNotice />
        )}

        {step === "choose" && (
          <div className="grid gap-3">
            <button
              type="button"
              onClick={() => inputRef.current?.click()}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                void onFile(e.dataTransfer.files[0]);
              }}
              className="flex flex-col items-center gap-2 rounded-xl border-2 border-dashed border-border px-6 py-10 text-center transition hover:bg-accent/40 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
            >
              <FileUp className="size-8 text-muted-foreground" aria-hidden />
              <span className="font-medium">Choose a CSV file or drop it here</span>
              <span className="text-xs text-muted-foreground">
                Comma, semicolon or tab separated; UTF-8, UTF-16 or Latin-1; up to 100MB
              </span>
            </button>
            <input
              ref={inputRef}
              type="file"
              accept=".csv,text/csv"
              className="sr-only"
              aria-label="CSV file"
              data-testid="import-file-input"
              onChange={(e) => void onFile(e.target.files?.[0])}
            />
          </div>
        )}

        {step === "map" && file && (
          <div className="grid gap-4">
            <p className="text-sm text-muted-foreground">
              <span className="font-medium text-foreground">{file.name}</span> (
              {(file.size / 1024).toFixed(1)} KB). Match each column to a contact field:
            </p>
            <div className="max-h-80 overflow-auto rounded-lg border border-border">
              <table className="w-full text-sm">
                <thead className="bg-muted/50 text-left">
                  <tr>
                    <th className="p-2 font-medium">Column</th>
                    <th className="p-2 font-medium">Imports as</th>
                    <th className="hidden p-2 font-medium sm:table-cell">First rows</th>
                  </tr>
                </thead>
                <tbody>
                  {headers.map((h, col) => (
                    <tr key={`${col}-${h}`} className="border-t border-border">
                      <td className="max-w-32 p-2 font-medium break-words sm:max-w-none">
                        {h || `Column ${col + 1}`}
                        {/* on a phone the first rows go under the column's name, leaving the select room */}
                        <span className="block truncate text-xs font-normal text-muted-foreground sm:hidden">
                          {firstValues(col)}
                        </span>
                      </td>
                      <td className="p-2">
                        <select
                          aria-label={`Field for column ${h || col + 1}`}
                          className="h-9 w-full min-w-36 rounded-md border border-input bg-card px-2 text-sm"
                          value={fieldOfColumn(col)}
                          onChange={(e) => setColumnField(col, e.target.value)}
                        >
                          <option value={NONE}>Don't import</option>
                          {IMPORT_FIELDS.map((f) => (
                            <option key={f} value={f}>
                              {IMPORT_FIELD_LABELS[f]}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td className="hidden max-w-64 truncate p-2 text-muted-foreground sm:table-cell">
                        {firstValues(col)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {/* each choice is a row at least 32 px tall: a phone's finger gets the whole row, and the two
                13 px radios sit far enough apart for WCAG 2.5.8 (they were 20 px apart) */}
            <fieldset className="grid gap-1">
              <legend className="mb-1 text-sm font-medium">Contacts that already exist (same email)</legend>
              <Label className="min-h-8 font-normal">
                <input
                  type="radio"
                  name="dup"
                  checked={onDuplicate === "skip"}
                  onChange={() => setOnDuplicate("skip")}
                />{" "}
                Skip them
              </Label>
              <Label className="min-h-8 font-normal">
                <input
                  type="radio"
                  name="dup"
                  checked={onDuplicate === "update"}
                  onChange={() => setOnDuplicate("update")}
                />{" "}
                Update them with the file's values
              </Label>
            </fieldset>
          </div>
        )}

        {step === "importing" && (
          <div className="grid gap-4" aria-live="polite">
            <div className="grid gap-1.5">
              <div className="flex justify-between text-sm">
                <span>Uploading</span>
                <span>{uploadPct}%</span>
              </div>
              <Progress value={uploadPct} aria-label="Upload progress" />
            </div>
            <div className="grid gap-1.5">
              <div className="flex justify-between text-sm">
                <span>Importing{progress ? ` (${plural(progress.rows_processed, "row")} read)` : ""}</span>
                <span>{jobPct}%</span>
              </div>
              <Progress value={jobPct} aria-label="Import progress" />
            </div>
          </div>
        )}

        {step === "done" && progress && (
          <div className="grid gap-3" aria-live="polite">
            {progress.status === "failed" ? (
              <AlertBanner variant="error">Import failed: {progress.failure_reason}</AlertBanner>
            ) : (
              <div className="flex items-start gap-3 rounded-lg border border-border p-4">
                {progress.imported > 0 || progress.errors === 0 ? (
                  <CheckCircle2 className="mt-0.5 size-5 text-success" aria-hidden />
                ) : (
                  <CircleAlert className="mt-0.5 size-5 text-destructive" aria-hidden />
                )}
                <div className="grid gap-1 text-sm">
                  {/* new contacts and updated ones apart (the server counts both as imported):
                      a re-import with "Update them" said "Imported: 7" for 7 contacts it only updated */}
                  <p className="font-medium" data-testid="import-imported">
                    {progress.updated > 0 ? "New contacts" : "Imported"}: {formatNumber(progress.created)}
                  </p>
                  {progress.updated > 0 && (
                    <p className="font-medium" data-testid="import-updated">
                      Updated (already in your contacts): {formatNumber(progress.updated)}
                    </p>
                  )}
                  {/* with "Update them", a skipped row matched a contact it would not change (the same
                      values, or only values refused: an opt-in kept off, a field left empty) */}
                  {progress.skipped > 0 && (
                    <p data-testid="import-skipped">
                      {onDuplicate === "update"
                        ? "Left as they were (already in your contacts)"
                        : "Skipped (already in your contacts)"}
                      : {formatNumber(progress.skipped)}
                    </p>
                  )}
                  {progress.errors > 0 && (
                    <p data-testid="import-errors">Errors: {formatNumber(progress.errors)}</p>
                  )}
                </div>
              </div>
            )}
            {progress.phone_invalid > 0 && (
              <AlertBanner variant="warning" title={keptTitle(progress.phone_invalid)}>
                <span data-testid="import-phone-invalid">
                  {kept.length > 0 && (
                    <>
                      {kept.length === 1 ? "Line " : "Lines "}
                      {kept
                        .slice(0, 50)
                        .map((e) => e.line)
                        .join(", ")}
                      {progress.phone_invalid > Math.min(kept.length, 50) ? " and more" : ""}.{" "}
                    </>
                  )}
                  Fix the number on the contact to reach them by text or phone.
                </span>
              </AlertBanner>
            )}
            {progress.opt_outs_kept > 0 && (
              <AlertBanner variant="info" title={optedOutSentence(progress.opt_outs_kept)}>
                <ul data-testid="import-opted-out" className="grid gap-0.5 break-words">
                  {optedOut.slice(0, 20).map((e) => (
                    <li key={`${e.line}-${e.field}`}>
                      Line {e.line}: {e.reason}
                    </li>
                  ))}
                </ul>
                {progress.opt_outs_kept > 20 && <span>and more. </span>}
                <Link to="/contacts/opt-outs" className="underline">
                  See everyone who opted out
                </Link>
              </AlertBanner>
            )}
            {progress.fields_cleared > 0 && (
              <AlertBanner variant="warning" title={clearedTitle(progress.fields_cleared)}>
                <ul data-testid="import-fields-cleared" className="grid gap-0.5 break-words">
                  {cleared.slice(0, 20).map((e) => (
                    <li key={`${e.line}-${e.field}`}>
                      Line {e.line}: {e.reason}
                    </li>
                  ))}
                </ul>
                {progress.fields_cleared > 20 && <span>and more; the download lists them all. </span>}
                Fix the field on the contact, or correct the file and import it again with "update".
              </AlertBanner>
            )}
            {unreadable.length > 0 && (
              <AlertBanner variant="warning" title={unreadableTitle(unreadable.length)}>
                <ul data-testid="import-encoding" className="grid gap-0.5 break-words">
                  {unreadable.map((e) => (
                    <li key={`${e.field}-${e.line}`}>{e.reason}</li>
                  ))}
                </ul>
              </AlertBanner>
            )}
            {progress.errors > 0 && (
              <>
                <p className="text-sm font-medium">
                  {plural(progress.errors, "row")} rejected (not imported):
                </p>
                <ul
                  className="max-h-40 overflow-auto rounded-lg border border-border p-3 text-xs"
                  data-testid="import-rejected-rows"
                >
                  {rejected.slice(0, 20).map((g) => (
                    <li key={g.reason}>
                      {linesLabel(g.lines)}: {g.reason}
                    </li>
                  ))}
                </ul>
                {!allListed && (
                  <p className="text-xs text-muted-foreground">
                    These are the first {formatNumber(rejectedRows.length)} of {formatNumber(progress.errors)}{" "}
                    rejected rows; the download lists them all.
                  </p>
                )}
              </>
            )}
            {(progress.errors > 0 || toFix > 0 || unreadable.length > 0) && (
              <Button variant="outline" asChild>
                <a href={withShownWorkspace(`/api/contacts/imports/${progress.id}/errors.csv`)} download>
                  <Download aria-hidden />{" "}
                  {progress.errors > 0 && toFix > 0
                    ? progress.fields_cleared > 0
                      ? "Download rejected rows and fields to fix (CSV)"
                      : "Download rejected rows and numbers to fix (CSV)"
                    : progress.errors > 0
                      ? "Download rejected rows (CSV)"
                      : progress.fields_cleared > 0
                        ? "Download rows with fields to fix (CSV)"
                        : progress.phone_invalid > 0
                          ? "Download rows with numbers to fix (CSV)"
                          : "Download the fields to check (CSV)"}
                </a>
              </Button>
            )}
          </div>
        )}

        <DialogFooter>
          {step === "map" && (
            <>
              <Button variant="outline" onClick={reset}>
                Choose another file
              </Button>
              <Button onClick={() => void startImport()}>
                <Upload aria-hidden /> Import
              </Button>
            </>
          )}
          {step === "done" && <Button onClick={() => onOpenChange(false)}>Close</Button>}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/**
 * Rejected rows grouped by their sentence, in the order each first appears: a plan's contact limit
 * refusing 100 rows is one line ("Lines 2, 3, 4 and 97 more: ..."), not the sentence 100 times.
 */
function groupByReason(rows: { line: number; reason: string }[]): { reason: string; lines: number[] }[] {
  const groups = new Map<string, number[]>();
  for (const r of rows) {
    const lines = groups.get(r.reason);
    if (lines) lines.push(r.line);
    else groups.set(r.reason, [r.line]);
  }
  return [...groups].map(([reason, lines]) => ({ reason, lines }));
}

/** "Line 4", "Lines 4 and 9", "Lines 2, 3, 4 and 97 more" (of the rows the report lists). */
function linesLabel(lines: number[]): string {
  if (lines.length === 1) return `Line ${lines[0]}`;
  if (lines.length <= 3) return `Lines ${lines.slice(0, -1).join(", ")} and ${lines.at(-1)}`;
  return `Lines ${lines.slice(0, 3).join(", ")} and ${formatNumber(lines.length - 3)} more`;
}

/**
 * Says, before and after an import, that the workspace has every contact its plan includes (the
 * server's `billing.usage` contacts alert at 'limit'), so new rows will be refused: an import can only
 * update contacts it already has. The owner gets the way to more (/pricing). Nothing otherwise.
 */
function ContactLimitNotice() {
  const { data } = useUsage();
  const full = data?.alerts.find((a) => a.meter === "contacts" && a.level === "limit");
  if (!data || !full) return null;
  return (
    <AlertBanner
      variant="warning"
      title={`All ${formatNumber(full.limit)} contacts of the ${data.plan_name} plan are used`}
    >
      An import can update the contacts you have, but new rows will not be added. <PlanWayOut data={data} />
    </AlertBanner>
  );
}
