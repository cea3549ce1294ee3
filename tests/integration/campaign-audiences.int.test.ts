import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignRecipients, campaigns, contacts, workspaces } from "../../src/server/db/schema";
import { suppress } from "../../src/server/features/compliance/compliance.service";
import {
  type AuthedClient,
  createTestApp,
  setPlan,
  signUp,
  type TestApp,
  trpcCall as trpc,
} from "../helpers";

/*
 * Issue 14: campaign audiences from the CRM (segment, tag, filter, chosen ids) on every launch call,
 * the preflight that tells the truth before a launch, and the refusal of a launch that would reach
 * nobody.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** An IANA zone (Etc/GMT±n) whose local hour is `hour` right now. */
function zoneAtLocalHour(hour: number): string {
  const h = new Date().getUTCHours();
  let o = (((hour - h) % 24) + 24) % 24;
  if (o > 14) o -= 24;
  return o === 0 ? "Etc/GMT" : o > 0 ? `Etc/GMT-${o}` : `Etc/GMT+${-o}`;
}

let seq = 0;
/** Inserts contacts directly (exact opt-ins and zones); returns their ids in order. */
async function addContacts(
  workspaceId: string,
  rows: Partial<typeof contacts.$inferInsert>[],
): Promise<number[]> {
  const out = await t.db
    .insert(contacts)
    .values(
      rows.map((r) => {
        seq += 1;
        return {
          workspaceId,
          firstName: `C${seq}`,
          email: `c${seq}-${process.pid}-${Date.now()}@example.com`,
          phone: `+1212555${String(1000 + (seq % 9000)).padStart(4, "0")}`,
          timezone: zoneAtLocalHour(12),
          ...r,
        };
      }),
    )
    .returning({ id: contacts.id });
  return out.map((r) => r.id);
}

async function tagContacts(client: AuthedClient, name: string, ids: number[]): Promise<number> {
  const tag = await client.post("/api/contacts/tags", { name });
  expect(tag.statusCode, tag.body).toBe(200);
  const tagId = (tag.json().tag ?? tag.json()).id as number;
  const bulk = await client.post("/api/contacts/bulk/operation", {
    contactIds: ids,
    operation: "add_tag",
    data: { tag_id: tagId },
  });
  expect(bulk.statusCode, bulk.body).toBe(200);
  return tagId;
}

async function recipientsOf(campaignId: number) {
  return t.db.select().from(campaignRecipients).where(eq(campaignRecipients.campaignId, campaignId));
}

async function paidUser() {
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  return u;
}

