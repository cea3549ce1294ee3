import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { outboundWebhookEvents } from "../../src/server/db/schema";
import { addBusinessContacts } from "../../src/server/features/crm/crm.service";
import { createTestApp, setPlan, signUp, type TestApp, uniqueEmail } from "../helpers";
import { multipart } from "./studio-helpers";
import { webhookReceiver as receiver } from "./webhook-receiver";

// Issue 15's contact events on the paths that write many contacts at once: the v1 bulk upsert, the
// JSON import, the CSV file import (upload route + import job), bulk operations, campaign CSV
// recipients and lead search businesses added to contacts. Each event carries the single-contact
// events' data (the contact's public JSON, or {id, deleted: true}), is signed (verified with the
// standardwebhooks package), reaches only the workspace's own endpoints, and nothing is stored when
// no endpoint of the workspace subscribes.

const CONTACT_EVENTS = ["contact.created", "contact.updated", "contact.deleted"];

let t: TestApp;
type Receiver = Awaited<ReturnType<typeof receiver>>;
/** Another workspace with an endpoint subscribed to every contact event: must receive nothing. */
let bystander: Receiver;
beforeAll(async () => {
  // no simulated opens and clicks: they raise a campaign contact's engagement score after its
  // contact.created (crm ENGAGEMENT_POINTS), and the events are compared with the contact as it is now
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  bystander = await receiver();
  await workspace(CONTACT_EVENTS, bystander.url);
});
afterEach(() => {
  expect(bystander.got, "another workspace's endpoint received an event").toEqual([]);
});
afterAll(async () => {
  await bystander?.close();
  await t?.close();
});

