import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReservedSql } from "../../src/server/db/reserved";
import { workspaces } from "../../src/server/db/schema";
import { createContact, importContactsJson } from "../../src/server/features/crm/crm.service";
import {
  deliverWebhookJob,
  requeueStrandedDeliveriesJob,
} from "../../src/server/features/webhooks/webhooks.jobs";
import type { JobClient } from "../../src/server/jobs/client";
import type { JobDeps } from "../../src/server/jobs/define";
import { handlerOf } from "../../src/server/jobs/registry";
import { campaignRecipientRows, createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";
import { multipart } from "./studio-helpers";
import { webhookReceiver } from "./webhook-receiver";

// Outbound webhook events as a transactional outbox (issue 15): a feature stores its event with the
// same transaction that makes its change, and the delivery jobs are queued after the commit. Before,
// the event was stored after the change had committed, so a process stopping in between lost it for
// good (a subscriber never heard of a contact created or a message sent).
//
// "The process stops after the change committed, before its event is stored" is made exact with a
// trigger on outbound_webhook_events (for the test's workspace only: test files share the database):
// an event of a contact, recipient or campaign stored by a transaction other than the one that last
// wrote that row fails, as the lost insert would. Stored in the change's own transaction, it passes.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

/** A Business workspace with an API key and an endpoint subscribed to `events` at `url`. */
async function subscribed(events: string[], url: string) {
  const u = await signUp(t.app);
  await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
  const { key } = (
    await u.client.post("/api/api-keys", {
      name: "hooks",
      scopes: ["campaigns:read", "campaigns:write", "contacts:read", "contacts:write", "webhooks:write"],
    })
  ).json();
  const call = (method: string, p: string, payload?: object) =>
    t.app.inject({
      method: method as "POST",
      url: `/api/v1${p}`,
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });
  const ep = await call("POST", "/webhook_endpoints", { url, events });
  expect(ep.statusCode, ep.body).toBe(201);
  return { ...u, workspaceId: u.user.id as string, call, endpointId: ep.json().id as string };
}

/**
 * Until the returned function is called: an event of the workspace about a campaign recipient
 * (`data.recipient_id`: message.*, contact.unsubscribed), a contact (`data.id`) or a campaign
 * (`data.id`) fails to be stored unless the
 * storing transaction is the one that last wrote that row (its xmin), i.e. unless it is stored with
 * the change it reports. A row written in a subtransaction of it (a savepoint: a launch with inline
 * rows creates its contacts in savepoints of the launch's one transaction) has that subtransaction's
 * xid as its xmin, which `pg_xact_status` reports 'in progress' only inside the same top-level
 * transaction (a row another transaction wrote is not visible until it commits, then 'committed').
 */
async function stopAfterCommit(workspaceId: string) {
  const fn = `test_outbox_${randomUUID().replace(/-/g, "")}`;
  await t.db.execute(
    sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      declare subject xid;
      begin
        if new.data ? 'recipient_id' then
          select r.xmin into subject from campaign_recipients r where r.id = (new.data->>'recipient_id')::bigint;
        elsif new.type like 'contact.%' then
          select c.xmin into subject from contacts c where c.id = (new.data->>'id')::bigint;
        elsif new.type like 'campaign.%' then
          select c.xmin into subject from campaigns c where c.id = (new.data->>'id')::bigint;
        else
          return new;
        end if;
        if subject is null or pg_xact_status(
            ((txid_current() / 4294967296) * 4294967296 + subject::text::bigint)::text::xid8
          ) <> 'in progress' then
          raise exception 'the process stopped after the change committed, before its % event was stored', new.type;
        end if;
        return new;
      end $$`),
  );
  await t.db.execute(
    sql.raw(`create trigger ${fn} before insert on outbound_webhook_events for each row
      when (new.workspace_id = '${workspaceId}') execute function ${fn}()`),
  );
  return async () => {
    await t.db.execute(sql.raw(`drop trigger ${fn} on outbound_webhook_events`));
    await t.db.execute(sql.raw(`drop function ${fn}()`));
  };
}

/**
 * Until the returned function is called: storing any webhook event of the workspace fails (a trigger
 * raises 'webhook table broken'), as a broken webhooks table would.
 */
async function breakWebhookTable(workspaceId: string) {
  const fn = `test_outbox_broken_${randomUUID().replace(/-/g, "")}`;
  await t.db.execute(
    sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin raise exception 'webhook table broken'; end $$`),
  );
  await t.db.execute(
    sql.raw(`create trigger ${fn} before insert on outbound_webhook_events for each row
      when (new.workspace_id = '${workspaceId}') execute function ${fn}()`),
  );
  return async () => {
    await t.db.execute(sql.raw(`drop trigger ${fn} on outbound_webhook_events`));
    await t.db.execute(sql.raw(`drop function ${fn}()`));
  };
}

