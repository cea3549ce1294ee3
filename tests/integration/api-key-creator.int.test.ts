import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthedClient, createTestApp, joinWorkspace, setPlan, signUp, type TestApp } from "../helpers";

// Issue 15: an API key acts with its creator's authority (keys are made by owners and admins), so
// it stops working once its creator leaves the workspace, is removed or is demoted to member.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function createKey(client: AuthedClient) {
  const res = await client.post("/api/api-keys", { name: "zapier", scopes: ["contacts:read"] });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().key as string;
}

const contactsWith = (key: string) =>
  t.app.inject({ method: "GET", url: "/api/v1/contacts", headers: { authorization: `Bearer ${key}` } });

describe("an API key and its creator's membership", () => {
  it("works while its creator is an owner or admin; a demotion or removal stops it at once with a sentence", async () => {
    const owner = await signUp(t.app, { business_name: "Keyed Plumbing" });
    await setPlan(t, owner.user.id, "business");
    const admin = await joinWorkspace(t, owner.client, "admin", { business_name: "" });

    const adminKey = await createKey(admin.client);
    const ownerKey = await createKey(owner.client);
    expect((await contactsWith(adminKey)).statusCode).toBe(200);

    const setRole = (role: string) =>
      owner.client.inject({
        method: "PATCH",
        url: `/api/workspaces/current/members/${admin.user.id}`,
        payload: { role },
      });
    expect((await setRole("member")).statusCode).toBe(200);
    const demoted = await contactsWith(adminKey);
    expect(demoted.statusCode).toBe(401);
    expect(demoted.json().error).toMatchObject({
      type: "authentication_error",
      message: expect.stringMatching(/no longer an owner or admin of this workspace/),
    });
    // the owner's key is untouched
    expect((await contactsWith(ownerKey)).statusCode).toBe(200);
    // Settings > API keys shows which keys stopped working this way
    const listed = async () =>
      Object.fromEntries(
        (
          (await owner.client.get("/api/api-keys")).json().apiKeys as {
            prefix: string;
            creator_active: boolean;
          }[]
        ).map((k) => [k.prefix, k.creator_active]),
      );
    expect(await listed()).toEqual({ [adminKey.slice(0, 12)]: false, [ownerKey.slice(0, 12)]: true });

    // admin again: the key acts again (it was never revoked, only its creator's rights lapsed)
    expect((await setRole("admin")).statusCode).toBe(200);
    expect((await contactsWith(adminKey)).statusCode).toBe(200);
    expect(await listed()).toEqual({ [adminKey.slice(0, 12)]: true, [ownerKey.slice(0, 12)]: true });

    // removed from the workspace: refused
    expect((await owner.client.del(`/api/workspaces/current/members/${admin.user.id}`)).statusCode).toBe(200);
    expect((await contactsWith(adminKey)).statusCode).toBe(401);
    expect((await contactsWith(ownerKey)).statusCode).toBe(200);
  });
});
