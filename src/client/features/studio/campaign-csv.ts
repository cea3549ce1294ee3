import Papa from "papaparse";

/** A contact row from the builder's CSV (spec section 3: Campaign contact). */
export interface CampaignContact {
  name: string;
  email: string;
  phone: string;
  company: string;
}

/**
 * Parses a video campaign CSV (spec section 5): the first line is the header; headers are matched
 * case-insensitively by containment: name, email, phone or mobile, company or business. Email
 * delivery needs an email column, SMS a phone or mobile column; rows without the needed value are
 * dropped. Quoted fields are handled by papaparse (the spec's naive split breaks on quoted commas).
 * @throws Error with the spec's message.
 */
export function parseCampaignCsv(text: string, delivery: "email" | "sms"): CampaignContact[] {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), { skipEmptyLines: "greedy" });
  if (
    parsed.errors.some((e) => e.type === "Delimiter" && parsed.data.length === 0) ||
    parsed.data.length === 0
  )
    throw new Error("Error parsing CSV file");
  const [header, ...rows] = parsed.data;
  const h = header.map((x) => x.trim().toLowerCase());
  const find = (...keys: string[]) => h.findIndex((col) => keys.some((k) => col.includes(k)));
  const email = find("email");
  const phone = find("phone", "mobile");
  const company = find("company", "business");
  const name = h.findIndex(
    (col) => col.includes("name") && !col.includes("company") && !col.includes("business"),
  );
  if (delivery === "email" && email < 0)
    throw new Error('CSV must have an "email" column for email delivery');
  if (delivery === "sms" && phone < 0)
    throw new Error('CSV must have a "phone" or "mobile" column for SMS delivery');
  const cell = (r: string[], i: number) => (i >= 0 ? (r[i] ?? "").trim() : "");
  return rows
    .map((r) => ({
      name: cell(r, name),
      email: cell(r, email),
      phone: cell(r, phone),
      company: cell(r, company),
    }))
    .filter((c) => (delivery === "email" ? c.email : c.phone));
}
