import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateContacts } from "../../src/server/features/crm/crm.service";
import { AppError } from "../../src/server/lib/errors";
import { type AuthedClient, createTestApp, setPlan, signUp, type TestApp, trpcCall } from "../helpers";

// Contact writes racing each other for real: requests sent at once (Promise.all over app.inject, each
// request's statements interleaving on the pool's connections) and the database checked afterwards.
// 1. The plan's contact limit holds under concurrency (creates, JSON and v1 imports, campaign
//    recipients, CSV imports of several batches).
// 2. Overlapping writes do not deadlock into a 500 (upserts of the same rows in opposite orders, bulk
//    operations beside upserts, two CSV imports over the same emails).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: "100000" });
});
afterAll(async () => t?.close());

const stamp = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;

/** Contacts of the workspace: rows in the table and the trigger-kept total (they must agree). */
async function totals(workspaceId: string) {
  const [r] = await t.sql<{ rows: number; counted: number; emails: number }[]>`
    select (select count(*)::int from contacts where workspace_id = ${workspaceId}) as rows,
      (select count(distinct lower(email))::int from contacts where workspace_id = ${workspaceId}) as emails,
      (select coalesce(sum(n), 0)::int from contact_counts where workspace_id = ${workspaceId}) as counted`;
  return r!;
}

/** `n` contacts written straight into the table (the count triggers keep contact_counts). */
async function seed(workspaceId: string, n: number, tag = stamp()) {
  await t.sql`
    insert into contacts (workspace_id, first_name, email)
    select ${workspaceId}, 'Seed', 'seed' || g || '-' || ${tag} || '@example.com' from generate_series(1, ${n}) g`;
}

const tally = (codes: number[]) => {
  const out: Record<number, number> = {};
  for (const c of codes) out[c] = (out[c] ?? 0) + 1;
  return out;
};

/** A workspace on `plan` with an API key of contacts scopes; `v1` sends a v1 request with it. */
async function keyed(plan: string) {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, plan);
  const res = await u.client.post("/api/api-keys", {
    name: "race",
    scopes: ["contacts:read", "contacts:write"],
  });
  expect(res.statusCode, res.body).toBe(200);
  const key = res.json().key as string;
  const v1 = (method: "GET" | "POST", url: string, payload?: object) =>
    t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });
  return { ...u, v1 };
}