describe("audience sources on the launch calls", () => {
  it("SMS launch at a tag: only the tagged contacts, consent covers not-opted-in, opt-outs stay skipped", async () => {
    const { client, user } = await paidUser();
    const [optedIn, notOptedIn, stopped, noPhone, untagged] = await addContacts(user.id, [
      { smsOptIn: true },
      { smsOptIn: false },
      { smsOptIn: true, phone: "+12125559901" },
      { smsOptIn: true, phone: null },
      { smsOptIn: true },
    ]);
    await suppress(t.db, user.id, "sms", "+12125559901", "stop_reply");
    const tagId = await tagContacts(client, "VIP", [optedIn, notOptedIn, stopped, noPhone]);

    const res = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Tag launch",
      message: "Hi {{first_name|there}}",
      audience: { tagId },
      includeNotOptedIn: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().recipients).toBe(2);
    expect(res.json().skipped).toEqual({ "opted out: replied STOP": 1, "no valid phone number": 1 });
    const rows = await recipientsOf(res.json().campaignId);
    expect(rows.map((r) => r.contactId).sort()).toEqual([optedIn, notOptedIn, stopped, noPhone].sort());
    expect(rows.some((r) => r.contactId === untagged)).toBe(false);
    const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, res.json().campaignId));
    expect(c.source).toBe("tag");
  });

  it("email launch to a saved segment evaluates the segment's filter now", async () => {
    const { client, user } = await paidUser();
    const [customer1, customer2, lead] = await addContacts(user.id, [
      { lifecycleStage: "customer" },
      { lifecycleStage: "customer", emailOptIn: false },
      { lifecycleStage: "lead" },
    ]);
    const seg = await client.post("/api/contacts/lists", {
      name: "Customers",
      filter: { lifecycle_stage: "customer" },
    });
    expect(seg.statusCode, seg.body).toBe(200);
    const segmentId = (seg.json().list ?? seg.json()).id as number;
    // a contact that joins the segment after it was saved is included
    const [late] = await addContacts(user.id, [{ lifecycleStage: "customer" }]);
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Segment mail",
      subject: "Hello",
      body: "Hi {{first_name|there}}",
      audience: { segmentId },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().recipients).toBe(2);
    expect(res.json().skipped).toEqual({ "opted out of email": 1 });
    const ids = (await recipientsOf(res.json().campaignId)).map((r) => r.contactId).sort();
    expect(ids).toEqual([customer1, customer2, late].sort());
    expect(ids).not.toContain(lead);
    const [c] = await t.db.select().from(campaigns).where(eq(campaigns.id, res.json().campaignId));
    expect(c).toMatchObject({ source: "segment", segmentId });
  });

  it("generic launch and tRPC create accept a contacts-list filter (search + stage + status + tag)", async () => {
    const { client, user } = await paidUser();
    const [a, b, c, d] = await addContacts(user.id, [
      { company: "Rivera Plumbing", lifecycleStage: "prospect", leadStatus: "qualified", callOptIn: true },
      { company: "Rivera Plumbing", lifecycleStage: "prospect", leadStatus: "new", callOptIn: true },
      { company: "Other Co", lifecycleStage: "prospect", leadStatus: "qualified", callOptIn: true },
      { company: "Rivera Plumbing", lifecycleStage: "prospect", leadStatus: "qualified", callOptIn: true },
    ]);
    const tagId = await tagContacts(client, "Plumbers", [a, b, c]);
    const filter = { search: "rivera", stage: "prospect", status: "qualified", tagId };
    const rest = await client.post("/api/campaigns", {
      name: "Calls",
      channel: "voice",
      content: { script: "Hello {{first_name}}" },
      audience: { filter },
    });
    expect(rest.statusCode, rest.body).toBe(200);
    expect((await recipientsOf(rest.json().campaignId)).map((r) => r.contactId)).toEqual([a]);
    const viaTrpc = await trpc(
      client,
      "campaigns.create",
      {
        name: "Calls 2",
        channel: "voice",
        content: { script: "Hello" },
        audience: { filter: { search: "rivera", stage: "prospect", status: "qualified" } },
      },
      "mutation",
    );
    expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
    const ids = (await recipientsOf(viaTrpc.data.campaign.id)).map((r) => r.contactId).sort();
    expect(ids).toEqual([a, d].sort());
    expect(ids).not.toContain(b);
  });

  it("chosen contact ids (the CRM picker) keep only the workspace's own contacts", async () => {
    const { client, user } = await paidUser();
    const other = await paidUser();
    const [mine1, mine2] = await addContacts(user.id, [{ smsOptIn: true }, { smsOptIn: true }]);
    const [theirs] = await addContacts(other.user.id, [{ smsOptIn: true }]);
    const res = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Picked",
      message: "Hi",
      audience: { contactIds: [mine1, mine2, theirs] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().recipients).toBe(2);
    const ids = (await recipientsOf(res.json().campaignId)).map((r) => r.contactId).sort();
    expect(ids).toEqual([mine1, mine2].sort());
  });

  it("'select all N matching' minus unticked contacts: excludeIds leaves them out of the recipients", async () => {
    const { client, user } = await paidUser();
    const other = await paidUser();
    const [a, b, c, d] = await addContacts(user.id, [
      { company: "Excl Bakery", smsOptIn: true },
      { company: "Excl Bakery", smsOptIn: true },
      { company: "Excl Bakery", smsOptIn: true },
      { company: "Excl Bakery", smsOptIn: true },
    ]);
    const [theirs] = await addContacts(other.user.id, [{ company: "Excl Bakery", smsOptIn: true }]);
    const audience = { filter: { search: "excl bakery" }, excludeIds: [b, d, theirs] };
    const pre = await client.post("/api/campaigns/preflight", { channel: "sms", audience });
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json()).toMatchObject({ audienceSize: 2 });
    const res = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Excl",
      message: "Hi",
      audience,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().recipients).toBe(2);
    const ids = (await recipientsOf(res.json().campaignId)).map((r) => r.contactId).sort();
    expect(ids).toEqual([a, c].sort());
    // the same through tRPC, at a tag
    const tagId = await tagContacts(client, "Excl", [a, b, c]);
    const viaTrpc = await trpc(
      client,
      "campaigns.create",
      { name: "Excl 2", channel: "sms", content: { message: "Hi" }, audience: { tagId, excludeIds: [a] } },
      "mutation",
    );
    expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
    expect((await recipientsOf(viaTrpc.data.campaign.id)).map((r) => r.contactId).sort()).toEqual(
      [b, c].sort(),
    );
    // excluding everyone: nobody to send to (422), not a launch to the whole filter
    const none = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Excl none",
      message: "Hi",
      audience: { filter: { search: "excl bakery" }, excludeIds: [a, b, c, d] },
    });
    expect(none.statusCode, none.body).toBe(400);
    // malformed exclusions are refused with a sentence
    const bad = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Excl bad",
      message: "Hi",
      audience: { filter: {}, excludeIds: ["x"] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain("Exclude IDs");
    const withIds = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Excl ids",
      message: "Hi",
      audience: { contactIds: [a], excludeIds: [a] },
    });
    expect(withIds.statusCode).toBe(400);
    expect(withIds.json().error).toContain("Exclude IDs goes with a segment, tag or filter");
  });

  it("the spec's contacts arrays keep working beside the audience", async () => {
    const { client, user } = await paidUser();
    const [tagged] = await addContacts(user.id, [{}]);
    const tagId = await tagContacts(client, "Mix", [tagged]);
    const csvEmail = `csv-${Date.now()}@example.com`;
    const res = await client.post("/api/campaigns/email/launch", {
      campaignName: "Both",
      subject: "S",
      body: "B",
      contacts: [{ name: "Csv Person", email: csvEmail }],
      audience: { tagId },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().recipients).toBe(2);
  });

  it("refuses another workspace's segment or tag (404), malformed audiences (400) and unknown filter keys", async () => {
    const a = await paidUser();
    const b = await paidUser();
    const tagId = await tagContacts(b.client, "Theirs", await addContacts(b.user.id, [{ smsOptIn: true }]));
    const seg = await b.client.post("/api/contacts/lists", { name: "Theirs", filter: {} });
    const segmentId = (seg.json().list ?? seg.json()).id as number;
    const base = { campaignName: "X", message: "Hi", includeNotOptedIn: true };
    const r1 = await a.client.post("/api/campaigns/sms/launch", { ...base, audience: { tagId } });
    expect(r1.statusCode).toBe(404);
    expect(r1.json().error).toBe("Tag not found");
    const r2 = await a.client.post("/api/campaigns/sms/launch", { ...base, audience: { segmentId } });
    expect(r2.statusCode).toBe(404);
    const r3 = await a.client.post("/api/campaigns/sms/launch", {
      ...base,
      audience: { filter: { tagId } },
    });
    expect(r3.statusCode).toBe(404);
    const r4 = await a.client.post("/api/campaigns/sms/launch", {
      ...base,
      audience: { tagId: 1, segmentId: 2 },
    });
    expect(r4.statusCode).toBe(400);
    expect(r4.json().error).toContain("exactly one");
    const r5 = await a.client.post("/api/campaigns/sms/launch", {
      ...base,
      audience: { filter: { stag: "lead" } },
    });
    expect(r5.statusCode).toBe(400);
    expect(r5.json().error).toMatch(/stag/);
    const r6 = await a.client.post("/api/campaigns/sms/launch", {
      ...base,
      audience: { filter: { stage: "vip" } },
    });
    expect(r6.statusCode).toBe(400);
    expect(r6.json().error).toContain("Stage must be one of");
  });
});

