import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxMessages, workspaces } from "../../src/server/db/schema";
import {
  type AuthedClient,
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

/**
 * A QA finding (High): campaign emails carried no physical postal address and there was nowhere to
 * enter one, while CAN-SPAM (15 U.S.C. 7704(a)(5)(A)(iii)) requires one in every commercial email.
 * The workspace's postal address (Settings > Workspace, PATCH /api/workspaces/current
 * `postal_address`) is stored trimmed in NFC, refused over 300 characters or with control
 * characters, changed only by the owner or an admin, and shown in the footer of the HTML and text
 * parts of every campaign email of that workspace (never another's).
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

function patch(client: AuthedClient, payload: unknown) {
  return client.inject({ method: "PATCH", url: "/api/workspaces/current", payload: payload as object });
}

async function storedAddress(workspaceId: string) {
  const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
  return w?.postalAddress;
}

async function emailsTo(to: string) {
  return t.db
    .select()
    .from(outboxMessages)
    .where(and(eq(outboxMessages.channel, "email"), eq(outboxMessages.to, to)));
}

/** Launches a one-recipient email campaign from `client`'s workspace; returns the recipient's address. */
async function launchTo(client: AuthedClient, name: string) {
  const to = uniqueEmail("recipient");
  const res = await client.post("/api/campaigns/email/launch", {
    campaignName: name,
    subject: "Fresh bread",
    body: "Hi {{first_name|there}},\n\nOur sourdough is back.",
    contacts: [{ name: "Robin Reader", email: to }],
  });
  expect(res.statusCode, res.body).toBe(200);
  return to;
}

describe("workspace postal address", () => {
  it("is saved trimmed with line breaks kept and in NFC, read back, cleared with an empty string", async () => {
    const u = await signUp(t.app, { business_name: "Bee Bakery" });
    const before = await u.client.get("/api/workspaces/current");
    expect(before.json().workspace.postal_address).toBeNull();

    const res = await patch(u.client, {
      postal_address: "  12 Baker St\r\nSpringfield, IL 62701\nUSA \n ",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().workspace.postal_address).toBe("12 Baker St\nSpringfield, IL 62701\nUSA");
    expect(await storedAddress(u.user.id)).toBe("12 Baker St\nSpringfield, IL 62701\nUSA");

    // decomposed é (e + U+0301) is stored precomposed
    const nfc = await patch(u.client, { postal_address: "1 Rue du Cafe\u0301, Paris" });
    expect(nfc.statusCode, nfc.body).toBe(200);
    expect(await storedAddress(u.user.id)).toBe("1 Rue du Caf\u00e9, Paris");

    // tRPC (what Settings > Workspace calls) takes the same field and answers the same settings
    const viaTrpc = await trpcCall(u.client, "workspaces.update", { postal_address: " 9 Elm Rd, Dover " });
    expect(viaTrpc.status, JSON.stringify(viaTrpc.error)).toBe(200);
    expect(viaTrpc.data.postal_address).toBe("9 Elm Rd, Dover");
    const current = await trpcCall(u.client, "workspaces.current", undefined, "query");
    expect(current.data.postal_address).toBe("9 Elm Rd, Dover");

    // other settings saved without the field leave it as it is
    expect((await patch(u.client, { name: "Bee Bakery HQ" })).statusCode).toBe(200);
    expect(await storedAddress(u.user.id)).toBe("9 Elm Rd, Dover");

    for (const cleared of ["", "   ", null]) {
      await patch(u.client, { postal_address: "9 Elm Rd, Dover" });
      const res2 = await patch(u.client, { postal_address: cleared });
      expect(res2.statusCode, res2.body).toBe(200);
      expect(res2.json().workspace.postal_address).toBeNull();
      expect(await storedAddress(u.user.id)).toBeNull();
    }
  });

  it("refuses an address over 300 characters, with control characters or not text, with a sentence, and keeps the old one", async () => {
    const u = await signUp(t.app);
    expect((await patch(u.client, { postal_address: "12 Baker St" })).statusCode).toBe(200);

    // 300 characters is the limit, counted after trimming
    const exactly300 = `${"a".repeat(299)}b`;
    const ok = await patch(u.client, { postal_address: `  ${exactly300}  ` });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await storedAddress(u.user.id)).toBe(exactly300);
    expect((await patch(u.client, { postal_address: "12 Baker St" })).statusCode).toBe(200);

    const tooLong = await patch(u.client, { postal_address: "x".repeat(301) });
    expect(tooLong.statusCode, tooLong.body).toBe(400);
    expect(tooLong.json().error).toBe("Postal address must be at most 300 characters");

    const controlSentence =
      "Postal address cannot contain tabs or other control characters; use spaces and line breaks";
    // NUL is refused for every request body, with the app's own sentence
    const nul = await patch(u.client, { postal_address: "12 Baker St\u0000" });
    expect(nul.statusCode, nul.body).toBe(400);
    expect(nul.json().error).toBe(
      "The request contains a NUL character (\\u0000), which text cannot hold. Remove it and try again.",
    );
    for (const bad of [
      "12 Baker\tSt",
      "12 Baker St\u001b[31m",
      "12 Baker St\u0085Springfield",
      "12 Baker St \u202eSU ,dleifgnirpS",
      "12 Baker St\u2066x\u2069",
    ]) {
      const res = await patch(u.client, { postal_address: bad });
      expect(res.statusCode, `${JSON.stringify(bad)}: ${res.body}`).toBe(400);
      expect(res.json().error).toBe(controlSentence);
    }
    const viaTrpc = await trpcCall(u.client, "workspaces.update", { postal_address: "a\u0007b" });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error?.message).toBe(controlSentence);

    for (const wrong of [12, true, ["12 Baker St"], { line1: "12 Baker St" }]) {
      const res = await patch(u.client, { postal_address: wrong });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toBe("Postal address must be text");
    }
    // the body stays closed: a misspelt field is named, not ignored
    const misspelt = await patch(u.client, { postal_adress: "1 Main St" });
    expect(misspelt.statusCode, misspelt.body).toBe(400);
    expect(misspelt.json().error).toContain("postal_adress");

    expect(await storedAddress(u.user.id)).toBe("12 Baker St");
  });

  it("an admin changes it; a member reads it but cannot change it (REST or tRPC)", async () => {
    const owner = await signUp(t.app, { business_name: "Team Bakery" });
    await setPlan(t, owner.user.id, "business");
    expect((await patch(owner.client, { postal_address: "1 Owner Way" })).statusCode).toBe(200);
    const admin = await joinWorkspace(t, owner.client, "admin");
    const member = await joinWorkspace(t, owner.client, "member");

    const byAdmin = await patch(admin.client, { postal_address: "2 Admin Ave" });
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect(await storedAddress(owner.user.id)).toBe("2 Admin Ave");

    const read = await member.client.get("/api/workspaces/current");
    expect(read.json().workspace).toMatchObject({ id: owner.user.id, postal_address: "2 Admin Ave" });
    const refused = await patch(member.client, { postal_address: "3 Member Mews" });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().error).toBe("Only the workspace owner or an admin can change workspace settings.");
    const refusedTrpc = await trpcCall(member.client, "workspaces.update", { postal_address: "" });
    expect(refusedTrpc.status).toBe(403);
    expect(refusedTrpc.error?.message).toBe(
      "Only the workspace owner or an admin can change workspace settings.",
    );
    expect(await storedAddress(owner.user.id)).toBe("2 Admin Ave");
  });

  it("is in the footer of the HTML and text parts of the workspace's campaign emails, and only that workspace's", async () => {
    const bee = await signUp(t.app, { business_name: "Bee Bakery" });
    const wasp = await signUp(t.app, { business_name: "Wasp Wares" });
    const none = await signUp(t.app, { business_name: "No Address Co" });
    for (const u of [bee, wasp, none]) await setPlan(t, u.user.id, "business");
    const beeAddress = "12 Baker St\nSpringfield, IL 62701\nUSA";
    const beeLine = "12 Baker St, Springfield, IL 62701, USA";
    // markup, a merge tag and a legacy placeholder in an address are text, never rendered
    const waspAddress = "Unit <b>4</b> & Co {{first_name}} [company]\n99 Hive Rd, Stingtown";
    const waspLine = "Unit <b>4</b> & Co {{first_name}} [company], 99 Hive Rd, Stingtown";
    expect((await patch(bee.client, { postal_address: beeAddress })).statusCode).toBe(200);
    expect((await patch(wasp.client, { postal_address: waspAddress })).statusCode).toBe(200);

    const beeTo = await launchTo(bee.client, "Sourdough");
    const waspTo = await launchTo(wasp.client, "Honey");
    const noneTo = await launchTo(none.client, "Plain");

    const [beeMail] = await emailsTo(beeTo);
    expect(beeMail, "the campaign email was sent").toBeDefined();
    expect(beeMail!.body).toMatch(
      new RegExp(
        `--\\nSent by Bee Bakery, ${beeLine}\\. Unsubscribe: ${t.env.APP_URL.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/u/[A-Za-z0-9_-]+$`,
      ),
    );
    expect(beeMail!.html).toContain(`Sent by Bee Bakery, ${beeLine}.`);
    // the unsubscribe link and the RFC 8058 headers are as they were
    const unsubscribe = /\/u\/([A-Za-z0-9_-]+)/.exec(beeMail!.body)![0];
    expect(beeMail!.html).toContain(`${unsubscribe}"`);
    expect((beeMail!.metadata as { headers: Record<string, string> }).headers).toEqual({
      "List-Unsubscribe": `<${t.env.APP_URL}${unsubscribe}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });

    const [waspMail] = await emailsTo(waspTo);
    expect(waspMail!.body).toContain(`Sent by Wasp Wares, ${waspLine}. Unsubscribe: `);
    expect(waspMail!.html).toContain(
      "Sent by Wasp Wares, Unit &lt;b&gt;4&lt;/b&gt; &amp; Co {{first_name}} [company], 99 Hive Rd, Stingtown.",
    );
    expect(waspMail!.html).not.toContain("<b>4</b>");

    // no address: the footer is as before; and no workspace's address is in another's email
    const [noneMail] = await emailsTo(noneTo);
    expect(noneMail!.body).toMatch(/--\nSent by No Address Co\. Unsubscribe: \S+\/u\/[A-Za-z0-9_-]+$/);
    expect(noneMail!.html).toContain("Sent by No Address Co.");
    for (const [mail, foreign] of [
      [beeMail!, ["Hive Rd", "Stingtown"]],
      [waspMail!, ["Baker St", "Springfield"]],
      [noneMail!, ["Baker St", "Springfield", "Hive Rd", "Stingtown"]],
    ] as const)
      for (const text of foreign) {
        expect(mail.body).not.toContain(text);
        expect(mail.html ?? "").not.toContain(text);
      }

    // the test email a builder sends carries it too
    const test = await trpcCall(bee.client, "campaigns.sendTest", { subject: "Try", body: "Hello" });
    expect(test.status, JSON.stringify(test.error)).toBe(200);
    const mine = (await emailsTo(bee.user.email)).find((m) => m.subject === "[Test] Try");
    expect(mine?.body).toContain(`Sent by Bee Bakery, ${beeLine}. Unsubscribe: `);
    expect(mine?.html).toContain(`Sent by Bee Bakery, ${beeLine}.`);
  });
});
