import fs from "node:fs";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../src/server/db/client";
import { migrationsUpTo } from "../migrations";

/**
 * Migration 0063_report_recipient_outcomes on a database seeded before it (at 0062): earlier
 * campaigns' opt-outs, SMS replies and call lengths, recorded then only on the contacts' activities
 * (metadata.recipientId), reach the recipients' new columns, so their reports show them: a STOP a
 * START later cleared from the row's reason is still an opt-out of that campaign; the latest reply's
 * text; a completed call's CallDuration. Another workspace's activity naming the id changes nothing.
 */
const dbName = `pw_rout_${process.pid}_${Date.now()}`;
let admin: postgres.Sql;
let sql: postgres.Sql;
let before: string;

beforeAll(async () => {
  const base = new URL(inject("databaseUrl"));
  admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  base.pathname = `/${dbName}`;
  sql = postgres(base.toString(), { max: 2, onnotice: () => {} });
  before = migrationsUpTo("0062_import_report_counts");
  await migrate(drizzle(sql), { migrationsFolder: before });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin?.end({ timeout: 5 });
  if (before) fs.rmSync(before, { recursive: true, force: true });
});

describe("migration 0063_report_recipient_outcomes", () => {
  it("fills opted_out_at, reply_text and call_seconds from the activities that recorded them", async () => {
    const [u] = await sql`
      insert into users (name, email, password_hash) values ('U', ${`u-${dbName}@example.com`}, 'x') returning id`;
    const workspace = async (slug: string) => {
      const [w] = await sql`
        insert into workspaces (name, slug, owner_id) values ('W', ${`${slug}-${dbName}`}, ${u!.id}) returning id`;
      return w!.id as string;
    };
    const ws = await workspace("a");
    const other = await workspace("b");
    const campaign = async (channel: string) => {
      const [c] = await sql`
        insert into campaigns (workspace_id, name, channel, status) values (${ws}, 'C', ${channel}, 'completed')
        returning id`;
      return Number(c!.id);
    };
    const sms = await campaign("sms");
    const calls = await campaign("voice");
    let n = 0;
    const recipient = async (campaignId: number, channel: string, extra: Record<string, unknown>) => {
      const [r] = await sql`
        insert into campaign_recipients (campaign_id, workspace_id, channel, address, status, token, sent_at,
          delivered_at, replied_at, reason, updated_at)
        values (${campaignId}, ${ws}, ${channel}, ${`+1212555${String(++n).padStart(4, "0")}`},
          ${(extra.status as string) ?? "delivered"}, ${`tok-${dbName}-${n}`}, now(), now(),
          ${(extra.replied as Date | undefined)?.toISOString() ?? null}::timestamptz,
          ${(extra.reason as string | null) ?? null}, ${((extra.updatedAt as Date) ?? new Date()).toISOString()}::timestamptz)
        returning id`;
      return Number(r!.id);
    };
    const activity = (w: string, type: string, metadata: object, at: Date) =>
      sql`insert into activities (workspace_id, activity_type, metadata, created_at)
        values (${w}, ${type}, ${JSON.stringify(metadata)}::jsonb, ${at.toISOString()}::timestamptz)`;
    const t0 = new Date("2026-05-01T10:00:00Z");
    const later = new Date("2026-05-02T10:00:00Z");
    // a STOP that a START cleared from the row: only its activity is left
    const stoppedThenStarted = await recipient(sms, "sms", {});
    await activity(
      ws,
      "opted_out",
      { campaignId: sms, recipientId: stoppedThenStarted, keyword: "STOP" },
      t0,
    );
    // an opt-out still marked by its reason, with no activity (its contact deleted since)
    const stillStopped = await recipient(sms, "sms", { reason: "unsubscribed", updatedAt: later });
    // two replies: the latest one's text is kept
    const replied = await recipient(sms, "sms", { status: "replied", replied: t0 });
    await activity(ws, "sms_received", { recipientId: replied, body: "first" }, t0);
    await activity(ws, "sms_received", { recipientId: replied, body: "<b>latest</b>" }, later);
    // another workspace's activities naming these ids change nothing
    const untouched = await recipient(sms, "sms", { status: "replied", replied: t0 });
    await activity(other, "opted_out", { recipientId: untouched }, t0);
    await activity(other, "sms_received", { recipientId: untouched, body: "not theirs" }, t0);
    const answered = await recipient(calls, "voice", {});
    await activity(ws, "call_completed", { recipientId: answered, answeredBy: "human", duration: "95" }, t0);
    const noDuration = await recipient(calls, "voice", {});
    await activity(ws, "call_completed", { recipientId: noDuration }, t0);

    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });

    const rows = await sql`select id, opted_out_at, reply_text, call_seconds from campaign_recipients`;
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    expect(new Date(byId.get(stoppedThenStarted)?.opted_out_at).toISOString()).toBe(t0.toISOString());
    expect(new Date(byId.get(stillStopped)?.opted_out_at).toISOString()).toBe(later.toISOString());
    expect(byId.get(replied)?.reply_text).toBe("<b>latest</b>");
    expect(byId.get(replied)?.opted_out_at).toBeNull();
    expect(byId.get(untouched)).toMatchObject({ opted_out_at: null, reply_text: null });
    expect(byId.get(answered)?.call_seconds).toBe(95);
    expect(byId.get(noDuration)?.call_seconds).toBeNull();
  });
});
