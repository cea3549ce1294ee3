import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp, trpcCall } from "../helpers";
import { searchSaginawDentists } from "../leads-fixtures";

/**
 * "Add to contacts" from the lead search takes only {searchId, placeIds, tagName}: a misnamed tag
 * (`tag_name`, `tag`) is a 400 naming it. It was dropped, and the businesses were added untagged.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

it("an unknown key is refused (REST and tRPC) and nothing is added", async () => {
  const { client } = await signUp(t.app);
  const s = await searchSaginawDentists(client);
  const placeIds = (s.businesses as { place_id: string }[]).slice(0, 2).map((b) => b.place_id);
  const rest = await client.post("/api/maps/results/add-to-contacts", {
    searchId: s.searchId,
    placeIds,
    tag_name: "Dentists",
  });
  expect(rest.statusCode, rest.body).toBe(400);
  expect(rest.json().error).toBe("This field is not accepted here: tag_name");
  const viaTrpc = await trpcCall(client, "leads.addToContacts", {
    searchId: s.searchId,
    placeIds,
    tag: "Dentists",
  });
  expect(viaTrpc.status).toBe(400);
  expect(viaTrpc.error?.message).toContain("tag");
  expect((await client.get("/api/contacts")).json().pagination.total).toBe(0);
  const ok = await client.post("/api/maps/results/add-to-contacts", {
    searchId: s.searchId,
    placeIds,
    tagName: "Dentists",
  });
  expect(ok.json()).toMatchObject({ success: true, created: 2 });
  expect((await client.get("/api/contacts/tags/all")).json().tags).toEqual([
    expect.objectContaining({ name: "Dentists", contact_count: 2 }),
  ]);
});