function multipart(name: string, content: string, fields: Record<string, string>) {
  const boundary = `----pwrace${stamp()}`;
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  return {
    payload: Buffer.concat([
      Buffer.from(parts.join("")),
      Buffer.from(content),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

/** Uploads a CSV; the inline job client runs the import during the request. Returns the finished import. */
async function importFile(client: AuthedClient, name: string, content: string) {
  const res = await client.inject({
    method: "POST",
    url: "/api/contacts/import/upload",
    ...multipart(name, content, { on_duplicate: "update" }),
  });
  expect(res.statusCode, res.body).toBe(202);
  const got = await client.get(`/api/contacts/imports/${res.json().import.id}`);
  return got.json().import as {
    status: string;
    rows_processed: number;
    created: number;
    updated: number;
    skipped: number;
    errors: number;
    error_rows: { line: number; reason: string }[];
    failure_reason: string | null;
  };
}

/**
 * A CSV of contacts c<from>..c<to-1> of `tag`, stages alternating; with `reverse`, each run of 10,000
 * (an import batch) in descending order, so that two files' batches written at the same time hold the
 * same emails in opposite orders.
 */
function csvRange(from: number, to: number, tag: string, reverse: boolean, name: string) {
  const idx: number[] = [];
  for (let start = from; start < to; start += 10_000) {
    const block = Array.from({ length: Math.min(10_000, to - start) }, (_, i) => start + i);
    idx.push(...(reverse ? block.reverse() : block));
  }
  return `first_name,last_name,email,lifecycle_stage\n${idx
    .map((i) => `${name},X,c${i}-${tag}@example.com,${i % 2 ? "lead" : "customer"}`)
    .join("\n")}\n`;
}

describe("the plan's contact limit under concurrent writes", () => {
  it("20 creates at once (10 REST, 10 tRPC) at 95 of the Free plan's 100 stop at exactly 100", async () => {
    const { user, client } = await signUp(t.app);
    await seed(user.id, 95);
    const tag = stamp();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? client
              .post("/api/contacts", { first_name: "P", email: `p${i}-${tag}@example.com` })
              .then((r) => ({
                ok: r.statusCode === 200,
                status: r.statusCode,
                message: r.json().error as string,
              }))
          : trpcCall(client, "crm.create", { first_name: "T", email: `t${i}-${tag}@example.com` }).then(
              (r) => ({
                ok: r.status === 200,
                status: r.status,
                message: r.error?.message,
              }),
            ),
      ),
    );
    expect(await totals(user.id)).toEqual({ rows: 100, counted: 100, emails: 100 });
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    for (const r of results.filter((x) => !x.ok)) {
      expect(r.status, JSON.stringify(r)).toBeLessThan(500);
      expect(r.message).toMatch(/^Your Free plan includes 100 contacts/);
    }
  });

  it("5 JSON imports of 40 new contacts at once, at 60 of 100, create 40 in all and reject the rest by row", async () => {
    const { user, client } = await signUp(t.app);
    await seed(user.id, 60);
    const tag = stamp();
    const res = await Promise.all(
      Array.from({ length: 5 }, (_, k) =>
        client.post("/api/contacts/import", {
          contacts: Array.from({ length: 40 }, (_, i) => ({
            first_name: "B",
            email: `b${k}-${i}-${tag}@example.com`,
          })),
        }),
      ),
    );
    expect(res.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const bodies = res.map((r) => r.json());
    expect(bodies.reduce((a, b) => a + b.created, 0)).toBe(40);
    expect(bodies.reduce((a, b) => a + b.errors, 0)).toBe(160);
    for (const b of bodies)
      for (const e of b.error_rows) expect(e.reason).toMatch(/^Your Free plan includes 100 contacts/);
    expect(await totals(user.id)).toEqual({ rows: 100, counted: 100, emails: 100 });
  });

  it("v1 bulk upserts at once stop at the Business plan's 25,000", async () => {
    const k = await keyed("business");
    await seed(k.user.id, 24_960);
    const tag = stamp();
    const res = await Promise.all(
      Array.from({ length: 5 }, (_, b) =>
        k.v1("POST", "/contacts/bulk", {
          contacts: Array.from({ length: 40 }, (_, i) => ({
            first_name: "V",
            email: `v${b}-${i}-${tag}@example.com`,
          })),
        }),
      ),
    );
    expect(tally(res.map((r) => r.statusCode))).toEqual({ 200: 5 });
    expect(res.reduce((a, r) => a + r.json().created, 0)).toBe(40);
    expect(await totals(k.user.id)).toEqual({ rows: 25_000, counted: 25_000, emails: 25_000 });
  });

  it("campaign recipients (findOrCreateContacts) created at once: one of four 10-contact calls fits at 90 of 100", async () => {
    const { user } = await signUp(t.app);
    await seed(user.id, 90);
    const tag = stamp();
    const settled = await Promise.allSettled(
      Array.from({ length: 4 }, (_, k) =>
        findOrCreateContacts(
          t.ctx,
          user.id,
          Array.from({ length: 10 }, (_, i) => ({ name: `R ${i}`, email: `r${k}-${i}-${tag}@example.com` })),
        ),
      ),
    );
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    for (const s of settled.filter((x) => x.status === "rejected")) {
      const e = (s as PromiseRejectedResult).reason;
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe("PAYMENT_REQUIRED");
    }
    expect(await totals(user.id)).toEqual({ rows: 100, counted: 100, emails: 100 });
  });

  it.each(["enterprise", "business"])(
    "campaign recipients with a phone and no email, sent at once (%s): one contact per phone, every call gets its id",
    async (plan) => {
      const { user } = await signUp(t.app);
      await setPlan(t, user.id, plan);
      // 8 calls at once over the same 12 phone-only recipients (a CSV of SMS recipients launched twice)
      const phones = Array.from({ length: 12 }, (_, i) => `(989) 555-${String(7000 + i)}`);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          findOrCreateContacts(
            t.ctx,
            user.id,
            (k % 2 ? [...phones].reverse() : phones).map((phone, i) => ({ name: `P ${i}`, phone })),
          ),
        ),
      );
      const [r] = await t.sql<{ rows: number; phones: number }[]>`
        select count(*)::int as rows, count(distinct phone)::int as phones from contacts where workspace_id = ${user.id}`;
      expect(r).toEqual({ rows: 12, phones: 12 });
      // every call maps each phone to the one contact
      const first = results[0] as number[];
      for (const [k, ids] of results.entries()) expect(k % 2 ? [...ids].reverse() : ids).toEqual(first);
    },
  );

  it("lead search results added to contacts at once (12 requests of one) at 95 of 100: five fit", async () => {
    const { user, client } = await signUp(t.app);
    await seed(user.id, 95);
    const s = (
      await client.post("/api/maps/search", {
        location: "Saginaw, MI",
        businessType: "dentist",
        radius: 10,
        searchRadius: 2,
      })
    ).json();
    const placeIds = (s.businesses as { place_id: string }[]).map((b) => b.place_id).slice(0, 12);
    expect(placeIds).toHaveLength(12);
    const res = await Promise.all(
      placeIds.map((id) =>
        client.post("/api/maps/results/add-to-contacts", { searchId: s.searchId, placeIds: [id] }),
      ),
    );
    expect(await totals(user.id)).toMatchObject({ rows: 100, counted: 100 });
    expect(tally(res.map((r) => r.statusCode))).toEqual({ 200: 5, 402: 7 });
    for (const r of res.filter((x) => x.statusCode === 402))
      expect(r.json().error).toMatch(/^Your Free plan includes 100 contacts/);
  });

  it("two CSV imports at once on Free: together at most 100 contacts", async () => {
    const { user, client } = await signUp(t.app);
    const tag = stamp();
    const [a, b] = await Promise.all([
      importFile(client, "a.csv", csvRange(0, 150, tag, false, "FA")),
      importFile(client, "b.csv", csvRange(1000, 1150, tag, false, "FB")),
    ]);
    expect([a.status, b.status]).toEqual(["completed", "completed"]);
    expect(a.created + b.created).toBe(100);
    expect(a.errors + b.errors).toBe(200);
    expect(await totals(user.id)).toEqual({ rows: 100, counted: 100, emails: 100 });
  });
});

describe("overlapping writes without deadlocks", () => {
  it("two 30,000-row CSV imports over 20,000 shared emails in opposite orders, on Business: both complete, 25,000 contacts", async () => {
    const { user, client } = await signUp(t.app);
    await setPlan(t, user.id, "business");
    const tag = stamp();
    const [a, b] = await Promise.all([
      importFile(client, "a.csv", csvRange(0, 30_000, tag, false, "FA")),
      importFile(client, "b.csv", csvRange(10_000, 40_000, tag, true, "FB")),
    ]);
    expect([a.status, b.status], `${a.failure_reason} / ${b.failure_reason}`).toEqual([
      "completed",
      "completed",
    ]);
    expect([a.rows_processed, b.rows_processed]).toEqual([30_000, 30_000]);
    expect(a.created + b.created).toBe(25_000);
    // every row was created, updated (update mode) or rejected by the limit
    for (const i of [a, b]) expect(i.created + i.updated + i.errors).toBe(30_000);
    expect(await totals(user.id)).toEqual({ rows: 25_000, counted: 25_000, emails: 25_000 });
  }, 240_000);

  it("two 30,000-row CSV imports over 20,000 shared emails in opposite orders, unlimited plan: both complete, 40,000 contacts", async () => {
    const { user, client } = await signUp(t.app);
    await setPlan(t, user.id, "enterprise");
    const tag = stamp();
    const [a, b] = await Promise.all([
      importFile(client, "a.csv", csvRange(0, 30_000, tag, false, "FA")),
      importFile(client, "b.csv", csvRange(10_000, 40_000, tag, true, "FB")),
    ]);
    expect([a.status, b.status], `${a.failure_reason} / ${b.failure_reason}`).toEqual([
      "completed",
      "completed",
    ]);
    expect(a.created + b.created).toBe(40_000);
    expect(a.created + a.updated + b.created + b.updated).toBe(60_000);
    expect(await totals(user.id)).toEqual({ rows: 40_000, counted: 40_000, emails: 40_000 });
  }, 240_000);

  it("two v1 bulk upserts of the same 500 emails, one list reversed, 5 rounds: never a 5xx", async () => {
    const k = await keyed("business");
    const tag = stamp();
    const rows = Array.from({ length: 500 }, (_, i) => ({
      first_name: "M",
      email: `m${i}-${tag}@example.com`,
    }));
    const codes: number[] = [];
    for (let round = 0; round < 5; round++) {
      const res = await Promise.all([
        k.v1("POST", "/contacts/bulk", { contacts: rows.map((r) => ({ ...r, last_name: `A${round}` })) }),
        k.v1("POST", "/contacts/bulk", {
          contacts: [...rows].reverse().map((r) => ({ ...r, last_name: `B${round}` })),
        }),
      ]);
      codes.push(...res.map((r) => r.statusCode));
    }
    expect(tally(codes)).toEqual({ 200: 10 });
    expect(await totals(k.user.id)).toEqual({ rows: 500, counted: 500, emails: 500 });
  });

  it("bulk stage/status updates and deletes beside a v1 upsert of the same contacts, 6 rounds: never a 5xx", async () => {
    const k = await keyed("business");
    const tag = stamp();
    // ids in an order unrelated to the emails' order: ids ascend as the emails' hash does
    await t.sql`
      insert into contacts (workspace_id, first_name, email)
      select ${k.user.id}, 'S', 'o' || g || '-' || ${tag} || '@example.com'
      from generate_series(1, 1000) g order by md5(g::text)`;
    const emails = (
      await t.sql<{ email: string }[]>`
      select email from contacts where workspace_id = ${k.user.id}`
    ).map((r) => r.email);
    const shuffled = (xs: string[]) => [...xs].sort(() => Math.random() - 0.5);
    const codes: { op: string; status: number; body: string }[] = [];
    const op = (name: string, p: Promise<{ statusCode: number; body: string }>) =>
      p.then((r) => codes.push({ op: name, status: r.statusCode, body: r.body.slice(0, 200) }));
    for (let round = 0; round < 6; round++) {
      const ids = (
        await t.sql<{ id: string }[]>`
        select id from contacts where workspace_id = ${k.user.id}`
      ).map((r) => Number(r.id));
      const some = shuffled(ids.map(String)).map(Number).slice(0, 400);
      // one upsert of every contact (in a random order), and bulk operations over them sent again and
      // again until it has answered, so that they overlap with its statement
      let upserted = false;
      const upsert = op(
        "upsert",
        k.v1("POST", "/contacts/bulk", {
          contacts: shuffled(emails).map((email) => ({
            first_name: `U${round}`,
            email,
            lead_status: "qualified",
          })),
        }),
      ).finally(() => {
        upserted = true;
      });
      const bulk = async () => {
        for (let i = 0; i === 0 || !upserted; i++)
          await Promise.all([
            op(
              "stage-all",
              k.client.post("/api/contacts/bulk/operation", {
                filter: {},
                operation: "update_stage",
                data: { lifecycle_stage: i % 2 ? "customer" : "prospect" },
              }),
            ),
            op(
              "status-ids",
              k.client.post("/api/contacts/bulk/operation", {
                contactIds: some,
                operation: "update_status",
                data: { lead_status: i % 2 ? "unqualified" : "contacted" },
              }),
            ),
            i === 0
              ? op(
                  "delete-ids",
                  k.client.post("/api/contacts/bulk/operation", {
                    contactIds: some.slice(0, 20),
                    operation: "delete",
                  }),
                )
              : null,
          ]);
      };
      await Promise.all([upsert, bulk()]);
    }
    const failed = codes.filter((c) => c.status >= 500);
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([]);
    expect(codes.every((c) => c.status === 200)).toBe(true);
    // the trigger-kept counts still match the rows, by stage and status
    const [{ diff }] = await t.sql<{ diff: number }[]>`
      select count(*)::int as diff from (
        (select lifecycle_stage, lead_status, count(*)::int as n from contacts where workspace_id = ${k.user.id} group by 1, 2
         except
         select lifecycle_stage, lead_status, n::int from contact_counts where workspace_id = ${k.user.id} and n <> 0)
        union all
        (select lifecycle_stage, lead_status, n::int from contact_counts where workspace_id = ${k.user.id} and n <> 0
         except
         select lifecycle_stage, lead_status, count(*)::int as n from contacts where workspace_id = ${k.user.id} group by 1, 2)
      ) x`;
    expect(diff).toBe(0);
  });
});

describe("a deadlock the lock order did not prevent is retried (the backstop)", () => {
  /**
   * Runs `work` while writing the contact `email` (insert, update or delete) fails with Postgres'
   * deadlock_detected (40P01) the first `times` times: a trigger counting with a sequence (not rolled
   * back with the failed statement).
   */
  async function withDeadlocks<T>(email: string, times: number, work: () => Promise<T>): Promise<T> {
    const fn = `deadlock_${stamp()}`;
    await t.sql.unsafe(`
      create sequence ${fn}_n;
      create function ${fn}() returns trigger language plpgsql as $$
      begin
        if (case when tg_op = 'DELETE' then old.email else new.email end) = '${email}'
           and nextval('${fn}_n') <= ${times} then
          raise exception 'simulated deadlock' using errcode = '40P01';
        end if;
        return case when tg_op = 'DELETE' then old else new end;
      end $$;
      create trigger ${fn} before insert or update or delete on contacts for each row execute function ${fn}();`);
    try {
      return await work();
    } finally {
      await t.sql.unsafe(
        `drop trigger if exists ${fn} on contacts; drop function if exists ${fn}(); drop sequence if exists ${fn}_n;`,
      );
    }
  }

  it("a JSON import batch and a bulk operation are run again", async () => {
    const { user, client } = await signUp(t.app);
    const tag = stamp();
    const target = `d50-${tag}@example.com`;
    const rows = Array.from({ length: 100 }, (_, i) => ({
      first_name: "D",
      email: `d${i}-${tag}@example.com`,
    }));
    const imported = await withDeadlocks(target, 2, () =>
      client.post("/api/contacts/import", { contacts: rows }),
    );
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ created: 100, errors: 0 });
    const stage = await withDeadlocks(target, 2, () =>
      client.post("/api/contacts/bulk/operation", {
        filter: {},
        operation: "update_stage",
        data: { lifecycle_stage: "customer" },
      }),
    );
    expect(stage.statusCode, stage.body).toBe(200);
    expect(stage.json()).toMatchObject({ updated: 100 });
    const [{ n }] = await t.sql<{ n: number }[]>`
      select count(*)::int as n from contacts where workspace_id = ${user.id} and lifecycle_stage = 'customer'`;
    expect(n).toBe(100);
  });

  it("a CSV import whose batch keeps deadlocking reads the file again and completes with exact totals", async () => {
    const { user, client } = await signUp(t.app);
    await setPlan(t, user.id, "enterprise");
    const tag = stamp();
    // c12000 is in the second batch: the first (10,000 rows) is committed when the second gives up
    // after its 4 tries; the job then imports the file again
    const imp = await withDeadlocks(`c12000-${tag}@example.com`, 4, () =>
      importFile(client, "d.csv", csvRange(0, 15_000, tag, false, "D")),
    );
    expect(imp).toMatchObject({
      status: "completed",
      rows_processed: 15_000,
      created: 15_000,
      updated: 0,
      errors: 0,
      failure_reason: null,
    });
    expect(await totals(user.id)).toEqual({ rows: 15_000, counted: 15_000, emails: 15_000 });
  }, 240_000);
});
