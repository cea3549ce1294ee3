import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, joinWorkspace, setPlan, signUp, type TestApp, trpcCall } from "../helpers";

// Found by a QA pass of a small team's week: once an admin was removed, Settings > API keys listed
// his revoked key as "creator: Former member", so the owner auditing it could not tell whose key it
// had been. The list now gives former_creator_name (the departed creator's name; null while they are
// a member, whose name stays in creator_name), shown as "Ben Admin (former member)".

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

type Listed = { name: string; creator_name: string | null; former_creator_name: string | null };

describe("API keys name a former member who created them", () => {
  it("a removed admin's key names him as a former member, over REST and tRPC; a member's key names them as before", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    for (const [client, name] of [
      [ben.client, "Ben zapier"],
      [owner.client, "Ana sheets"],
    ] as const) {
      const res = await client.post("/api/api-keys", { name, scopes: ["contacts:read"] });
      expect(res.statusCode, res.body).toBe(200);
    }
    const before = (await owner.client.get("/api/api-keys")).json().apiKeys as Listed[];
    expect(before.find((k) => k.name === "Ben zapier")).toMatchObject({
      creator_name: "Ben Admin",
      former_creator_name: null,
    });
    const removed = await owner.client.del(`/api/workspaces/current/members/${ben.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);

    const rest = (await owner.client.get("/api/api-keys")).json().apiKeys as Listed[];
    expect(rest.find((k) => k.name === "Ben zapier")).toMatchObject({
      creator_name: null,
      former_creator_name: "Ben Admin",
    });
    expect(rest.find((k) => k.name === "Ana sheets")).toMatchObject({
      creator_name: "Ana Owner",
      former_creator_name: null,
    });
    const trpc = await trpcCall(owner.client, "apiKeys.list", undefined, "query");
    expect(trpc.status, JSON.stringify(trpc.error)).toBe(200);
    expect((trpc.data as Listed[]).find((k) => k.name === "Ben zapier")).toMatchObject({
      former_creator_name: "Ben Admin",
    });
  });
});
