import fs from "node:fs";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../src/server/db/client";
import { migrationsUpTo } from "../migrations";

/**
 * Migration 0065_campaign_pause_cause on a database seeded before it (at 0064): paused campaigns get
 * the cause their screens showed, by the rule the service read from the reason's words until then (a
 * reason beginning "Paused because ", campaigns.departure departurePauseReason's, is a departure, any
 * other reason the plan's); a paused campaign without a reason (a person's pause) and campaigns that
 * are not paused, whatever their `error`, get none.
 */
const dbName = `pw_pcause_${process.pid}_${Date.now()}`;
let admin: postgres.Sql;
let sql: postgres.Sql;
let before: string;

beforeAll(async () => {
  const base = new URL(inject("databaseUrl"));
  admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  base.pathname = `/${dbName}`;
  sql = postgres(base.toString(), { max: 2, onnotice: () => {} });
  before = migrationsUpTo("0064_contact_created_by");
  await migrate(drizzle(sql), { migrationsFolder: before });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin?.end({ timeout: 5 });
  if (before) fs.rmSync(before, { recursive: true, force: true });
});

describe("migration 0065_campaign_pause_cause", () => {
  it("fills pause_cause of paused campaigns from their reason; others stay null", async () => {
    const [u] = await sql`
      insert into users (name, email, password_hash) values ('U', ${`u-${dbName}@example.com`}, 'x') returning id`;
    const [w] = await sql`
      insert into workspaces (name, slug, owner_id) values ('W', ${`w-${dbName}`}, ${u!.id}) returning id`;
    const campaign = async (status: string, error: string | null) => {
      const [c] = await sql`
        insert into campaigns (workspace_id, name, channel, status, error)
        values (${w!.id}, 'C', 'email', ${status}, ${error}) returning id`;
      return Number(c!.id);
    };
    const departure = await campaign(
      "paused",
      "Paused because Ben Admin, who scheduled it, was removed from the workspace. Resume it to send it as scheduled (at once if that time has passed), or cancel it.",
    );
    const plan = await campaign(
      "paused",
      "Your Free plan includes 100 emails a month and 100 are already used or reserved this billing period. Upgrade to Professional for unlimited emails. The campaign was paused with its remaining messages unsent: resume it after upgrading, or cancel it.",
    );
    const byHand = await campaign("paused", null);
    const cancelledAfterDeparture = await campaign(
      "cancelled",
      "Paused because Mel Member, who scheduled it, left the workspace. Resume it to send it as scheduled (at once if that time has passed), or cancel it.",
    );
    const sending = await campaign("sending", null);

    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });

    const rows = await sql`select id, pause_cause from campaigns where workspace_id = ${w!.id}`;
    const cause = new Map(rows.map((r) => [Number(r.id), r.pause_cause as string | null]));
    expect(Object.fromEntries([...cause])).toEqual({
      [departure]: "departure",
      [plan]: "plan",
      [byHand]: null,
      [cancelledAfterDeparture]: null,
      [sending]: null,
    });
  });
});
