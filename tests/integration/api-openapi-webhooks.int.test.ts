import { createHmac } from "node:crypto";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { API_SCOPES } from "../../src/server/features/api/api.schemas";
import { WEBHOOK_EVENT_TYPES } from "../../src/server/features/webhooks/webhooks.schemas";
import { campaignRecipientRows, createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// The OpenAPI document is what an outside developer reads (/docs/api). It described every /api/v1
// route but not one outbound webhook event: no `webhooks`, so what a receiver gets in `data` for
// contact.created, message.sent or lead_search.completed was nowhere to be read. Each event type now
// has an entry (OpenAPI 3.1 `webhooks`) whose request body is checked here against real deliveries.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

type Op = {
  parameters: { name: string; in: string; required: boolean }[];
  requestBody: { content: { "application/json": { schema: object; example: unknown } } };
};

describe("OpenAPI document: outbound webhook events", () => {
  it("describes every event type, and real deliveries match their event's body schema", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const ops = doc.webhooks as Record<string, { post: Op }>;
    for (const type of WEBHOOK_EVENT_TYPES) {
      const headers = ops[type]!.post.parameters.filter((p) => p.in === "header").map((p) => p.name);
      expect(headers).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    }
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const bodySchema = (type: string) => ops[type]!.post.requestBody.content["application/json"].schema;

    const rx = await webhookReceiver();
    try {
      const u = await signUp(t.app);
      await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
      const { key } = (await u.client.post("/api/api-keys", { name: "all", scopes: API_SCOPES })).json();
      const call = (method: string, p: string, payload?: object) =>
        t.app.inject({
          method: method as "POST",
          url: `/api/v1${p}`,
          headers: { authorization: `Bearer ${key}` },
          ...(payload ? { payload } : {}),
        });
      const ep = await call("POST", "/webhook_endpoints", { url: rx.url, events: WEBHOOK_EVENT_TYPES });
      expect(ep.statusCode, ep.body).toBe(201);
      const secret = ep.json().secret as string;

      const email = uniqueEmail("doc-hooks");
      const created = await call("POST", "/contacts", {
        first_name: "Doc",
        email,
        custom_fields: { tier: 1 },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id;
      expect((await call("PATCH", `/contacts/${id}`, { company: "Acme" })).statusCode).toBe(200);
      const launch = await call("POST", "/campaigns", {
        name: "Doc hooks",
        channel: "email",
        content: { subject: "Hi", body: "Hello {{first_name}}" },
        audience: { contact_ids: [id] },
      });
      expect(launch.statusCode, launch.body).toBe(201);
      // a scheduled campaign moved to another time: campaign.rescheduled
      const later = await call("POST", "/campaigns", {
        name: "Doc hooks later",
        channel: "email",
        content: { subject: "Hi", body: "Hello {{first_name}}" },
        audience: { contact_ids: [id] },
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
      expect(later.statusCode, later.body).toBe(201);
      const moved = await call("POST", `/campaigns/${later.json().campaign.id}/reschedule`, {
        scheduled_at: new Date(Date.now() + 7_200_000).toISOString(),
      });
      expect(moved.statusCode, moved.body).toBe(200);
      const [row] = await campaignRecipientRows(t, launch.json().campaign.id);
      expect((await t.app.inject({ method: "POST", url: `/u/${row!.token}` })).statusCode).toBe(200);
      const search = await call("POST", "/lead_searches", {
        location: "Austin, TX",
        business_type: "dentist",
      });
      expect(search.statusCode, search.body).toBe(201);
      expect((await call("DELETE", `/contacts/${id}`)).statusCode).toBe(200);
      const test = await call("POST", `/webhook_endpoints/${ep.json().id}/test`);
      expect(test.statusCode, test.body).toBe(200);
      // a test event of every type: its example data, which the document's schema must accept too
      for (const type of WEBHOOK_EVENT_TYPES) {
        const typed = await call("POST", `/webhook_endpoints/${ep.json().id}/test`, { type });
        expect(typed.statusCode, typed.body).toBe(200);
      }

      const events = rx.got.map(
        (g) =>
          new Webhook(secret).verify(g.body, {
            "webhook-id": String(g.headers["webhook-id"]),
            "webhook-timestamp": String(g.headers["webhook-timestamp"]),
            "webhook-signature": String(g.headers["webhook-signature"]),
          }) as { type: string; data: Record<string, unknown> },
      );
      // by hand, as the document's webhook-signature description says: the key is the secret's
      // base64 part after whsec_, decoded (a developer keying with the secret's text never matches)
      const described = ops["contact.created"]!.post.parameters.find((p) => p.name === "webhook-signature");
      expect(JSON.stringify(described)).toContain(
        "base64-decoded part of the endpoint's secret after `whsec_`",
      );
      for (const g of rx.got) {
        const signed = `${g.headers["webhook-id"]}.${g.headers["webhook-timestamp"]}.${g.body}`;
        const byHand = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
          .update(signed)
          .digest("base64");
        expect(String(g.headers["webhook-signature"]).split(" ")).toContain(`v1,${byHand}`);
      }
      const types = new Set(events.map((e) => e.type));
      for (const type of [
        "contact.created",
        "contact.updated",
        "contact.deleted",
        "contact.unsubscribed",
        "campaign.launched",
        "campaign.rescheduled",
        "campaign.completed",
        "message.sent",
        "lead_search.completed",
      ])
        expect(types, `no ${type} delivered`).toContain(type);
      for (const e of events) {
        const valid = ajv.validate(bodySchema(e.type), e);
        expect(valid, `${e.type} ${JSON.stringify(e.data)}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      }
      // the test events (the type's example with test: true) are described too, one of each type
      const tests = events.filter((e) => e.data.test === true);
      expect(new Set(tests.map((e) => e.type))).toEqual(new Set(WEBHOOK_EVENT_TYPES));
      // and each operation's example is a valid body of its type
      for (const type of WEBHOOK_EVENT_TYPES) {
        const example = ops[type]!.post.requestBody.content["application/json"].example;
        expect(
          ajv.validate(bodySchema(type), example),
          `${type} example: ${ajv.errorsText(ajv.errors)}`,
        ).toBe(true);
      }
    } finally {
      await rx.close();
    }
  });
});
