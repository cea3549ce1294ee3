import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthedClient,
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

// A QA pass of a small team's week: three people launched campaigns in one workspace and nobody
// could tell whose was whose. The campaigns list and a campaign's report say who launched it
// (`launchedBy`), kept after that person leaves the workspace.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

async function launch(client: AuthedClient, name: string) {
  const res = await client.post("/api/campaigns/email/launch", {
    campaignName: name,
    subject: "Spring offer",
    body: "Hi there",
    contacts: [{ name: "R", email: uniqueEmail("launched-by") }],
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().campaignId as number;
}

/** Who launched each of `ids`, as the campaigns list (tRPC) and each report (tRPC and REST) say. */
async function shownLaunchers(viewer: AuthedClient, ids: number[]) {
  const list = await trpcCall(viewer, "campaigns.list", undefined, "query");
  expect(list.status, JSON.stringify(list.error)).toBe(200);
  const byId = new Map((list.data as { id: number; launchedBy: string | null }[]).map((c) => [c.id, c]));
  const out: Record<number, { list: string | null; report: string | null; rest: string | null }> = {};
  for (const id of ids) {
    const report = await trpcCall(viewer, "campaigns.report", { id }, "query");
    expect(report.status, JSON.stringify(report.error)).toBe(200);
    const rest = await viewer.get(`/api/campaigns/${id}`);
    expect(rest.statusCode, rest.body).toBe(200);
    out[id] = {
      list: byId.get(id)?.launchedBy ?? null,
      report: report.data.campaign.launchedBy,
      rest: rest.json().campaign.launchedBy,
    };
  }
  return out;
}

describe("who launched a campaign", () => {
  it("the list and the report name each campaign's launcher, by session and by API key, and keep a departed member's name", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const cara = await joinWorkspace(t, owner.client, "member", { name: "Cara Member" });
    const anas = await launch(owner.client, "Ana's newsletter");
    const caras = await launch(cara.client, "Cara's follow-up");
    // through the public API: the key's creator launched it
    const key = await owner.client.post("/api/api-keys", { name: "Zapier", scopes: ["campaigns:write"] });
    expect(key.statusCode, key.body).toBe(200);
    const api = await t.app.inject({
      method: "POST",
      url: "/api/v1/campaigns",
      headers: { authorization: `Bearer ${key.json().key}` },
      payload: {
        name: "From Zapier",
        channel: "email",
        content: { subject: "S", body: "B" },
        audience: { contacts: [{ email: uniqueEmail("launched-by-api") }] },
      },
    });
    expect(api.statusCode, api.body).toBe(201);
    const apis = api.json().campaign.id as number;

    const ana = { list: "Ana Owner", report: "Ana Owner", rest: "Ana Owner" };
    const caraShown = { list: "Cara Member", report: "Cara Member", rest: "Cara Member" };
    expect(await shownLaunchers(owner.client, [anas, caras, apis])).toEqual({
      [anas]: ana,
      [caras]: caraShown,
      [apis]: ana,
    });
    // Cara sees the same in her own session
    expect((await shownLaunchers(cara.client, [caras]))[caras]).toEqual(caraShown);

    // Cara leaves the team: her campaign stays hers
    const removed = await owner.client.del(`/api/workspaces/current/members/${cara.user.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await shownLaunchers(owner.client, [caras]))[caras]).toEqual(caraShown);

    // another workspace cannot read it
    const other = await signUp(t.app);
    const peek = await other.client.get(`/api/campaigns/${anas}`);
    expect(peek.statusCode).toBe(404);
  });
});
