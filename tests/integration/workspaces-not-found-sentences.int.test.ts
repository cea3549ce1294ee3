import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signUp, type TestApp } from "../helpers";

// "Member not found" and "Workspace not found" were the workspaces' two refusals without a full stop
// (a 4xx answers with a sentence); they now end with one.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("workspaces' not-found refusals are sentences", () => {
  it("says 'Member not found.' for someone who is no member, and 'Workspace not found.' for a workspace the user is not in", async () => {
    const { client } = await signUp(t.app);
    for (const id of [randomUUID(), "not-a-uuid"]) {
      const member = await client.del(`/api/workspaces/current/members/${id}`);
      expect(member.statusCode, member.body).toBe(404);
      expect(member.json().error).toBe("Member not found.");
      const role = await client.inject({
        method: "PATCH",
        url: `/api/workspaces/current/members/${id}`,
        payload: { role: "admin" },
      });
      expect(role.statusCode, role.body).toBe(404);
      expect(role.json().error).toBe("Member not found.");
      const other = await client.post(`/api/workspaces/${id}/switch`);
      expect(other.statusCode, other.body).toBe(404);
      expect(other.json().error).toBe("Workspace not found.");
    }
  });
});
