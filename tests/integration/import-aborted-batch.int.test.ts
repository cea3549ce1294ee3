import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportEventListener } from "../../src/server/features/crm/crm.contact-events";
import { importRows } from "../../src/server/features/crm/crm.import";
import { NO_WEBHOOK_EMIT } from "../../src/server/features/webhooks/webhooks.service";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// A batch of an import is written in a transaction run by hand (begin ... commit). When a statement in
// it fails and the error is caught by a callee that carries on (a listener that logs webhook problems),
// Postgres has aborted the transaction and answers the COMMIT with ROLLBACK: the batch is gone. The
// import must say so, never report the batch's rows as created.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const contactsOf = async (workspaceId: string) => {
  const [r] = await t.db.execute<{ n: number }>(
    sql`select count(*)::int as n from contacts where workspace_id = ${workspaceId}`,
  );
  return r?.n;
};

describe("an import batch whose transaction an error aborted", () => {
  it("fails the import instead of reporting its rows as created (nothing is written)", async () => {
    const { user } = await signUp(t.app);
    // a listener whose statement fails inside the batch's transaction and that swallows the error
    const swallowing: ImportEventListener = {
      async stored(db) {
        await db.execute(sql`select 1 / 0`).catch(() => {});
        return NO_WEBHOOK_EMIT;
      },
      async committed() {},
    };
    const rows = [
      { first_name: "Ada", email: uniqueEmail("aborted") },
      { first_name: "Bob", email: uniqueEmail("aborted") },
    ];
    await expect(importRows(t.sql, user.id, rows, "skip", null, undefined, swallowing)).rejects.toThrow(
      /rolled back/,
    );
    expect(await contactsOf(user.id)).toBe(0);

    // the same import with a listener that works writes both rows and reports them
    const fine: ImportEventListener = { stored: async () => NO_WEBHOOK_EMIT, committed: async () => {} };
    const ok = await importRows(t.sql, user.id, rows, "skip", null, undefined, fine);
    expect(ok.created).toBe(2);
    expect(await contactsOf(user.id)).toBe(2);
  });
});
