import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
  uniqueEmail,
} from "../helpers";

/**
 * Validation errors are one plain sentence (issue 14 section 4): the schema's own message, a field
 * named the way people read it, never a `snake_key:` prefix, the same over REST and tRPC
 * (src/server/lib/validate.ts describeZodError).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** A field-key prefix such as "phone_country: " or "filters.minRating: ". */
const KEY_PREFIX = /^[A-Za-z0-9_.]+: /;

async function restError(client: AuthedClient, method: "POST" | "PATCH", url: string, payload: unknown) {
  const r = await client.inject({ method, url, payload: payload as Record<string, unknown> });
  expect(r.statusCode, r.body).toBe(400);
  return r.json().error as string;
}

async function trpcError(client: AuthedClient, path: string, input: unknown) {
  const r = await trpc(client, path, input);
  expect(r.status, JSON.stringify(r.error)).toBe(400);
  return r.error!.message;
}

describe("validation messages", () => {
  it("phone, email, phone country and radius read as sentences over REST and tRPC", async () => {
    const { client } = await signUp(t.app);
    const cases: [string, string, "POST" | "PATCH", string, unknown][] = [
      [
        "'555-1234' is not a valid phone number. Please include the area code, and +country for numbers abroad (e.g. +1 415 555 0132)",
        "crm.create",
        "POST",
        "/api/contacts",
        { first_name: "Ann", email: "ann@x.example", phone: "555-1234" },
      ],
      [
        "Please enter a valid email address",
        "crm.create",
        "POST",
        "/api/contacts",
        { first_name: "Ann", email: "not-an-email" },
      ],
      ["Email is required", "crm.create", "POST", "/api/contacts", { first_name: "Ann" }],
      [
        "Phone country must be a two-letter country code such as US or GB",
        "workspaces.update",
        "PATCH",
        "/api/workspaces/current",
        { phone_country: "XX" },
      ],
      [
        "Radius must be at most 500 miles",
        "crm.searchLocation",
        "POST",
        "/api/contacts/search/location",
        { latitude: 40.7, longitude: -74, radius_miles: 900 },
      ],
      [
        "Radius must be more than 0 miles",
        "crm.searchLocation",
        "POST",
        "/api/contacts/search/location",
        { latitude: 40.7, longitude: -74, radius_miles: 0 },
      ],
    ];
    for (const [sentence, procedure, method, url, input] of cases) {
      const rest = await restError(client, method, url, input);
      expect(rest, url).toBe(sentence);
      expect(rest).not.toMatch(KEY_PREFIX);
      const viaTrpc = await trpcError(client, procedure, input);
      expect(viaTrpc, procedure).toBe(sentence);
    }
  });

  it("zod's own messages become sentences naming the field; several problems in one sentence", async () => {
    const { client } = await signUp(t.app);
    // a wrong type where the schema gives no message of its own
    const limit = await client.get("/api/contacts?limit=500");
    expect(limit.json().error).toBe("Limit must be at most 200");
    const stage = await restError(client, "PATCH", "/api/workspaces/current", {
      hide_branding: "yes",
      brand_color: "red",
    });
    expect(stage).toBe("Brand colour must look like #1a2b3c; Hide branding must be true or false");
    const notObject = await restError(client, "PATCH", "/api/workspaces/current", [1, 2]);
    expect(notObject).toBe("The request body must be a JSON object");
    for (const m of [limit.json().error, stage, notObject]) expect(m).not.toMatch(KEY_PREFIX);
  });
});

describe("workspaces.update: phone country (Settings > Workspace)", () => {
  it("owner sets a valid country, an invalid one is refused, a member may not change it", async () => {
    const owner = await signUp(t.app, { business_name: "Olive Plumbing" });
    const list = await trpc(owner.client, "workspaces.phoneCountries", undefined, "query");
    expect(list.status).toBe(200);
    expect(list.data.length).toBeGreaterThan(200);
    expect(list.data).toContainEqual({ code: "GB", callingCode: "44" });
    expect(list.data).toContainEqual({ code: "US", callingCode: "1" });
    const set = await trpc(owner.client, "workspaces.update", { phone_country: "gb" });
    expect(set.status, JSON.stringify(set.error)).toBe(200);
    expect(set.data.phone_country).toBe("GB");
    const current = await trpc(owner.client, "workspaces.current", undefined, "query");
    expect(current.data.phone_country).toBe("GB");

    for (const bad of ["XX", "GBR", "", 44]) {
      const r = await trpc(owner.client, "workspaces.update", { phone_country: bad });
      expect(r.status, String(bad)).toBe(400);
      expect(r.error?.message).toBe("Phone country must be a two-letter country code such as US or GB");
    }
    expect((await trpc(owner.client, "workspaces.current", undefined, "query")).data.phone_country).toBe(
      "GB",
    );

    // a national UK number now saves in E.164
    const contact = await trpc(owner.client, "crm.create", {
      first_name: "Ann",
      email: "ann@x.example",
      phone: "020 7946 0018",
    });
    expect(contact.status, JSON.stringify(contact.error)).toBe(200);
    expect(contact.data.phone_e164).toBe("+442079460018");

    // a member of the workspace cannot change it
    await setPlan(t, owner.user.id, "business");
    const email = uniqueEmail("mia");
    const inv = await owner.client.post("/api/workspaces/current/invites", { email, role: "member" });
    expect(inv.statusCode, inv.body).toBe(201);
    const outbox = await t.app.inject({
      method: "GET",
      url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`,
    });
    const token = (outbox.json().messages as { body: string }[])[0]?.body.match(/\/invite\/([a-z2-7]+)/)?.[1];
    expect(token).toBeTruthy();
    const member = await signUp(t.app, { name: "Mia Member", email, business_name: "" });
    expect((await member.client.post(`/api/invites/${token}/accept`)).statusCode).toBe(200);
    const refused = await trpc(member.client, "workspaces.update", { phone_country: "FR" });
    expect(refused.status).toBe(403);
    expect(refused.error?.message).not.toMatch(KEY_PREFIX);
    expect((await trpc(owner.client, "workspaces.current", undefined, "query")).data.phone_country).toBe(
      "GB",
    );
  });
});
