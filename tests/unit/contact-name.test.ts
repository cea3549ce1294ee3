import { describe, expect, it } from "vitest";
import { contactName } from "../../src/client/features/crm/api";
import { displayNameOf, namedByCompany, personName } from "../../src/server/features/crm/contact-name";
import { contactDisplayName } from "../../src/server/features/crm/crm.contact-json";

// One display-name rule for a contact (crm/contact-name): "First Last", else the company, else the
// email. The server (contactDisplayName, from a row) and the client (contactName, from the JSON) both
// use it; only what they show for a contact with none of them differs (null / "Unnamed contact").

const CASES: [
  string,
  { first_name?: string | null; last_name?: string | null; company?: string | null; email?: string | null },
  string | null,
  boolean,
][] = [
  [
    "first and last name",
    { first_name: "Ada", last_name: "Lovelace", company: "Acme", email: "ada@x.example" },
    "Ada Lovelace",
    false,
  ],
  ["first name only", { first_name: "Ada", last_name: null, company: "Acme" }, "Ada", false],
  ["last name only", { first_name: "", last_name: "Lovelace" }, "Lovelace", false],
  ["names of blanks fall through", { first_name: " ", last_name: "", company: "Acme" }, "Acme", true],
  [
    "company, trimmed",
    { first_name: null, last_name: null, company: "  Rasmussen Group ", email: "r@x.example" },
    "Rasmussen Group",
    true,
  ],
  ["blank company: the email", { company: "   ", email: "r@x.example" }, "r@x.example", false],
  ["email only", { email: "r@x.example" }, "r@x.example", false],
  ["nothing", { first_name: null, last_name: null, company: null, email: null }, null, false],
  ["empty strings", { first_name: "", last_name: "", company: "", email: "" }, null, false],
];

describe("a contact's display name", () => {
  it.each(CASES)("%s", (_label, fields, expected, byCompany) => {
    expect(displayNameOf(fields)).toBe(expected);
    expect(namedByCompany(fields)).toBe(byCompany);
    // the client says "Unnamed contact" where the rule gives nothing
    expect(contactName(fields)).toBe(expected ?? "Unnamed contact");
    // the server reads the same fields from a row
    expect(
      contactDisplayName({
        firstName: fields.first_name ?? null,
        lastName: fields.last_name ?? null,
        company: fields.company ?? null,
        email: fields.email ?? null,
      }),
    ).toBe(expected);
  });

  it("personName is the person's name alone, trimmed", () => {
    expect(personName({ first_name: "Ada", last_name: "Lovelace", company: "Acme" })).toBe("Ada Lovelace");
    expect(personName({ first_name: "Ada ", last_name: null })).toBe("Ada");
    expect(personName({ company: "Acme", email: "a@x.example" })).toBe("");
  });
});
