/**
 * Ids that look like a UUID to a loose check but are not one (36 dashes, 36 letters, the right
 * length with dashes in the wrong places) are unknown ids: 404, never Postgres's "invalid input
 * syntax for type uuid" as a 500. Covers the workspaces routes and procedure that take an id and
 * the contact import lookup (lib/ids `isUuid`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUuid } from "../../src/server/lib/ids";
import { createTestApp, setPlan, signUp, type TestApp, trpcCall } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Pass /^[0-9a-f-]{36}$/i, fail Postgres's uuid input. */
const LOOKALIKES = [
  "-".repeat(36),
  "a".repeat(36),
  "0123456789abcdef0123456789abcdef----",
  "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaa-",
];

describe("malformed UUID ids are 404, not 500", () => {
  it("isUuid accepts the canonical form only", () => {
    expect(isUuid("00000000-0000-0000-0000-000000000000")).toBe(true);
    expect(isUuid("6F9619FF-8B86-D011-B42D-00C04FC964FF")).toBe(true);
    for (const id of LOOKALIKES) expect(isUuid(id), id).toBe(false);
    expect(isUuid("6f9619ff8b86d011b42d00c04fc964ff")).toBe(false);
    expect(isUuid("{6f9619ff-8b86-d011-b42d-00c04fc964ff}")).toBe(false);
  });

  it("workspace switch, members, invites and contact imports", async () => {
    const owner = await signUp(t.app, { name: "Olive Owner" });
    await setPlan(t, owner.user.id, "business");
    for (const id of LOOKALIKES) {
      const calls = [
        await owner.client.post(`/api/workspaces/${id}/switch`),
        await owner.client.inject({
          method: "PATCH",
          url: `/api/workspaces/current/members/${id}`,
          payload: { role: "member" },
        }),
        await owner.client.del(`/api/workspaces/current/members/${id}`),
        await owner.client.post(`/api/workspaces/current/invites/${id}/resend`),
        await owner.client.del(`/api/workspaces/current/invites/${id}`),
        await owner.client.get(`/api/contacts/imports/${id}`),
        await owner.client.get(`/api/contacts/imports/${id}/errors.csv`),
      ];
      for (const res of calls) expect(`${res.statusCode} ${res.body}`, id).toMatch(/^404 /);
      const sw = await trpcCall(owner.client, "workspaces.switch", { workspaceId: id });
      expect(sw.status, JSON.stringify(sw.error)).toBe(404);
      for (const [path, input] of [
        ["workspaces.changeRole", { userId: id, role: "member" }],
        ["workspaces.removeMember", { userId: id }],
        ["workspaces.resendInvite", { inviteId: id }],
        ["workspaces.revokeInvite", { inviteId: id }],
      ] as const) {
        const r = await trpcCall(owner.client, path, input);
        expect(r.status, `${path} ${JSON.stringify(r.error)}`).toBe(404);
      }
    }
  });
});
