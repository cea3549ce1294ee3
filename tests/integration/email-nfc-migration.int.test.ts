import fs from "node:fs";
import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../src/server/db/client";
import { migrationsUpTo } from "../migrations";

/**
 * Migration 0052_email_nfc on a database seeded before it (at 0051) with addresses in NFD and other
 * un-normalized forms: each becomes NFC unless its NFC form collides with another row (the same
 * workspace's contact, another account, another pending invitation of the workspace), which is left
 * as it was; nothing is deleted.
 */
const dbName = `pw_nfc_${process.pid}_${Date.now()}`;
let admin: postgres.Sql;
let sql: postgres.Sql;
let before: string;

beforeAll(async () => {
  const base = new URL(inject("databaseUrl"));
  admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  base.pathname = `/${dbName}`;
  sql = postgres(base.toString(), { max: 2, onnotice: () => {} });
  before = migrationsUpTo("0051_campaign_recipients_campaign_address");
  await migrate(drizzle(sql), { migrationsFolder: before });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin?.end({ timeout: 5 });
  if (before) fs.rmSync(before, { recursive: true, force: true });
});

// "ệ" (U+1EC7) decomposes to e + dot below (U+0323) + circumflex (U+0302); the marks in the other
// order are a third spelling, neither NFC nor NFD, with the same NFC form
const E_DOT_CIRC = "\u1ec7";
const E_DOT_CIRC_NFD = "e\u0323\u0302";
const E_DOT_CIRC_SWAPPED = "e\u0302\u0323";

