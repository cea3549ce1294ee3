import { and, desc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts } from "../../src/server/db/schema";
import { listContactsPage } from "../../src/server/features/crm/crm.service";
import { createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("the contact list's page statement (crm.queries selectContactsPage)", () => {
  it("decodes rows exactly as drizzle's own select does: every column, nulls, numbers, booleans, jsonb, times; pages by keyset without gaps", async () => {
    const { user } = await signUp(t.app);
    const ws = user.id;
    const created = await t.db
      .insert(contacts)
      .values([
        { workspaceId: ws, firstName: "Maria", lastName: "Lopez", email: "maria@example.com" },
        {
          workspaceId: ws,
          firstName: "Sam",
          email: "sam@example.com",
          phone: "+14155550132",
          company: "Sam's Plumbing",
          lifecycleStage: "customer",
          leadStatus: "qualified",
          leadScore: 87,
          smsOptIn: true,
          latitude: 43.59,
          longitude: -83.89,
          geocodedAt: new Date("2026-03-01T10:20:30.123Z"),
          customFields: { plan: "gold", note: "ünïcödé ✓" },
        },
        { workspaceId: ws, firstName: null, lastName: null, email: null, phone: "+442079460018" },
      ])
      .returning();
    expect(created).toHaveLength(3);
    const ids = created.map((c) => c.id);
    const expected = await t.db
      .select()
      .from(contacts)
      .where(and(eq(contacts.workspaceId, ws), inArray(contacts.id, ids)))
      .orderBy(desc(contacts.createdAt), desc(contacts.id));

    // one page of all three, then pages of one by the cursor
    const all = await listContactsPage(t.ctx, ws, {}, 10);
    expect(all.contacts).toEqual(expected);
    expect(all.nextCursor).toBeNull();
    const seen = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await listContactsPage(t.ctx, ws, {}, 1, cursor);
      seen.push(...page.contacts);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
    // a stage filter is its own statement shape
    const customers = await listContactsPage(t.ctx, ws, { lifecycle_stage: "customer" }, 10);
    expect(customers.contacts).toEqual(expected.filter((c) => c.lifecycleStage === "customer"));
    // and inside a transaction (drizzle's prepared query, same rows)
    await t.db.transaction(async (tx) => {
      const inTx = await listContactsPage({ db: tx as never }, ws, {}, 10);
      expect(inTx.contacts).toEqual(expected);
    });
  });
});
