import fs from "node:fs";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../src/server/db/client";
import { migrationsUpTo } from "../migrations";

/**
 * Migration 0059_opt_in_flags_repair on a database seeded before it (at 0058) with contacts whose
 * opt-in flags an import or edit had turned back on after the person opted out: each such flag goes
 * off by the rules of compliance optOutsOf (the write paths' check since); a flag of a person who did
 * not opt out, of another workspace's suppression, or of a number whose last reply was START stays.
 */
const dbName = `pw_optin_${process.pid}_${Date.now()}`;
let admin: postgres.Sql;
let sql: postgres.Sql;
let before: string;

beforeAll(async () => {
  const base = new URL(inject("databaseUrl"));
  admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  base.pathname = `/${dbName}`;
  sql = postgres(base.toString(), { max: 2, onnotice: () => {} });
  before = migrationsUpTo("0058_workspace_postal_address");
  await migrate(drizzle(sql), { migrationsFolder: before });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin?.end({ timeout: 5 });
  if (before) fs.rmSync(before, { recursive: true, force: true });
});

describe("migration 0059_opt_in_flags_repair", () => {
  it("turns off the opt-in flags of people on the suppression list or whose last reply was STOP, and only those", async () => {
    const [u] = await sql`
      insert into users (name, email, password_hash) values ('U', ${`u-${dbName}@example.com`}, 'x') returning id`;
    const workspace = async (slug: string) => {
      const [w] = await sql`
        insert into workspaces (name, slug, owner_id) values ('W', ${`${slug}-${dbName}`}, ${u!.id}) returning id`;
      return w!.id as string;
    };
    const w1 = await workspace("w1");
    const w2 = await workspace("w2");
    const contact = async (
      ws: string,
      email: string | null,
      phone: string | null,
      mobile: string | null = null,
    ) => {
      const [c] = await sql`
        insert into contacts (workspace_id, first_name, email, phone, mobile, email_opt_in, sms_opt_in, call_opt_in)
        values (${ws}, 'C', ${email}, ${phone}, ${mobile}, true, true, true) returning id`;
      return Number(c!.id);
    };
    const c = {
      unsubscribed: await contact(w1, "Gone@Example.com", "+12025550101"),
      smsStopped: await contact(w1, "sms@example.com", null, "+12025550102"),
      pressed9: await contact(w1, "calls@example.com", "+12025550103"),
      sharedStop: await contact(w1, "shared@example.com", "+12025550104"),
      restarted: await contact(w1, "restart@example.com", "+12025550105"),
      untouched: await contact(w1, "fine@example.com", "+12025550106"),
      otherWorkspace: await contact(w2, "gone@example.com", "+12025550103"),
    };
    const suppress = async (ws: string, channel: string, value: string, reason: string) =>
      sql`insert into suppressions (workspace_id, channel, value, reason) values (${ws}, ${channel}, ${value}, ${reason})`;
    await suppress(w1, "email", "gone@example.com", "unsubscribed");
    await suppress(w1, "sms", "+12025550102", "stop_reply");
    await suppress(w1, "voice", "+12025550103", "keypress_opt_out");
    const reply = async (phone: string, kind: string, at: string) =>
      sql`insert into sms_opt_events (phone, kind, provider_message_id, provider_time)
          values (${phone}, ${kind}, ${`SM${Math.random()}`}, ${at})`;
    await reply("+12025550104", "stop", "2026-11-01T10:00:00Z");
    await reply("+12025550105", "stop", "2026-11-01T10:00:00Z");
    await reply("+12025550105", "start", "2026-11-02T10:00:00Z");

    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });

    const rows = await sql`select id, email_opt_in, sms_opt_in, call_opt_in from contacts`;
    const flags = new Map(
      rows.map((r) => [Number(r.id), [r.email_opt_in, r.sms_opt_in, r.call_opt_in] as boolean[]]),
    );
    // [email, sms, call]
    expect(flags.get(c.unsubscribed)).toEqual([false, true, true]);
    // a workspace STOP: no texts and no calls (FCC 24-24: a STOP revokes the sender's calls too)
    expect(flags.get(c.smsStopped)).toEqual([true, false, false]);
    expect(flags.get(c.pressed9)).toEqual([true, true, false]);
    // the shared number's last reply was STOP: in every workspace
    expect(flags.get(c.sharedStop)).toEqual([true, false, false]);
    // a START after the STOP: nothing to repair
    expect(flags.get(c.restarted)).toEqual([true, true, true]);
    expect(flags.get(c.untouched)).toEqual([true, true, true]);
    // another workspace's list is not this one's
    expect(flags.get(c.otherWorkspace)).toEqual([true, true, true]);
  });
});