/** A Business workspace with an API key (v1 calls) and an endpoint subscribed to `events` at `url`. */
async function workspace(events: string[], url: string) {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const { key } = (
    await u.client.post("/api/api-keys", {
      name: "hooks",
      scopes: ["contacts:read", "contacts:write", "campaigns:read", "campaigns:write", "webhooks:write"],
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
  return { ...u, workspaceId: u.user.id, call, secret: ep.json().secret as string };
}
type Workspace = Awaited<ReturnType<typeof workspace>>;

type Event = { type: string; data: Record<string, unknown> };

/** The events delivered so far (verified with the endpoint's secret; throws on a bad signature), then forgets them. */
function take(rx: Receiver, secret: string): Event[] {
  const events = rx.got.map(
    (g) =>
      new Webhook(secret).verify(g.body, {
        "webhook-id": String(g.headers["webhook-id"]),
        "webhook-timestamp": String(g.headers["webhook-timestamp"]),
        "webhook-signature": String(g.headers["webhook-signature"]),
      }) as Event,
  );
  rx.got.length = 0;
  return events;
}

const ofType = (events: Event[], type: string) => events.filter((e) => e.type === type);
const emails = (events: Event[]) => events.map((e) => e.data.email).sort();

/** The contact as GET /api/v1/contacts/{id} shows it (the single-contact events' data). */
async function contactJson(k: Workspace, id: unknown) {
  const r = await k.call("GET", `/contacts/${id}`);
  expect(r.statusCode, r.body).toBe(200);
  return r.json();
}

/** Creates one contact through the single-contact route; returns its id and its contact.created data. */
async function createOne(k: Workspace, rx: Receiver, email: string) {
  const r = await k.call("POST", "/contacts", { first_name: "Existing", email });
  expect(r.statusCode, r.body).toBe(201);
  const [single] = take(rx, k.secret);
  return { id: r.json().id as number, single };
}

/** Uploads a CSV through the real upload route (the inline job client runs the import job). */
async function uploadCsv(k: Workspace, csv: string, fields: Record<string, string> = {}) {
  const body = multipart(fields, {
    field: "file",
    filename: "contacts.csv",
    contentType: "text/csv",
    content: Buffer.from(csv),
  });
  const up = await k.client.inject({ method: "POST", url: "/api/contacts/import/upload", ...body });
  expect(up.statusCode, up.body).toBe(202);
  const status = await k.client.get(`/api/contacts/imports/${up.json().import.id}`);
  return status.json().import as { status: string; created: number; updated: number; skipped: number };
}

async function bulkOperation(k: Workspace, body: object) {
  const r = await k.client.post("/api/contacts/bulk/operation", body);
  expect(r.statusCode, r.body).toBe(200);
  const { success, ...counts } = r.json();
  expect(success).toBe(true);
  return counts;
}

describe("contact webhook events on bulk paths", () => {
  it("v1 bulk upsert: one contact.created per created row and one contact.updated per updated row, as the single events' data", async () => {
    const rx = await receiver();
    try {
      const k = await workspace(["contact.created", "contact.updated"], rx.url);
      const e0 = uniqueEmail("bulk-existing");
      const { id: id0, single } = await createOne(k, rx, e0);
      expect(single?.type).toBe("contact.created");
      const [e1, e2] = [uniqueEmail("bulk-new"), uniqueEmail("bulk-new")];
      const r = await k.call("POST", "/contacts/bulk", {
        contacts: [
          { email: e0, first_name: "Changed" },
          { email: e1, first_name: "One", company: "Acme" },
          { email: e2, first_name: "Two" },
        ],
      });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json()).toMatchObject({ created: 2, updated: 1 });
      const events = take(rx, k.secret);
      const created = ofType(events, "contact.created");
      const updated = ofType(events, "contact.updated");
      expect(events.length).toBe(3);
      expect(emails(created)).toEqual([e1, e2].sort());
      expect(updated.map((e) => e.data.id)).toEqual([id0]);
      // the same data as the single-contact events: the contact's public JSON as the API shows it
      expect(updated[0]?.data).toEqual(await contactJson(k, id0));
      expect(updated[0]?.data.first_name).toBe("Changed");
      for (const e of created) {
        expect(Object.keys(e.data)).toEqual(Object.keys(single?.data ?? {}));
        expect(e.data).toEqual(await contactJson(k, e.data.id));
      }
    } finally {
      await rx.close();
    }
  });

  it("JSON import: contact.created for created rows; contact.updated only for rows updated (on_duplicate update), none for skipped ones", async () => {
    const rx = await receiver();
    try {
      const k = await workspace(["contact.created", "contact.updated"], rx.url);
      const e0 = uniqueEmail("json-existing");
      const { id: id0 } = await createOne(k, rx, e0);
      const e1 = uniqueEmail("json-new");
      const skip = await k.client.post("/api/contacts/import", {
        contacts: [
          { email: e0, first_name: "Ignored" },
          { email: e1, first_name: "New" },
          { email: "not-an-email", first_name: "Rejected" },
        ],
      });
      expect(skip.statusCode, skip.body).toBe(200);
      expect(skip.json()).toMatchObject({ created: 1, updated: 0, skipped: 1, errors: 1 });
      const first = take(rx, k.secret);
      expect(first.map((e) => [e.type, e.data.email])).toEqual([["contact.created", e1]]);
      expect(first[0]?.data).toEqual(await contactJson(k, first[0]?.data.id));

      const upd = await k.client.post("/api/contacts/import", {
        contacts: [{ email: e0, company: "Updated Co" }],
        on_duplicate: "update",
      });
      expect(upd.json()).toMatchObject({ created: 0, updated: 1 });
      const second = take(rx, k.secret);
      expect(second.map((e) => [e.type, e.data.id, e.data.company])).toEqual([
        ["contact.updated", id0, "Updated Co"],
      ]);
    } finally {
      await rx.close();
    }
  });

  it("CSV file import (upload route and import job): contact.created per created contact and, in update mode, contact.updated per updated one", async () => {
    const rx = await receiver();
    try {
      const k = await workspace(["contact.created", "contact.updated"], rx.url);
      const e0 = uniqueEmail("csv-existing");
      const { id: id0 } = await createOne(k, rx, e0);
      const [e1, e2] = [uniqueEmail("csv-new"), uniqueEmail("csv-new")];
      const imp = await uploadCsv(
        k,
        `email,first_name,city\n${e0},Renamed,Austin\n${e1},Ann,Boston\n${e2},Bob,\nbroken,Nobody,\n`,
        { on_duplicate: "update" },
      );
      expect(imp).toMatchObject({ status: "completed", created: 2, updated: 1 });
      const events = take(rx, k.secret);
      expect(events.length).toBe(3);
      expect(emails(ofType(events, "contact.created"))).toEqual([e1, e2].sort());
      const [updated] = ofType(events, "contact.updated");
      expect(updated?.data).toMatchObject({ id: id0, email: e0, first_name: "Renamed", city: "Austin" });
      const ann = ofType(events, "contact.created").find((e) => e.data.email === e1);
      expect(ann?.data).toMatchObject({ first_name: "Ann", city: "Boston", lead_source: "csv_import" });
      expect(Object.keys(ann?.data ?? {}).sort()).toEqual(
        Object.keys(await contactJson(k, ann?.data.id)).sort(),
      );

      // skip mode: the existing contacts are left alone, so no event at all
      const again = await uploadCsv(k, `email,first_name\n${e0},Again\n${e1},Again\n`);
      expect(again).toMatchObject({ status: "completed", created: 0, updated: 0, skipped: 2 });
      expect(take(rx, k.secret)).toEqual([]);
    } finally {
      await rx.close();
    }
  });

  it("bulk operations: stage and status changes and tagging emit contact.updated, bulk delete contact.deleted with the deleted ids", async () => {
    const rx = await receiver();
    try {
      const k = await workspace(["contact.updated", "contact.deleted"], rx.url);
      const made = await k.call("POST", "/contacts/bulk", {
        contacts: [1, 2, 3].map((n) => ({ email: uniqueEmail(`op${n}`), first_name: `Op${n}` })),
      });
      expect(made.json()).toMatchObject({ created: 3 });
      expect(take(rx, k.secret)).toEqual([]); // contact.created is not subscribed
      const list = (await k.client.get("/api/contacts?limit=10")).json().contacts as { id: number }[];
      const [a, b, c] = list.map((x) => x.id).sort((x, y) => x - y) as [number, number, number];

      expect(
        await bulkOperation(k, {
          contactIds: [a, b],
          operation: "update_stage",
          data: { lifecycle_stage: "customer" },
        }),
      ).toEqual({ updated: 2 });
      const staged = take(rx, k.secret);
      expect(staged.map((e) => [e.type, e.data.id, e.data.lifecycle_stage])).toEqual([
        ["contact.updated", a, "customer"],
        ["contact.updated", b, "customer"],
      ]);
      expect(staged[1]?.data).toEqual(await contactJson(k, b));

      // a whole filter's result
      expect(
        await bulkOperation(k, {
          filter: {},
          operation: "update_status",
          data: { lead_status: "qualified" },
        }),
      ).toEqual({ updated: 3 });
      expect(take(rx, k.secret).map((e) => [e.data.id, e.data.lead_status])).toEqual([
        [a, "qualified"],
        [b, "qualified"],
        [c, "qualified"],
      ]);

      const made2 = await k.client.post("/api/contacts/tags", { name: "vip" });
      expect(made2.statusCode, made2.body).toBe(200);
      const tag = made2.json().tag as { id: number };
      expect(
        await bulkOperation(k, { contactIds: [c], operation: "add_tag", data: { tag_id: tag.id } }),
      ).toEqual({
        tagged: 1,
      });
      expect(take(rx, k.secret).map((e) => [e.type, e.data.id])).toEqual([["contact.updated", c]]);
      // already tagged: counted as tagged, but the contact did not change
      expect(
        await bulkOperation(k, { contactIds: [b, c], operation: "add_tag", data: { tag_id: tag.id } }),
      ).toEqual({ tagged: 2 });
      expect(take(rx, k.secret).map((e) => e.data.id)).toEqual([b]);
      expect(
        await bulkOperation(k, { filter: {}, operation: "remove_tag", data: { tag_id: tag.id } }),
      ).toEqual({ untagged: 2 });
      expect(
        take(rx, k.secret)
          .map((e) => e.data.id)
          .sort((x, y) => Number(x) - Number(y)),
      ).toEqual([b, c]);

      // the v1 single-contact forms: a new tag on a contact is an update, a repeat is not; untagging is
      const tagA = () => k.call("POST", `/contacts/${a}/tags`, { tag_id: tag.id });
      expect((await tagA()).statusCode).toBe(200);
      expect(take(rx, k.secret).map((e) => [e.type, e.data.id])).toEqual([["contact.updated", a]]);
      expect((await tagA()).statusCode).toBe(200);
      expect(take(rx, k.secret)).toEqual([]);
      expect((await k.call("DELETE", `/contacts/${a}/tags/${tag.id}`)).statusCode).toBe(200);
      expect(take(rx, k.secret).map((e) => [e.type, e.data.id])).toEqual([["contact.updated", a]]);

      expect(await bulkOperation(k, { filter: {}, excludeIds: [b], operation: "delete" })).toEqual({
        deleted: 2,
      });
      const deleted = take(rx, k.secret);
      expect(deleted.map((e) => e.type)).toEqual(["contact.deleted", "contact.deleted"]);
      expect(deleted.map((e) => e.data).sort((x, y) => Number(x.id) - Number(y.id))).toEqual([
        { id: a, deleted: true },
        { id: c, deleted: true },
      ]);
      expect((await k.call("GET", `/contacts/${a}`)).statusCode).toBe(404);
    } finally {
      await rx.close();
    }
  });

  it("campaign CSV recipients: contact.created for each contact the campaign creates, none for existing ones", async () => {
    const rx = await receiver();
    try {
      const k = await workspace(["contact.created"], rx.url);
      const e0 = uniqueEmail("camp-existing");
      await createOne(k, rx, e0);
      const e1 = uniqueEmail("camp-new");
      const launch = await k.call("POST", "/campaigns", {
        name: "Recipients",
        channel: "email",
        content: { subject: "Hi", body: "Hello" },
        audience: {
          contacts: [
            { first_name: "Old", email: e0 },
            { first_name: "New", email: e1 },
          ],
        },
      });
      expect(launch.statusCode, launch.body).toBe(201);
      const events = take(rx, k.secret);
      expect(events.map((e) => [e.type, e.data.email])).toEqual([["contact.created", e1]]);
      expect(events[0]?.data).toEqual(await contactJson(k, events[0]?.data.id));
    } finally {
      await rx.close();
    }
  });

  it("lead search businesses added to contacts: contact.created for created ones, contact.updated for filled ones", async () => {
    const rx = await receiver();
    try {
      const k = await workspace(["contact.created", "contact.updated"], rx.url);
      const e0 = uniqueEmail("biz-existing");
      const { id: id0 } = await createOne(k, rx, e0);
      const r = await addBusinessContacts(t.ctx, k.workspaceId, [
        { placeId: "place-known", name: "Known Biz", email: e0, website: "https://known.example" },
        { placeId: "place-new", name: "New Biz", phone: "+15125550111" },
      ]);
      expect(r).toMatchObject({ created: 1, updated: 1 });
      const events = take(rx, k.secret);
      expect(events.map((e) => [e.type, e.data.company ?? e.data.email])).toEqual(
        expect.arrayContaining([
          ["contact.created", "New Biz"],
          ["contact.updated", e0],
        ]),
      );
      expect(events.length).toBe(2);
      const [updated] = ofType(events, "contact.updated");
      expect(updated?.data).toEqual(await contactJson(k, id0));
      expect(updated?.data.website).toBe("https://known.example");
    } finally {
      await rx.close();
    }
  });

  it("no endpoint subscribed to contact events: the bulk paths store no event and deliver nothing", async () => {
    const rx = await receiver();
    try {
      // an endpoint exists, for another event type
      const k = await workspace(["campaign.completed"], rx.url);
      const e0 = uniqueEmail("quiet");
      const made = await k.call("POST", "/contacts/bulk", {
        contacts: [
          { email: e0, first_name: "Q" },
          { email: uniqueEmail("quiet"), first_name: "R" },
        ],
      });
      expect(made.json()).toMatchObject({ created: 2 });
      const imp = await k.client.post("/api/contacts/import", {
        contacts: [{ email: e0, company: "X" }, { email: uniqueEmail("quiet") }],
        on_duplicate: "update",
      });
      expect(imp.json()).toMatchObject({ created: 1, updated: 1 });
      const file = await uploadCsv(k, `email,first_name\n${e0},S\n${uniqueEmail("quiet")},T\n`, {
        on_duplicate: "update",
      });
      expect(file).toMatchObject({ status: "completed", created: 1, updated: 1 });
      expect(
        await bulkOperation(k, {
          filter: {},
          operation: "update_stage",
          data: { lifecycle_stage: "customer" },
        }),
      ).toEqual({ updated: 4 });
      expect(await bulkOperation(k, { filter: {}, operation: "delete" })).toEqual({ deleted: 4 });
      const stored = await t.db
        .select({ id: outboundWebhookEvents.id })
        .from(outboundWebhookEvents)
        .where(eq(outboundWebhookEvents.workspaceId, k.workspaceId));
      expect(stored).toEqual([]);
      expect(rx.got).toEqual([]);
    } finally {
      await rx.close();
    }
  });
});
