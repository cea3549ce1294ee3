import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import * as schema from "../../src/server/db/schema";
import { workspaceMembers } from "../../src/server/db/schema";
import { validateSessionToken } from "../../src/server/features/auth/auth.service";
import { resolveTenant } from "../../src/server/features/workspaces/workspaces.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

// Issue 10 review: a signed-in request resolves session, user and the active workspace's
// membership in one round trip, and a removed member still loses the workspace at once.

let t: TestApp;
let counted: ReturnType<typeof postgres>;
const queries: string[] = [];
let db: ReturnType<typeof drizzle<typeof schema>>;
beforeAll(async () => {
  t = await createTestApp();
  counted = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });
  db = drizzle(counted, {
    schema,
    casing: "snake_case",
    logger: { logQuery: (q) => void queries.push(q) },
  });
});
afterAll(async () => {
  await counted?.end({ timeout: 5 });
  await t?.close();
});

/** The session's tenant as the auth plugin resolves it, and the statements that took. */
async function tenantOf(cookie: string) {
  const token = cookie.replace(/^pw_session=/, "");
  queries.length = 0;
  const r = await validateSessionToken({ db }, token);
  if (!r) throw new Error("session not found");
  const tenant = await resolveTenant({ db }, r.session, r.user, r.membership);
  return { tenant, statements: queries.length };
}

describe("session -> tenant", () => {
  it("costs one query for a member, and a removed member loses the workspace at once", async () => {
    const u = await signUp(t.app);
    // the first request stores the active workspace on the session
    expect((await u.client.get("/api/auth/me")).statusCode).toBe(200);
    const first = await tenantOf(u.cookie);
    expect(first.tenant.workspaceId).toBe(u.user.id);
    expect(first.tenant.role).toBe("owner");
    expect(first.statements).toBe(1);

    // removed from the active workspace: the same lookup sees no membership and moves on
    await t.db
      .delete(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, u.user.id), eq(workspaceMembers.userId, u.user.id)));
    const after = await tenantOf(u.cookie);
    expect(after.tenant.workspaceId).not.toBe(u.user.id);
    expect((await u.client.get("/api/auth/me")).json().workspace.id).toBe(after.tenant.workspaceId);
  });
});