/** The workspace's stored events with their deliveries' status and attempts. */
const storedEvents = (workspaceId: string) =>
  t.db.execute<{
    type: string;
    data: Record<string, unknown>;
    status: string | null;
    attempts: number | null;
  }>(
    sql`select e.type, e.data, d.status, d.attempts from outbound_webhook_events e
        left join webhook_deliveries d on d.event_id = e.id
        where e.workspace_id = ${workspaceId} order by e.created_at, e.id`,
  );

/** Queueing of webhook delivery jobs fails (the process stopped right after the commit); other jobs run. */
function withDeliveryQueueDown(): () => void {
  const original = t.jobs.sendMany.bind(t.jobs);
  t.jobs.sendMany = (async (job, items) => {
    if (job.name === deliverWebhookJob.name) throw new Error("connection terminated");
    return original(job, items);
  }) as JobClient["sendMany"];
  return () => {
    t.jobs.sendMany = original;
  };
}

const sweep = () =>
  handlerOf(requeueStrandedDeliveriesJob).handler(
    {},
    { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log } as JobDeps,
    { id: "sweep", retryCount: 0 },
  );

/** Ages the workspace's deliveries past the stranded sweep's 10 minutes. */
const ageDeliveries = (workspaceId: string) =>
  t.db.execute(
    sql`update webhook_deliveries set created_at = now() - interval '11 minutes' where workspace_id = ${workspaceId}`,
  );