describe("migration 0052_email_nfc", () => {
  it("puts stored addresses in NFC except where that would collide; nothing is deleted", async () => {
    expect(E_DOT_CIRC_NFD.normalize("NFC")).toBe(E_DOT_CIRC);
    expect(E_DOT_CIRC_SWAPPED.normalize("NFC")).toBe(E_DOT_CIRC);
    expect(E_DOT_CIRC_SWAPPED).not.toBe(E_DOT_CIRC_NFD);

    const user = async (email: string, createdAt: string) => {
      const [u] = await sql`
        insert into users (name, email, password_hash, created_at)
        values ('U', ${email}, 'x', ${createdAt}) returning id`;
      return u!.id as string;
    };
    const zoeNfd = await user("zoe\u0308@example.com", "2026-01-01"); // alone: -> NFC
    const reneNfc = await user("ren\u00e9@example.com", "2026-01-02"); // NFC already
    const reneNfd = await user("Rene\u0301@example.com", "2026-01-03"); // collides with reneNfc: left
    const plain = await user("plain@example.com", "2026-01-04");
    const workspace = async (owner: string, slug: string) => {
      const [w] = await sql`
        insert into workspaces (name, slug, owner_id) values ('W', ${slug}, ${owner}) returning id`;
      return w!.id as string;
    };
    const w1 = await workspace(zoeNfd, `w1-${dbName}`);
    const w2 = await workspace(plain, `w2-${dbName}`);

    const contact = async (ws: string, email: string | null) => {
      const [c] = await sql`
        insert into contacts (workspace_id, first_name, email) values (${ws}, 'C', ${email}) returning id`;
      return Number(c!.id);
    };
    const c = {
      joseNfd: await contact(w1, "jose\u0301@example.com"), // alone in w1: -> NFC
      chloeNfc: await contact(w1, "chlo\u00e9@example.com"),
      chloeNfd: await contact(w1, "CHLOE\u0301@example.com"), // collides with chloeNfc: left
      nguyenNfd: await contact(w1, `nguy${E_DOT_CIRC_NFD}n@example.com`), // first of two: -> NFC
      nguyenSwapped: await contact(w1, `nguy${E_DOT_CIRC_SWAPPED}n@example.com`), // second: left
      ascii: await contact(w1, "ascii@example.com"),
      noEmail: await contact(w1, null),
      joseNfdOtherWorkspace: await contact(w2, "jose\u0301@example.com"), // w2 has no NFC twin: -> NFC
    };

    const invite = async (ws: string, email: string, revoked = false) => {
      const [i] = await sql`
        insert into workspace_invites (workspace_id, email, role, token_hash, expires_at, revoked_at)
        values (${ws}, ${email}, 'member', ${`h-${Math.random()}`}, now() + interval '7 days',
                case when ${revoked} then now() end)
        returning id`;
      return i!.id as string;
    };
    const inv = {
      inesNfd: await invite(w1, "ine\u0301s@example.com"), // alone: -> NFC
      leaNfc: await invite(w1, "l\u00e9a@example.com"),
      leaNfd: await invite(w1, "le\u0301a@example.com"), // another pending has its NFC form: left
      leaNfdRevoked: await invite(w1, "le\u0301a@example.com", true), // not pending: -> NFC
    };

    const token = async (id: string, userId: string, purpose: string, email: string) => {
      await sql`
        insert into auth_tokens (id, user_id, purpose, email, expires_at)
        values (${id}, ${userId}, ${purpose}, ${email}, now() + interval '1 day')`;
    };
    // Zoë's verification link for her address (which becomes NFC): follows it
    await token(`t1-${dbName}`, zoeNfd, "email_verification", "zoe\u0308@example.com");
    // the left account's link for its own address, as stored: left, so it still matches
    await token(`t2-${dbName}`, reneNfd, "email_verification", "Rene\u0301@example.com");
    // an address held for its owner's recovery (not the account's current one): -> NFC
    await token(`t3-${dbName}`, plain, "email_recovery", "o\u0308ld@example.com");

    const countsBefore = await sql`select workspace_id, n from contact_counts order by 1, 2`;

    // 0052
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });

    const users = new Map(
      (await sql`select id, email from users`).map((r) => [r.id as string, r.email as string]),
    );
    expect(users.get(zoeNfd)).toBe("zo\u00eb@example.com");
    expect(users.get(reneNfc)).toBe("ren\u00e9@example.com");
    expect(users.get(reneNfd)).toBe("Rene\u0301@example.com");
    expect(users.get(plain)).toBe("plain@example.com");

    const contacts = new Map(
      (await sql`select id, email from contacts`).map((r) => [Number(r.id), r.email as string | null]),
    );
    expect(contacts.size).toBe(Object.keys(c).length);
    expect(contacts.get(c.joseNfd)).toBe("jos\u00e9@example.com");
    expect(contacts.get(c.chloeNfc)).toBe("chlo\u00e9@example.com");
    expect(contacts.get(c.chloeNfd)).toBe("CHLOE\u0301@example.com");
    expect(contacts.get(c.nguyenNfd)).toBe(`nguy${E_DOT_CIRC}n@example.com`);
    expect(contacts.get(c.nguyenSwapped)).toBe(`nguy${E_DOT_CIRC_SWAPPED}n@example.com`);
    expect(contacts.get(c.ascii)).toBe("ascii@example.com");
    expect(contacts.get(c.noEmail)).toBeNull();
    expect(contacts.get(c.joseNfdOtherWorkspace)).toBe("jos\u00e9@example.com");

    const invites = new Map(
      (await sql`select id, email from workspace_invites`).map((r) => [r.id as string, r.email as string]),
    );
    expect(invites.get(inv.inesNfd)).toBe("in\u00e9s@example.com");
    expect(invites.get(inv.leaNfc)).toBe("l\u00e9a@example.com");
    expect(invites.get(inv.leaNfd)).toBe("le\u0301a@example.com");
    expect(invites.get(inv.leaNfdRevoked)).toBe("l\u00e9a@example.com");

    const tokens = new Map(
      (await sql`select id, email from auth_tokens`).map((r) => [r.id as string, r.email as string]),
    );
    expect(tokens.get(`t1-${dbName}`)).toBe("zo\u00eb@example.com");
    expect(tokens.get(`t2-${dbName}`)).toBe("Rene\u0301@example.com");
    expect(tokens.get(`t3-${dbName}`)).toBe("\u00f6ld@example.com");

    // the contacts' count triggers ran on the update and still agree
    expect(await sql`select workspace_id, n from contact_counts order by 1, 2`).toEqual(countsBefore);

    // running the statement again changes nothing (the left rows still collide)
    const file = fs.readFileSync(path.join(MIGRATIONS_FOLDER, "0052_email_nfc.sql"), "utf8");
    const snapshot = async () => [
      await sql`select id, email from users order by id`,
      await sql`select id, email from contacts order by id`,
      await sql`select id, email from workspace_invites order by id`,
      await sql`select id, email from auth_tokens order by id`,
    ];
    const after = await snapshot();
    await sql.unsafe(file);
    expect(await snapshot()).toEqual(after);
  });

  it("on a SQL_ASCII database (an embedded server initialised under the C locale) changes nothing and does not fail", async () => {
    const asciiName = `${dbName}_ascii`;
    await admin.unsafe(
      // libc's C locale: the embedded cluster's own default is the builtin C.UTF-8, which needs UTF8
      `create database ${asciiName} encoding 'SQL_ASCII' template template0 locale_provider 'libc' lc_collate 'C' lc_ctype 'C'`,
    );
    const base = new URL(inject("databaseUrl"));
    base.pathname = `/${asciiName}`;
    const notices: string[] = [];
    const ascii = postgres(base.toString(), { max: 1, onnotice: (n) => notices.push(n.message) });
    try {
      await migrate(drizzle(ascii), { migrationsFolder: before });
      const [u] = await ascii`
        insert into users (name, email, password_hash) values ('U', ${"zoe\u0308@example.com"}, 'x') returning id`;
      await migrate(drizzle(ascii), { migrationsFolder: MIGRATIONS_FOLDER });
      const [row] = await ascii`select email from users where id = ${u!.id}`;
      expect(row!.email).toBe("zoe\u0308@example.com");
      expect(notices).toContain(
        "0052_email_nfc: server encoding is SQL_ASCII, not UTF8: stored email addresses left as they are",
      );
    } finally {
      await ascii.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists ${asciiName} with (force)`);
    }
  });
});
