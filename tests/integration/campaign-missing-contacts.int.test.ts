import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, outboxCountsTo, signUp, type TestApp, trpcCall, uniqueEmail } from "../helpers";

// A launch naming contact ids that are no contact of the workspace (deleted since they were picked,
// never existing, another workspace's) left them out without a word: `queued` was lower than the ids
// sent and `skipped` named nothing. They are now counted as skipped "contact not found" by the launch
// and the preflight (REST, tRPC, an ids audience and the recipients' ids alike).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("contact ids that name no contact of the workspace", () => {
  it("are counted as skipped 'contact not found' by the preflight and the launch; none of them is sent to", async () => {
    const a = await signUp(t.app);
    const b = await signUp(t.app);
    const add = async (client: typeof a.client, email: string) => {
      const r = await client.post("/api/contacts", { first_name: "M", email });
      expect(r.statusCode, r.body).toBe(200);
      return r.json().contact.id as number;
    };
    const emails = [uniqueEmail("kept"), uniqueEmail("gone"), uniqueEmail("theirs")];
    const kept = await add(a.client, emails[0]!);
    const gone = await add(a.client, emails[1]!);
    const theirs = await add(b.client, emails[2]!);
    expect((await a.client.del(`/api/contacts/${gone}`)).statusCode).toBe(200);
    const ids = [kept, gone, theirs, 2_000_000_000];

    const pre = await a.client.post("/api/campaigns/preflight", {
      channel: "email",
      audience: { contactIds: ids },
    });
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json()).toMatchObject({
      audienceSize: 1,
      willSendNow: 1,
      skipped: { "contact not found": 3 },
    });

    const launch = await trpcCall(a.client, "campaigns.create", {
      name: "Picked",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: ids },
    });
    expect(launch.status, JSON.stringify(launch.error)).toBe(200);
    expect(launch.data).toMatchObject({ queued: 1, skipped: { "contact not found": 3 } });

    // an ids audience through REST says the same
    const rest = await a.client.post("/api/campaigns/email/launch", {
      campaignName: "Picked by REST",
      subject: "S2",
      body: "B2",
      audience: { contactIds: ids },
    });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json()).toMatchObject({ recipients: 1, skipped: { "contact not found": 3 } });
    await expect
      .poll(() => outboxCountsTo(t, emails).then((n) => emails.map((e) => n.get(e) ?? 0)))
      .toEqual([2, 0, 0]);

    // nobody left: the refusal names why
    const none = await trpcCall(a.client, "campaigns.create", {
      name: "Nobody",
      channel: "email",
      content: { subject: "S", body: "B" },
      recipients: { contactIds: [gone, theirs] },
    });
    expect(none.status).toBe(422);
    expect(none.error?.message).toBe("Nobody would receive this campaign: 2 contacts not found.");
  });
});