describe("launches that tell the truth", () => {
  it("a launch that would reach nobody is refused with the reasons and creates no campaign", async () => {
    const { client, user } = await paidUser();
    const ids = await addContacts(user.id, [{ smsOptIn: false }, { smsOptIn: false }, { phone: null }]);
    const tagId = await tagContacts(client, "Cold", ids);
    const res = await client.post("/api/campaigns/sms/launch", {
      campaignName: "Nobody",
      message: "Hi",
      audience: { tagId },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toBe(
      "Nobody would receive this campaign: 2 not opted in to SMS, 1 no valid phone number. Confirm you have their consent to include contacts who have not opted in.",
    );
    expect(res.json().skipped).toEqual({ "not opted in to SMS": 2, "no valid phone number": 1 });
    const rows = await t.db.select().from(campaigns).where(eq(campaigns.workspaceId, user.id));
    expect(rows).toHaveLength(0);
    // the same through tRPC: UNPROCESSABLE_CONTENT with the sentence
    const viaTrpc = await trpc(
      client,
      "campaigns.create",
      { name: "Nobody", channel: "sms", content: { message: "Hi" }, audience: { tagId } },
      "mutation",
    );
    expect(viaTrpc.status).toBe(422);
    expect(viaTrpc.error?.message).toContain("Nobody would receive this campaign");
  });

  it("preflight: audience size, sent now, deferred by quiet hours with the window start, skipped by reason", async () => {
    const { client, user } = await paidUser();
    const night = zoneAtLocalHour(3);
    const ids = await addContacts(user.id, [
      { smsOptIn: true },
      { smsOptIn: true },
      { smsOptIn: true, timezone: night },
      { smsOptIn: false },
      { smsOptIn: true, phone: "+12125559902" },
    ]);
    await suppress(t.db, user.id, "sms", "+12125559902", "stop_reply");
    const tagId = await tagContacts(client, "Pre", ids);
    const body = { channel: "sms", campaignName: "P", message: "Hi", audience: { tagId } };
    const before = Date.now();
    const res = await client.post("/api/campaigns/preflight", body);
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json();
    expect(p).toMatchObject({
      success: true,
      audienceSize: 5,
      willSendNow: 2,
      deferred: { count: 1 },
      skipped: { "not opted in to SMS": 1, "opted out: replied STOP": 1 },
    });
    // the review step's merge-tag preview reads the first recipient sent to (a tag audience: the
    // client knows no contact of it; the preview showed only the fallbacks), with every field the
    // send merges (campaign-preview-and-list-skips.int)
    const [first] = await t.db
      .select({ firstName: contacts.firstName, email: contacts.email, phone: contacts.phone })
      .from(contacts)
      .where(eq(contacts.id, ids[0] as number));
    expect(p.sample).toMatchObject({
      first_name: first?.firstName,
      last_name: "",
      email: first?.email,
      phone: first?.phone,
      company: "",
      id: ids[0],
      firstName: first?.firstName,
    });
    // 03:xx local now: sending starts at 08:00 local, 4 to 5 hours from now
    const wait = new Date(p.deferred.nextWindowStart).getTime() - before;
    expect(wait).toBeGreaterThan(4 * 3_600_000 - 120_000);
    expect(wait).toBeLessThanOrEqual(5 * 3_600_000 + 60_000);
    // with consent the not-opted-in contact counts, the opt-out never does
    const consent = (
      await client.post("/api/campaigns/preflight", { ...body, includeNotOptedIn: true })
    ).json();
    expect(consent).toMatchObject({
      willSendNow: 3,
      deferred: { count: 1 },
      skipped: { "opted out: replied STOP": 1 },
    });
    // tRPC gives the same numbers
    const viaTrpc = await trpc(
      client,
      "campaigns.preflight",
      { ...body, includeNotOptedIn: true },
      "mutation",
    );
    expect(viaTrpc.data).toEqual({
      audienceSize: consent.audienceSize,
      willSendNow: consent.willSendNow,
      deferred: consent.deferred,
      skipped: consent.skipped,
      sample: consent.sample,
    });
    // and the launch agrees: queued = willSendNow + deferred, same skipped
    const launched = await client.post("/api/campaigns/sms/launch", { ...body, includeNotOptedIn: true });
    expect(launched.statusCode, launched.body).toBe(200);
    expect(launched.json().recipients).toBe(consent.willSendNow + consent.deferred.count);
    expect(launched.json().skipped).toEqual(consent.skipped);
    // preflight created nothing
    const n = await t.db.select().from(campaigns).where(eq(campaigns.workspaceId, user.id));
    expect(n).toHaveLength(1);
  });

  it("preflight of CSV rows matches existing contacts and counts new rows with the CRM defaults, creating none", async () => {
    const { client, user } = await paidUser();
    const [known] = await addContacts(user.id, [{ smsOptIn: true, phone: "+12125559903" }]);
    expect(known).toBeGreaterThan(0);
    const count = async () =>
      (
        await t.db
          .select({ n: sql<number>`count(*)::int` })
          .from(contacts)
          .where(eq(contacts.workspaceId, user.id))
      )[0].n;
    const before = await count();
    const res = await client.post("/api/campaigns/preflight", {
      channel: "sms",
      contacts: [
        { name: "Known", phone: "(212) 555-9903" },
        { name: "New one", phone: "+1 212 555 9904" },
        { name: "New again", phone: "2125559904" },
        { name: "Bad", phone: "12" },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      audienceSize: 2,
      willSendNow: 1,
      // a row with neither a valid email nor phone is no contact: skipped with the reason, as at launch
      skipped: { "not opted in to SMS": 1, "no valid email or phone number": 1 },
    });
    expect(await count()).toBe(before);
    // email: a video body's deliveryMethod picks the channel; rows without an email are left out as at launch
    const mail = await client.post("/api/campaigns/preflight", {
      deliveryMethod: "email",
      contacts: [
        { name: "A", email: `a-${Date.now()}@example.com` },
        { name: "B", phone: "+12125550000" },
      ],
    });
    expect(mail.json()).toMatchObject({ audienceSize: 1, willSendNow: 1, skipped: {} });
    const noChannel = await client.post("/api/campaigns/preflight", { contacts: [] });
    expect(noChannel.statusCode).toBe(400);
    expect(noChannel.json().error).toContain("channel is required");
  });

  it("a list naming one person twice says so: preflight and launch count the row as a duplicate, and one message goes", async () => {
    const { client, user } = await paidUser();
    const stamp = Date.now();
    const [known] = await addContacts(user.id, [{ email: `known-${stamp}@example.com` }]);
    expect(known).toBeGreaterThan(0);
    const csv = [
      { name: "Known", email: `known-${stamp}@example.com` },
      { name: "Known again", email: `KNOWN-${stamp}@example.com` },
      { name: "New", email: `new-${stamp}@example.com` },
      { name: "New again", email: ` new-${stamp}@Example.com` },
      { name: "Other", email: `other-${stamp}@example.com` },
    ];
    const body = {
      name: "Dupes",
      channel: "email",
      content: { subject: "Hi", body: "Hello" },
      recipients: { csv },
    };
    const pre = await client.post("/api/campaigns/preflight", body);
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json()).toMatchObject({
      audienceSize: 3,
      willSendNow: 3,
      skipped: { "duplicate address": 2 },
    });
    const launched = await client.post("/api/campaigns", body);
    expect(launched.statusCode, launched.body).toBe(200);
    expect(launched.json().recipients).toBe(3);
    expect(launched.json().skipped).toEqual(pre.json().skipped);
    const sent = await recipientsOf(launched.json().campaignId);
    expect(sent).toHaveLength(3);
  });

  it("resolves 12,000 contacts of a filter in pages with the workspace's rules", async () => {
    const { client, user } = await paidUser();
    await t.db.execute(sql`
      insert into contacts (workspace_id, first_name, email, phone, sms_opt_in, lifecycle_stage, timezone)
      select ${user.id}, 'Bulk ' || g, 'bulk' || g || '-' || ${String(Date.now())} || '@example.com',
        '+1415' || lpad(g::text, 7, '0'), g % 4 <> 0, 'customer', ${zoneAtLocalHour(12)}
      from generate_series(1, 12000) g`);
    const res = await client.post("/api/campaigns/preflight", {
      channel: "sms",
      audience: { filter: { stage: "customer" } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      audienceSize: 12000,
      willSendNow: 9000,
      skipped: { "not opted in to SMS": 3000 },
    });
    const email = await client.post("/api/campaigns/preflight", {
      channel: "email",
      audience: { filter: { stage: "customer", search: "bulk1200" } },
    });
    // the substring "bulk1200" of the emails: bulk1200 and bulk12000
    expect(email.json()).toMatchObject({ audienceSize: 2, willSendNow: 2 });
  });
});

describe("public API v1 campaign create", () => {
  it("accepts tag_id and filter audiences", async () => {
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    const key = await u.client.post("/api/api-keys", { name: "CI", scopes: ["campaigns:write"] });
    expect(key.statusCode, key.body).toBe(200);
    const bearer = { authorization: `Bearer ${key.json().key}` };
    const ids = await addContacts(u.user.id, [{ lifecycleStage: "advocate" }, { lifecycleStage: "lead" }]);
    const tagId = await tagContacts(u.client, "Api", ids);
    const create = (audience: unknown) =>
      t.app.inject({
        method: "POST",
        url: "/api/v1/campaigns",
        headers: bearer,
        payload: { name: "Api", channel: "email", content: { subject: "S", body: "B" }, audience },
      });
    const byTag = await create({ tag_id: tagId });
    expect(byTag.statusCode, byTag.body).toBe(201);
    expect(byTag.json().queued).toBe(2);
    // the filter has the names of a segment's filter (snake_case), not the app's stage / tagId
    const byFilter = await create({ filter: { lifecycle_stage: "advocate", tag_id: tagId } });
    expect(byFilter.statusCode, byFilter.body).toBe(201);
    expect(byFilter.json().queued).toBe(1);
    const [rec] = await t.db
      .select()
      .from(campaignRecipients)
      .where(and(eq(campaignRecipients.campaignId, byFilter.json().campaign.id)));
    expect(rec.contactId).toBe(ids[0]);
    const bad = await create({ filter: { lifecycle_stage: "nope" } });
    expect(bad.statusCode).toBe(400);
    const camel = await create({ filter: { stage: "advocate", tagId } });
    expect(camel.statusCode).toBe(400);
    expect(camel.json().error.param).toBe("audience.filter.stage");
  });
});
