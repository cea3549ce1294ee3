import { describe, expect, it } from "vitest";
import { matchHeaders } from "../../src/server/features/crm/crm.headers";

/** Which header each field was given, by name (matchHeaders answers column indexes). */
function mapped(headers: string[]) {
  const m = matchHeaders(headers) as Record<string, number | undefined>;
  return Object.fromEntries(Object.entries(m).map(([field, i]) => [field, headers[i as number]]));
}

describe("import column mapping (crm.headers matchHeaders)", () => {
  it("Google Contacts' address parts go to their own fields: 'Address 1 - City' is not the street", () => {
    // a Google export without the street column: the city went to Street address and never geocoded
    const m = mapped([
      "First Name",
      "Last Name",
      "E-mail 1 - Value",
      "Address 1 - City",
      "Address 1 - Region",
    ]);
    expect(m).toMatchObject({ city: "Address 1 - City", state: "Address 1 - Region" });
    expect(m.street_address).toBeUndefined();
    const full = mapped([
      "Address 1 - Type",
      "Address 1 - Formatted",
      "Address 1 - Street",
      "Address 1 - City",
      "Address 1 - PO Box",
      "Address 1 - Region",
      "Address 1 - Postal Code",
      "Address 1 - Country",
    ]);
    expect(full).toMatchObject({
      street_address: "Address 1 - Street",
      city: "Address 1 - City",
      state: "Address 1 - Region",
      postal_code: "Address 1 - Postal Code",
      country: "Address 1 - Country",
    });
  });

  it("a plain 'Address' or 'Street Address' column is still the street", () => {
    expect(mapped(["Name", "Address", "City"])).toMatchObject({ street_address: "Address", city: "City" });
    expect(mapped(["Street Address", "Email Address"])).toMatchObject({
      street_address: "Street Address",
      email: "Email Address",
    });
  });
});