describe("webhook events commit with the change they report (transactional outbox)", () => {
  it("contact.created (POST /api/v1/contacts) is stored in the contact's transaction and delivered right after the commit", async () => {
    const hook = await webhookReceiver();
    try {
      const s = await subscribed(["contact.created"], hook.url);
      const drop = await stopAfterCommit(s.workspaceId);
      try {
        const email = uniqueEmail("outbox-api");
        const res = await s.call("POST", "/contacts", { first_name: "Ada", email });
        expect(res.statusCode, res.body).toBe(201);
        const events = await storedEvents(s.workspaceId);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ type: "contact.created", status: "succeeded", attempts: 1 });
        expect(events[0]?.data).toMatchObject({ email });
        // queued right after the commit: delivered without waiting for the sweep
        expect(hook.got).toHaveLength(1);
      } finally {
        await drop();
      }
    } finally {
      await hook.close();
    }
  });

  it("contact.created: the contact and its event commit although queueing the delivery fails after the commit; the sweep delivers it", async () => {
    const hook = await webhookReceiver();
    try {
      const s = await subscribed(["contact.created"], hook.url);
      const drop = await stopAfterCommit(s.workspaceId);
      const restore = withDeliveryQueueDown();
      let contactId: number;
      try {
        const logged: string[] = [];
        const ctx = { ...t.ctx, log: { ...t.ctx.log, warn: (_o: object, m: string) => logged.push(m) } };
        const row = await createContact(ctx as unknown as typeof t.ctx, s.workspaceId, {
          first_name: "Grace",
          email: uniqueEmail("outbox-svc"),
        });
        contactId = row.id;
        expect(logged).toEqual(["webhook deliveries not queued; the stranded-delivery sweep queues them"]);
      } finally {
        restore();
        await drop();
      }
      const events = await storedEvents(s.workspaceId);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: "contact.created", status: "pending", attempts: 0 });
      expect(events[0]?.data).toMatchObject({ id: contactId });
      expect(hook.got).toHaveLength(0);
      await ageDeliveries(s.workspaceId);
      await sweep();
      expect(hook.got).toHaveLength(1);
      expect((await storedEvents(s.workspaceId))[0]).toMatchObject({ status: "succeeded", attempts: 1 });
    } finally {
      await hook.close();
    }
  });

  it("a contact whose transaction rolls back leaves no contact.created event", async () => {
    const s = await subscribed(["contact.created"], "https://hooks.example.com/in");
    const email = uniqueEmail("outbox-rollback");
    // the contact's insert fails at its commit (a deferred check), after the event was stored
    const fn = `test_outbox_rb_${randomUUID().replace(/-/g, "")}`;
    await t.db.execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
        begin raise exception 'refused at commit'; end $$`),
    );
    await t.db.execute(
      sql.raw(`create constraint trigger ${fn} after insert on contacts deferrable initially deferred
        for each row when (new.email = '${email}') execute function ${fn}()`),
    );
    try {
      await expect(createContact(t.ctx, s.workspaceId, { first_name: "Rolled", email })).rejects.toThrow(
        /refused at commit/,
      );
    } finally {
      await t.db.execute(sql.raw(`drop trigger ${fn} on contacts`));
      await t.db.execute(sql.raw(`drop function ${fn}()`));
    }
    expect(await storedEvents(s.workspaceId)).toHaveLength(0);
  });

  it("an event that cannot be stored (a webhook table error) rolls back its savepoint only: the contact is created", async () => {
    const s = await subscribed(["contact.created"], "https://hooks.example.com/in");
    const mend = await breakWebhookTable(s.workspaceId);
    const logged: string[] = [];
    let contactId: number;
    try {
      const ctx = { ...t.ctx, log: { ...t.ctx.log, warn: (_o: object, m: string) => logged.push(m) } };
      const row = await createContact(ctx as unknown as typeof t.ctx, s.workspaceId, {
        first_name: "Kept",
        email: uniqueEmail("outbox-kept"),
      });
      contactId = row.id;
    } finally {
      await mend();
    }
    expect(logged).toEqual(["webhook event not stored"]);
    const [kept] = await t.db.execute<{ n: number }>(
      sql`select count(*)::int as n from contacts where id = ${contactId} and workspace_id = ${s.workspaceId}`,
    );
    expect(kept?.n).toBe(1);
    expect(await storedEvents(s.workspaceId)).toHaveLength(0);
  });

  it("a campaign batch's message.sent (with the audience's contact.created, campaign.launched and a recipient's contact.unsubscribed) is stored in the change's transaction, even when queueing fails", async () => {
    const hook = await webhookReceiver();
    try {
      const s = await subscribed(
        ["message.sent", "contact.created", "campaign.launched", "contact.unsubscribed"],
        hook.url,
      );
      const drop = await stopAfterCommit(s.workspaceId);
      const restore = withDeliveryQueueDown();
      let campaignId: number;
      const a = uniqueEmail("outbox-a");
      const b = uniqueEmail("outbox-b");
      try {
        const launch = await s.call("POST", "/campaigns", {
          name: "Outbox",
          channel: "email",
          content: { subject: "Hi", body: "Hello {{first_name|there}}" },
          audience: {
            contacts: [
              { first_name: "A", email: a },
              { first_name: "B", email: b },
            ],
          },
        });
        expect(launch.statusCode, launch.body).toBe(201);
        campaignId = launch.json().campaign.id;
        // recipient A unsubscribes on the app's page
        const rowA = (await campaignRecipientRows(t, campaignId)).find((r) => r.address === a);
        const page = await t.app.inject({ method: "POST", url: `/u/${rowA?.token}` });
        expect(page.statusCode).toBe(200);
      } finally {
        restore();
        await drop();
      }
      const events = await storedEvents(s.workspaceId);
      const sent = events.filter((e) => e.type === "message.sent");
      expect(sent.map((e) => e.data.address).sort()).toEqual([a, b].sort());
      for (const e of sent) {
        expect(e.data).toMatchObject({ campaign_id: campaignId, status: "sent" });
        expect(e).toMatchObject({ status: "pending", attempts: 0 });
      }
      expect(events.filter((e) => e.type === "contact.created")).toHaveLength(2);
      expect(events.filter((e) => e.type === "campaign.launched")).toHaveLength(1);
      const unsubscribed = events.filter((e) => e.type === "contact.unsubscribed");
      expect(unsubscribed.map((e) => e.data.address)).toEqual([a]);
      expect(hook.got).toHaveLength(0);
      // the sweep queues them once they are 10 minutes old: every event reaches the subscriber
      await ageDeliveries(s.workspaceId);
      await sweep();
      expect(hook.got).toHaveLength(6);
    } finally {
      await hook.close();
    }
  });

  it("a reschedule's campaign.rescheduled is stored in the move's transaction, even when queueing fails", async () => {
    const hook = await webhookReceiver();
    try {
      const s = await subscribed(["campaign.rescheduled"], hook.url);
      const launch = await s.call("POST", "/campaigns", {
        name: "Outbox later",
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        audience: { contacts: [{ first_name: "A", email: uniqueEmail("outbox-resched") }] },
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect(launch.statusCode, launch.body).toBe(201);
      const campaignId = launch.json().campaign.id as number;
      const drop = await stopAfterCommit(s.workspaceId);
      const restore = withDeliveryQueueDown();
      const to = new Date(Date.now() + 7_200_000).toISOString();
      try {
        const moved = await s.call("POST", `/campaigns/${campaignId}/reschedule`, { scheduled_at: to });
        expect(moved.statusCode, moved.body).toBe(200);
      } finally {
        restore();
        await drop();
      }
      const events = await storedEvents(s.workspaceId);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: "campaign.rescheduled",
        data: { id: campaignId, scheduled_at: to },
        status: "pending",
        attempts: 0,
      });
      expect(hook.got).toHaveLength(0);
      await ageDeliveries(s.workspaceId);
      await sweep();
      expect(hook.got).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });
});

/**
 * Watches the connections contact imports reserve (ContactImporter: one per writer, each batch a
 * transaction run by hand) until `restore`: records each statement's first word in `sent`; with
 * `stopAfterCommit`, a batch's COMMIT goes through and then the import fails, as it would if the
 * process stopped right after the commit (whatever the import meant to do next is never done).
 */
function watchImportConnections(opts: { stopAfterCommit?: boolean } = {}) {
  const sent: string[] = [];
  const original = t.sql.reserve;
  t.sql.reserve = (async () => {
    const conn = await original();
    const unsafe = conn.unsafe;
    conn.unsafe = ((query: string, ...rest: unknown[]) => {
      sent.push(query.trim().split(/\s+/)[0]!.toLowerCase());
      const q = (unsafe as (...a: unknown[]) => ReturnType<ReservedSql["unsafe"]>)(query, ...rest);
      if (!opts.stopAfterCommit || query !== "commit") return q;
      return q.then(() => {
        throw new Error("the process stopped right after the batch commit");
      });
    }) as ReservedSql["unsafe"];
    return conn;
  }) as typeof t.sql.reserve;
  return {
    sent,
    restore: () => {
      t.sql.reserve = original;
    },
  };
}

/** Uploads a CSV through the upload route (the inline job client runs the import job); its import. */
async function uploadCsv(client: Awaited<ReturnType<typeof signUp>>["client"], csv: string) {
  const body = multipart(
    {},
    { field: "file", filename: "contacts.csv", contentType: "text/csv", content: Buffer.from(csv) },
  );
  const up = await client.inject({ method: "POST", url: "/api/contacts/import/upload", ...body });
  expect(up.statusCode, up.body).toBe(202);
  const status = await client.get(`/api/contacts/imports/${up.json().import.id}`);
  return status.json().import as { status: string; created: number };
}

/** The workspace's contacts' emails, sorted. */
const contactEmails = async (workspaceId: string) =>
  (
    await t.db.execute<{ email: string }>(
      sql`select email from contacts where workspace_id = ${workspaceId} order by email`,
    )
  ).map((r) => r.email);

describe("contact imports store each batch's webhook events in the batch's transaction", () => {
  it("JSON import: a process that stops right after the batch's commit has stored its contact.created events; the sweep delivers them", async () => {
    const hook = await webhookReceiver();
    try {
      const s = await subscribed(["contact.created", "contact.updated"], hook.url);
      const existing = uniqueEmail("imp-existing");
      await createContact(t.ctx, s.workspaceId, { first_name: "Old", email: existing });
      expect(hook.got).toHaveLength(1); // its own contact.created, delivered at once
      hook.got.length = 0;
      const fresh = [uniqueEmail("imp-a"), uniqueEmail("imp-b"), uniqueEmail("imp-c")];
      const watch = watchImportConnections({ stopAfterCommit: true });
      try {
        await expect(
          importContactsJson(t.ctx, s.workspaceId, {
            contacts: [
              { email: existing, first_name: "Renamed" },
              ...fresh.map((email, i) => ({ email, first_name: `New${i}` })),
            ],
            on_duplicate: "update",
          }),
        ).rejects.toThrow(/stopped right after the batch commit/);
      } finally {
        watch.restore();
      }
      // the batch committed
      expect(await contactEmails(s.workspaceId)).toEqual([existing, ...fresh].sort());
      // and its events with it, their deliveries stored (never queued: the process had stopped)
      const events = (await storedEvents(s.workspaceId)).filter((e) => e.status === "pending");
      expect(events.filter((e) => e.type === "contact.created").map((e) => e.data.email)).toEqual(
        expect.arrayContaining(fresh),
      );
      expect(events.filter((e) => e.type === "contact.created")).toHaveLength(3);
      expect(events.filter((e) => e.type === "contact.updated").map((e) => e.data.first_name)).toEqual([
        "Renamed",
      ]);
      for (const e of events) expect(e).toMatchObject({ attempts: 0 });
      expect(hook.got).toHaveLength(0);
      await ageDeliveries(s.workspaceId);
      await sweep();
      expect(hook.got).toHaveLength(4);
    } finally {
      await hook.close();
    }
  });

  it("CSV file import (import job): a process that stops right after the batch's commit has stored its contact.created events", async () => {
    const s = await subscribed(["contact.created"], "https://hooks.example.com/in");
    const fresh = [uniqueEmail("csv-a"), uniqueEmail("csv-b")];
    const watch = watchImportConnections({ stopAfterCommit: true });
    let imp: Awaited<ReturnType<typeof uploadCsv>>;
    try {
      imp = await uploadCsv(s.client, `email,first_name\n${fresh[0]},Ann\n${fresh[1]},Bob\n`);
    } finally {
      watch.restore();
    }
    // the job stopped after the commit (here its error fails the import; a dead process leaves it to pg-boss)
    expect(imp).toMatchObject({ status: "failed" });
    expect(await contactEmails(s.workspaceId)).toEqual([...fresh].sort());
    const events = await storedEvents(s.workspaceId);
    expect(events.map((e) => [e.type, e.data.email, e.status]).sort()).toEqual(
      fresh.map((email) => ["contact.created", email, "pending"]).sort(),
    );
  });

  it("v1 bulk upsert: contact.created is stored in the batch's own transaction although queueing fails after the commit; the sweep delivers", async () => {
    const hook = await webhookReceiver();
    try {
      const s = await subscribed(["contact.created"], hook.url);
      const drop = await stopAfterCommit(s.workspaceId);
      const restore = withDeliveryQueueDown();
      const fresh = [uniqueEmail("v1-a"), uniqueEmail("v1-b")];
      try {
        const res = await s.call("POST", "/contacts/bulk", {
          contacts: fresh.map((email) => ({ email, first_name: "Bulk" })),
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toMatchObject({ created: 2 });
      } finally {
        restore();
        await drop();
      }
      const events = await storedEvents(s.workspaceId);
      expect(events.map((e) => [e.type, e.data.email, e.status, e.attempts]).sort()).toEqual(
        fresh.map((email) => ["contact.created", email, "pending", 0]).sort(),
      );
      expect(hook.got).toHaveLength(0);
      await ageDeliveries(s.workspaceId);
      await sweep();
      expect(hook.got).toHaveLength(2);
    } finally {
      await hook.close();
    }
  });

  it("a webhook-table error rolls back only the events' savepoint: every imported contact is kept (JSON and CSV)", async () => {
    const s = await subscribed(["contact.created"], "https://hooks.example.com/in");
    const mend = await breakWebhookTable(s.workspaceId);
    const logged: string[] = [];
    const json = [uniqueEmail("broken-a"), uniqueEmail("broken-b")];
    const csv = [uniqueEmail("broken-c"), uniqueEmail("broken-d")];
    try {
      const ctx = { ...t.ctx, log: { ...t.ctx.log, warn: (_o: object, m: string) => logged.push(m) } };
      const r = await importContactsJson(ctx as unknown as typeof t.ctx, s.workspaceId, {
        contacts: json.map((email) => ({ email, first_name: "Kept" })),
      });
      expect(r).toMatchObject({ created: 2, errors: 0 });
      const imp = await uploadCsv(s.client, `email,first_name\n${csv[0]},Kept\n${csv[1]},Kept\n`);
      expect(imp).toMatchObject({ status: "completed", created: 2 });
    } finally {
      await mend();
    }
    expect(logged).toEqual(["webhook event not stored"]); // the JSON import's (the job logs its own)
    expect(await contactEmails(s.workspaceId)).toEqual([...json, ...csv].sort());
    expect(await storedEvents(s.workspaceId)).toHaveLength(0);
  });

  it("an import nobody listens to sends nothing more per batch than the upsert (no savepoint, no read-back)", async () => {
    const quiet = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, quiet.user.id));
    const listening = await subscribed(["contact.created"], "https://hooks.example.com/in");
    const run = async (workspaceId: string) => {
      const watch = watchImportConnections();
      try {
        await importContactsJson(t.ctx, workspaceId, {
          contacts: [{ email: uniqueEmail("quiet"), first_name: "Q" }],
        });
      } finally {
        watch.restore();
      }
      return watch.sent;
    };
    const someone = await run(listening.workspaceId);
    // with a listener: the read-back and the events' inserts, in savepoints, before the commit
    const first = someone.indexOf("savepoint");
    const last = someone.lastIndexOf("release");
    expect(first).toBeGreaterThan(someone.indexOf("begin"));
    expect(someone.slice(first, last + 1)).toContain("insert");
    expect(someone.slice(last + 1)[0]).toBe("commit");
    // without one: the same statements less those
    expect(await run(quiet.user.id as string)).toEqual([
      ...someone.slice(0, first),
      ...someone.slice(last + 1),
    ]);
  });
});
