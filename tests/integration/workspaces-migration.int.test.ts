import fs from "node:fs";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../src/server/db/client";
import { migrationsUpTo } from "../migrations";

/**
 * Migration 0017 (issue 10) on a database seeded BEFORE it: every user gets a personal workspace with
 * the user's uuid, every tenant row moves into it with its id unchanged, plan fields move from users to
 * the workspace, sessions point at it, created_by records the person, and the count/word triggers work
 * on the renamed column.
 */
const dbName = `pw_mig_${process.pid}_${Date.now()}`;
let admin: postgres.Sql;
let sql: postgres.Sql;
let url: string;
let before: string;

beforeAll(async () => {
  const base = new URL(inject("databaseUrl"));
  admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  base.pathname = `/${dbName}`;
  url = base.toString();
  sql = postgres(url, { max: 2, onnotice: () => {} });
  before = migrationsUpTo("0016_crm_counts_lock_order");
  await migrate(drizzle(sql), { migrationsFolder: before });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin?.end({ timeout: 5 });
  if (before) fs.rmSync(before, { recursive: true, force: true });
});

describe("migration 0017_workspaces on a database seeded before it", () => {
  it("moves every user's rows into a personal workspace with the same ids; nothing lost", async () => {
    // --- seed with the pre-0017 schema (user_id everywhere, plan on users) ---
    const [sam] = await sql`
      insert into users (name, email, password_hash, business_name, plan, subscription_status, subscription_tier)
      values ('Sam Seller', 'sam@example.com', 'x', 'Sam''s Plumbing', 'professional', 'active', 'premium') returning id`;
    const [ann] = await sql`
      insert into users (name, email, password_hash) values ('Ann Other', 'ann@example.com', 'x') returning id`;
    const samId = sam!.id as string;
    const annId = ann!.id as string;
    await sql`insert into sessions (id, user_id, expires_at) values ('s-sam', ${samId}, now() + interval '1 day')`;
    const contacts = await sql`
      insert into contacts (user_id, first_name, email, lifecycle_stage, lead_status)
      values (${samId}, 'Maria', 'maria@example.com', 'lead', 'new'),
             (${samId}, 'Lopez', 'lopez@example.com', 'customer', 'qualified'),
             (${annId}, 'Ann''s', 'annc@example.com', 'lead', 'new')
      returning id, user_id`;
    const [tag] = await sql`insert into tags (user_id, name) values (${samId}, 'VIP') returning id`;
    await sql`insert into contact_tags (contact_id, tag_id) values (${contacts[0]!.id}, ${tag!.id})`;
    const [note] = await sql`
      insert into notes (user_id, contact_id, note_text) values (${samId}, ${contacts[0]!.id}, 'Called') returning id`;
    await sql`insert into segments (user_id, name, filter) values (${samId}, 'Leads', '{"lifecycle_stage":"lead"}')`;
    await sql`insert into suppressions (user_id, channel, value, reason) values (${samId}, 'email', 'x@example.com', 'unsubscribed')`;
    const [campaign] = await sql`
      insert into campaigns (user_id, name, channel, status) values (${samId}, 'Spring', 'email', 'completed') returning id`;
    await sql`
      insert into campaign_recipients (campaign_id, user_id, contact_id, channel, address, status, token)
      values (${campaign!.id}, ${samId}, ${contacts[0]!.id}, 'email', 'maria@example.com', 'sent', 'tok1')`;
    const [media] = await sql`
      insert into media_items (user_id, name, type, mime_type, size_bytes, original_size_bytes)
      values (${samId}, 'Greeting', 'video', 'video/mp4', 10, 10) returning id`;
    const counts = async () =>
      (
        await sql`
        select (select count(*) from contacts)::int c, (select count(*) from notes)::int n,
               (select count(*) from tags)::int t, (select count(*) from contact_tags)::int ct,
               (select count(*) from segments)::int s, (select count(*) from suppressions)::int su,
               (select count(*) from campaigns)::int ca, (select count(*) from campaign_recipients)::int cr,
               (select count(*) from media_items)::int m, (select count(*) from activities)::int a,
               (select coalesce(sum(n), 0)::int from contact_counts) cc`
      )[0];
    const beforeCounts = await counts();

    // --- migrate to the current schema ---
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });

    expect(await counts()).toEqual(beforeCounts);
    const ws =
      await sql`select id, name, owner_id, plan, subscription_status, subscription_tier from workspaces order by name`;
    expect(ws).toEqual([
      {
        id: annId,
        name: "Ann Other's workspace",
        owner_id: annId,
        plan: "free",
        subscription_status: null,
        subscription_tier: null,
      },
      {
        id: samId,
        name: "Sam's Plumbing",
        owner_id: samId,
        plan: "professional",
        subscription_status: "active",
        subscription_tier: "premium",
      },
    ]);
    expect(
      await sql`select workspace_id, user_id, role from workspace_members order by role, user_id`,
    ).toHaveLength(2);
    expect((await sql`select role from workspace_members where user_id = ${samId}`)[0]!.role).toBe("owner");
    // same ids, now keyed by workspace
    const moved = await sql`select id, workspace_id from contacts order by id`;
    expect(moved.map((r) => [String(r.id), r.workspace_id])).toEqual(
      contacts.map((r) => [String(r.id), r.user_id]).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    expect((await sql`select workspace_id, created_by from notes where id = ${note!.id}`)[0]).toEqual({
      workspace_id: samId,
      created_by: samId,
    });
    expect((await sql`select workspace_id, created_by from campaigns where id = ${campaign!.id}`)[0]).toEqual(
      {
        workspace_id: samId,
        created_by: samId,
      },
    );
    expect((await sql`select workspace_id, created_by from media_items where id = ${media!.id}`)[0]).toEqual({
      workspace_id: samId,
      created_by: samId,
    });
    expect((await sql`select workspace_id from sessions where id = 's-sam'`)[0]!.workspace_id).toBe(samId);
    // plan fields left users
    const cols = await sql`select column_name from information_schema.columns where table_name = 'users'`;
    expect(cols.map((c) => c.column_name)).not.toContain("plan");
    // no tenant table keeps a user_id column (memberships, sessions and a person's auth tokens do, by design)
    const left = await sql`
      select table_name from information_schema.columns
      where column_name = 'user_id' and table_schema = 'public' order by table_name`;
    expect(left.map((r) => r.table_name)).toEqual(["auth_tokens", "sessions", "workspace_members"]);

    // the triggers follow the renamed column: counts and words keep working
    await sql`insert into contacts (workspace_id, first_name, company, email, lifecycle_stage, lead_status)
              values (${samId}, 'Zed', 'Quixotic Bakery', 'zed@example.com', 'lead', 'new')`;
    const [{ n }] = (await sql`
      select n::int from contact_counts where workspace_id = ${samId} and lifecycle_stage = 'lead' and lead_status = 'new'`) as unknown as [
      { n: number },
    ];
    expect(n).toBe(2);
    expect(
      await sql`select word from contact_words where workspace_id = ${samId} and word = 'quixotic'`,
    ).toHaveLength(1);
  });
});
