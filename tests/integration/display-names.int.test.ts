import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayNames, FORMER_MEMBER_NAME } from "../../src/server/features/user/user.service";
import {
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";
import { webhookReceiver } from "./webhook-receiver";

// Five places turned the id of whoever did something into a name (who launched a campaign, wrote a
// note, added a contact, created an API key, added a webhook endpoint), two falling back to the
// person's email when the name was blank and three showing nobody. They now all use user.service
// displayNames: the name, else the email, else 'A former member'.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
});
afterAll(async () => t?.close());

describe("one display name for whoever did something", () => {
  it("displayNames: the name, else the email, else 'A former member'; nulls and repeats are skipped", async () => {
    const named = await signUp(t.app, { name: "  Ana Owner  " });
    const blank = await signUp(t.app, { name: "Temp" });
    await t.db.execute(sql`update users set name = '  ' where id = ${blank.user.id}`);
    const gone = randomUUID();
    const names = await displayNames({ db: t.db }, [named.user.id, null, blank.user.id, gone, named.user.id]);
    expect([...names.entries()]).toEqual([
      [named.user.id, "Ana Owner"],
      [blank.user.id, blank.user.email],
      [gone, FORMER_MEMBER_NAME],
    ]);
    expect((await displayNames({ db: t.db }, [null, undefined])).size).toBe(0);
  });

  it("a member whose name is blank is shown by email as campaign launcher, note author, contact adder, API key and webhook creator", async () => {
    const owner = await signUp(t.app, { name: "Ana Owner", business_name: "Acme Roofing" });
    await setPlan(t, owner.user.id, "business");
    const ben = await joinWorkspace(t, owner.client, "admin", { name: "Ben Admin" });
    const rx = await webhookReceiver();
    try {
      const launched = await ben.client.post("/api/campaigns/email/launch", {
        campaignName: "Ben's newsletter",
        subject: "Spring offer",
        body: "Hi there",
        contacts: [{ name: "R", email: uniqueEmail("display-names") }],
      });
      expect(launched.statusCode, launched.body).toBe(200);
      const campaignId = launched.json().campaignId as number;
      const contact = await ben.client.post("/api/contacts", {
        first_name: "Dora",
        email: uniqueEmail("dora"),
      });
      expect(contact.statusCode, contact.body).toBe(200);
      const contactId = contact.json().contact.id as number;
      const note = await ben.client.post(`/api/contacts/${contactId}/notes`, { note_text: "Called her." });
      expect(note.statusCode, note.body).toBe(200);
      const key = await ben.client.post("/api/api-keys", { name: "Zap", scopes: ["contacts:read"] });
      expect(key.statusCode, key.body).toBe(200);
      const hook = await ben.client.post("/api/webhook-endpoints", {
        url: rx.url,
        events: ["contact.created"],
      });
      expect(hook.statusCode, hook.body).toBe(200);

      // a name left blank (accounts from before names were required)
      await t.db.execute(sql`update users set name = '' where id = ${ben.user.id}`);
      const email = ben.user.email;

      const detail = await owner.client.get(`/api/contacts/${contactId}`);
      expect(detail.statusCode, detail.body).toBe(200);
      expect(detail.json().added_by_name).toBe(email);
      expect(detail.json().notes[0].author_name).toBe(email);
      const list = await trpcCall(owner.client, "campaigns.list", undefined, "query");
      expect(list.status, JSON.stringify(list.error)).toBe(200);
      expect(
        (list.data as { id: number; launchedBy: string | null }[]).find((c) => c.id === campaignId)
          ?.launchedBy,
      ).toBe(email);
      const report = await owner.client.get(`/api/campaigns/${campaignId}`);
      expect(report.json().campaign.launchedBy).toBe(email);
      const keys = (await owner.client.get("/api/api-keys")).json().apiKeys as {
        name: string;
        creator_name: string | null;
      }[];
      expect(keys.find((k) => k.name === "Zap")?.creator_name).toBe(email);
      const endpoints = (await owner.client.get("/api/webhook-endpoints")).json().endpoints as {
        id: string;
        creator_name: string | null;
      }[];
      expect(endpoints.find((e) => e.id === hook.json().endpoint.id)?.creator_name).toBe(email);
    } finally {
      await rx.close();
    }
  });
});
