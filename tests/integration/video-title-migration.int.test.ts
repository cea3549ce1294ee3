import fs from "node:fs";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../src/server/db/client";
import { migrationsUpTo } from "../migrations";

/**
 * Migration 0061_video_cta_clicks on a database seeded before it (at 0059): video campaigns launched
 * through the video campaign builder or API (a video_campaigns row) had the library file's name as
 * their content's videoTitle, which their later emails showed ("Watch: mdn-flower"); the title goes.
 * A video campaign made through the generic campaigns API (no video_campaigns row, its title the
 * sender's own) and other campaigns keep theirs. Landing pages get cta_clicked_at, null.
 */
const dbName = `pw_vtitle_${process.pid}_${Date.now()}`;
let admin: postgres.Sql;
let sql: postgres.Sql;
let before: string;

beforeAll(async () => {
  const base = new URL(inject("databaseUrl"));
  admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  base.pathname = `/${dbName}`;
  sql = postgres(base.toString(), { max: 2, onnotice: () => {} });
  before = migrationsUpTo("0059_opt_in_flags_repair");
  await migrate(drizzle(sql), { migrationsFolder: before });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin?.end({ timeout: 5 });
  if (before) fs.rmSync(before, { recursive: true, force: true });
});

describe("migration 0061_video_cta_clicks", () => {
  it("drops the library file name stored as a studio video campaign's title, and only that", async () => {
    const [u] = await sql`
      insert into users (name, email, password_hash) values ('U', ${`u-${dbName}@example.com`}, 'x') returning id`;
    const [w] = await sql`
      insert into workspaces (name, slug, owner_id) values ('W', ${`w-${dbName}`}, ${u!.id}) returning id`;
    const campaign = async (channel: string, content: object) => {
      const [c] = await sql`
        insert into campaigns (workspace_id, name, channel, status, content)
        values (${w!.id}, 'C', ${channel}, 'scheduled', ${JSON.stringify(content)}::jsonb) returning id`;
      return Number(c!.id);
    };
    const studio = await campaign("video_email", {
      subject: "S",
      videoTitle: "mdn-flower",
      landingUrl: "https://app.test/v/{{token}}",
    });
    const studioSms = await campaign("video_sms", { message: "M", videoTitle: "b".repeat(200) });
    const generic = await campaign("video_email", { subject: "S", videoTitle: "Our spring offer" });
    const email = await campaign("email", { subject: "S", body: "B", videoTitle: "x" });
    for (const id of [studio, studioSms])
      await sql`
        insert into video_campaigns (workspace_id, public_id, campaign_id, delivery_method)
        values (${w!.id}, ${`p${id}-${dbName}`}, ${id}, 'email')`;

    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });

    const rows = await sql`select id, content from campaigns`;
    const contentOf = new Map(rows.map((r) => [Number(r.id), r.content as Record<string, unknown>]));
    expect(contentOf.get(studio)).toEqual({ subject: "S", landingUrl: "https://app.test/v/{{token}}" });
    expect(contentOf.get(studioSms)).toEqual({ message: "M" });
    expect(contentOf.get(generic)?.videoTitle).toBe("Our spring offer");
    expect(contentOf.get(email)?.videoTitle).toBe("x");
    const [col] = await sql`
      select is_nullable from information_schema.columns
      where table_name = 'video_landing_pages' and column_name = 'cta_clicked_at'`;
    expect(col?.is_nullable).toBe("YES");
  });
});
