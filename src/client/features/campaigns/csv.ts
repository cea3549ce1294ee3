import Papa from "papaparse";
import type { CsvRecipient } from "./audience";

/**
 * Parses a campaign builder CSV (spec section 5): first line is the header, headers matched
 * case-insensitively by containment (name, email, phone or mobile, company or business); rows
 * without the needed value are dropped. Quoted commas are handled (papaparse), unlike the naive split.
 * @throws Error 'Error parsing CSV file' or the missing-column message given by `need`.
 */
export function parseRecipientsCsv(
  text: string,
  need: "email" | "phone",
  missingMessage: string,
): CsvRecipient[] {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), { skipEmptyLines: "greedy" });
  if (parsed.data.length === 0) throw new Error("Error parsing CSV file");
  const [header, ...rows] = parsed.data;
  const h = header.map((x) => x.trim().toLowerCase());
  const find = (...keys: string[]) => h.findIndex((col) => keys.some((k) => col.includes(k)));
  const email = find("email");
  const phone = find("phone", "mobile");
  const company = find("company", "business");
  const first = h.findIndex((c) => c.includes("first") && c.includes("name"));
  const last = h.findIndex((c) => c.includes("last") && c.includes("name"));
  const name = h.findIndex(
    (c) =>
      c.includes("name") &&
      !c.includes("company") &&
      !c.includes("business") &&
      !c.includes("first") &&
      !c.includes("last"),
  );
  if (need === "email" && email < 0) throw new Error(missingMessage);
  if (need === "phone" && phone < 0) throw new Error(missingMessage);
  const cell = (r: string[], i: number) => (i >= 0 ? (r[i] ?? "").trim() : "");
  return rows
    .map((r) => ({
      name: cell(r, name) || [cell(r, first), cell(r, last)].filter(Boolean).join(" "),
      email: cell(r, email),
      phone: cell(r, phone),
      company: cell(r, company),
    }))
    .filter((c) => (need === "email" ? c.email : c.phone));
}

/** Reads a File as text. */
export function readFileText(file: File): Promise<string> {
  return file.text();
}
