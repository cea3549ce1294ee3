import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contacts,
  contactTags,
  outboxMessages,
  webhookEndpoints,
  workspaces,
} from "../../src/server/db/schema";
import { WEBHOOK_EVENT_TYPES } from "../../src/server/features/webhooks/webhooks.schemas";
import {
  createTestApp,
  joinWorkspace,
  setPlan,
  signUp,
  type TestApp,
  trpcCall,
  uniqueEmail,
} from "../helpers";

// Found by a QA pass of the app's own routes (the public API already refused these):
// - settings bodies dropped unknown keys, so a misspelt field was a 200 that did something else
//   (a rolled webhook secret kept the old one signing for a day, an API key was made without its
//   expiry, an endpoint was created enabled, an invitation went out as a member);
// - bulk operations and contact scores coerced what they were given: [true] acted on contact 1;
// - a workspace name stored with a combining accent could not be typed back to delete it;
// - a second click of Delete workspace was told its owner was not the owner.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function businessOwner(profile: Parameters<typeof signUp>[1] = {}) {
  const u = await signUp(t.app, profile);
  await setPlan(t, u.user.id, "business");
  return u;
}

/** Expects a 400 whose sentence names `field` as not accepted. */
function refusesField(
  res: { statusCode: number; body: string; json: () => { error?: string } },
  field: string,
) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().error).toBe(`This field is not accepted here: ${field}`);
}

describe("the app's settings bodies are closed: an unknown key is a 400 naming it, nothing done", () => {
  it("webhook endpoints, their secret roll and test event, API keys, the workspace, invitations, checkout, deletion", async () => {
    const u = await businessOwner();
    // an endpoint "created disabled" is refused, not created enabled
    const created = await u.client.post("/api/webhook-endpoints", {
      url: "https://example.com/hooks",
      events: ["contact.created"],
      enabled: false,
    });
    refusesField(created, "enabled");
    expect(
      await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.workspaceId, u.user.id)),
    ).toEqual([]);
    const ok = await u.client.post("/api/webhook-endpoints", {
      url: "https://example.com/hooks",
      events: ["contact.created"],
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const id = ok.json().endpoint.id as string;
    const secret = ok.json().endpoint.secret as string;

    // the v1 spelling of the roll's expiry on the app's route: refused, the secret unchanged
    refusesField(
      await u.client.post(`/api/webhook-endpoints/${id}/rotate-secret`, { expires_in_hours: 0 }),
      "expires_in_hours",
    );
    const viaTrpc = await trpcCall(u.client, "webhooks.rotateSecret", { id, expires_in_hours: 0 });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error?.message).toBe("This field is not accepted here: expires_in_hours");
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(row?.previousSecret ?? null).toBeNull();
    expect(row?.secret).toBe(secret);
    refusesField(
      await u.client.inject({
        method: "PATCH",
        url: `/api/webhook-endpoints/${id}`,
        payload: { enable: false },
      }),
      "enable",
    );
    refusesField(
      await u.client.post(`/api/webhook-endpoints/${id}/test`, { event: "contact.created" }),
      "event",
    );

    // a repeated event type: a sentence about the list, not "must be a list of event types"
    const repeated = await u.client.post("/api/webhook-endpoints", {
      url: "https://example.com/hooks2",
      events: [...Array(WEBHOOK_EVENT_TYPES.length).fill("contact.created"), "contact.updated"],
    });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().error).toMatch(/^Events can list at most the \d+ event types, each once$/);

    // an API key with the camelCase expiry: refused, not made to never expire
    refusesField(
      await u.client.post("/api/api-keys", {
        name: "k",
        scopes: ["contacts:read"],
        expiresAt: "2030-01-01T00:00:00Z",
      }),
      "expiresAt",
    );
    const keys = await u.client.get("/api/api-keys");
    expect(keys.json().keys ?? keys.json().api_keys ?? []).toEqual([]);

    // the workspace and its invitations
    refusesField(
      await u.client.inject({
        method: "PATCH",
        url: "/api/workspaces/current",
        payload: { nmae: "Renamed" },
      }),
      "nmae",
    );
    const invite = await u.client.post("/api/workspaces/current/invites", {
      email: uniqueEmail("inv"),
      roles: "admin",
    });
    refusesField(invite, "roles");
    const tInvite = await trpcCall(u.client, "workspaces.invite", {
      email: uniqueEmail("inv"),
      rol: "admin",
    });
    expect(tInvite.status).toBe(400);
    expect(tInvite.error?.message).toBe("This field is not accepted here: rol");

    refusesField(
      await u.client.post("/api/payment/create-checkout-session", {
        priceId: "price_professional",
        planName: "professional",
        coupon: "FREE",
      }),
      "coupon",
    );
    const del = await trpcCall(u.client, "account.deleteWorkspace", {
      workspace_id: u.user.id,
      confirm_name: "x",
      password: u.password,
      force: true,
    });
    expect(del.status).toBe(400);
    expect(del.error?.message).toBe("This field is not accepted here: force");
  });
});

describe("ids and scores are numbers or digits, never coerced from true, [2] or ' 3 '", () => {
  it("bulk operations and contact scores", async () => {
    const u = await signUp(t.app);
    const ids: number[] = [];
    for (const n of [1, 2, 3]) {
      const res = await u.client.post("/api/contacts", { first_name: `C${n}`, email: uniqueEmail("c") });
      expect(res.statusCode, res.body).toBe(200);
      ids.push(res.json().contact.id);
    }
    const stages = async () =>
      (await t.db.select().from(contacts).where(eq(contacts.workspaceId, u.user.id))).map(
        (c) => c.lifecycleStage,
      );
    const before = await stages();
    for (const contactIds of [[true], [[ids[1]]], [` ${ids[2]} `], [1.5], [-3]]) {
      const res = await u.client.post("/api/contacts/bulk/operation", {
        contactIds,
        operation: "update_stage",
        data: { lifecycle_stage: "customer" },
      });
      expect(res.statusCode, `${JSON.stringify(contactIds)}: ${res.body}`).toBe(400);
      expect(res.json().error).toBe("Contact IDs must be a list of contact ids");
    }
    expect(await stages()).toEqual(before);
    // digits, as a form sends them, still work
    const digits = await u.client.post("/api/contacts/bulk/operation", {
      contactIds: [String(ids[0])],
      operation: "update_stage",
      data: { lifecycle_stage: "customer" },
    });
    expect(digits.statusCode, digits.body).toBe(200);
    expect(digits.json().updated).toBe(1);

    const tag = await u.client.post("/api/contacts/tags", { name: "VIP" });
    expect(tag.statusCode, tag.body).toBe(200);
    const badTag = await u.client.post("/api/contacts/bulk/operation", {
      contactIds: [ids[2]],
      operation: "add_tag",
      data: { tag_id: true },
    });
    expect(badTag.statusCode, badTag.body).toBe(400);
    expect(badTag.json().error).toBe("Tag ID must be a whole number (the tag's id)");
    expect(
      await t.db
        .select()
        .from(contactTags)
        .where(eq(contactTags.contactId, ids[2] as number)),
    ).toEqual([]);

    for (const lead_score of [true, [70], "", null, " 5"]) {
      const res = await u.client.put(`/api/contacts/${ids[0]}`, { lead_score });
      expect(res.statusCode, `${JSON.stringify(lead_score)}: ${res.body}`).toBe(400);
    }
    const [c] = await t.db
      .select()
      .from(contacts)
      .where(eq(contacts.id, ids[0] as number));
    expect(c?.leadScore).toBe(0);
    // a list id that is no number names no list (it said "Contact not found")
    const list = await u.client.put("/api/contacts/lists/abc", { name: "x" });
    expect(list.statusCode).toBe(404);
    expect(list.json().error).toBe("List not found");
    const good = await u.client.put(`/api/contacts/${ids[0]}`, { lead_score: "70" });
    expect(good.statusCode, good.body).toBe(200);
    expect(good.json().contact.lead_score).toBe(70);
  });
});

describe("workspace names and deleting a workspace", () => {
  it("a name is stored in NFC, an invisible one is refused, and a name stored decomposed can be typed back", async () => {
    const u = await signUp(t.app);
    const decomposed = "Cafe\u0301 Bar";
    const renamed = await u.client.inject({
      method: "PATCH",
      url: "/api/workspaces/current",
      payload: { name: decomposed },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const [w] = await t.db.select().from(workspaces).where(eq(workspaces.id, u.user.id));
    expect(w?.name).toBe("Caf\u00e9 Bar");
    for (const name of ["\u200b", "\u2060\ufeff", " \u200b "]) {
      const res = await u.client.inject({
        method: "PATCH",
        url: "/api/workspaces/current",
        payload: { name },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toBe("Workspace name must contain a letter, digit or symbol");
    }
    // a name saved decomposed before names were normalised: typed with a precomposed é, it matches
    await t.db.execute(sql`update workspaces set name = ${decomposed} where id = ${u.user.id}`);
    const del = await trpcCall(u.client, "account.deleteWorkspace", {
      workspace_id: u.user.id,
      confirm_name: "Caf\u00e9 Bar",
      password: u.password,
    });
    expect(del.status, JSON.stringify(del.error)).toBe(200);
  });

  it("a second click while the first deletion runs is told it is under way, never that the owner is not the owner", async () => {
    const u = await signUp(t.app, { business_name: `Twice ${Date.now()}` });
    const name = (await u.client.get("/api/auth/me")).json().workspace.name as string;
    const calls = await Promise.all(
      [0, 1, 2].map(() =>
        trpcCall(u.client, "account.deleteWorkspace", {
          workspace_id: u.user.id,
          confirm_name: name,
          password: u.password,
        }),
      ),
    );
    const statuses = calls.map((c) => c.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const c of calls.filter((x) => x.status !== 200)) {
      expect([404, 409]).toContain(c.status);
      expect(c.error?.message).toMatch(
        /^(This workspace no longer exists\.|.+ is already being deleted\. If it is still there in 15 minutes, try again\.)$/,
      );
    }
  });

  it("a delete confirmed for one workspace never deletes another: the new one after a deletion, or a workspace switched to in another tab", async () => {
    const u = await signUp(t.app, { business_name: `Again ${Date.now()}` });
    const name = (await u.client.get("/api/auth/me")).json().workspace.name as string;
    const first = await trpcCall(u.client, "account.deleteWorkspace", {
      workspace_id: u.user.id,
      confirm_name: name,
      password: u.password,
    });
    expect(first.status, JSON.stringify(first.error)).toBe(200);
    // the person's only workspace went: their next request gets a new empty one, named after them
    // (workspaces fallbackWorkspace; it used to take the deleted one's name)
    const fresh = (await u.client.get("/api/auth/me")).json().workspace as { id: string; name: string };
    expect(fresh.id).not.toBe(u.user.id);
    expect(fresh.name).toBe("Test User's workspace");
    // a late second click for the deleted workspace, even with the new one's name typed: refused by
    // its id, and the new one stays
    const late = await trpcCall(u.client, "account.deleteWorkspace", {
      workspace_id: u.user.id,
      confirm_name: fresh.name,
      password: u.password,
    });
    expect(late.status).toBe(404);
    expect(late.error?.message).toBe("This workspace no longer exists.");
    const [kept] = await t.db.select().from(workspaces).where(eq(workspaces.id, fresh.id));
    expect(kept?.name).toBe(fresh.name);
    for (const bad of ["", "not-a-uuid"]) {
      const res = await trpcCall(u.client, "account.deleteWorkspace", {
        workspace_id: bad,
        confirm_name: name,
        password: u.password,
      });
      expect(res.status).toBe(404);
    }

    // a tab still showing workspace A after another tab switched to B: A is not deleted in B's place
    const owner = await businessOwner();
    const member = await joinWorkspace(t, owner.client, "member");
    const [own] = await t.db.select().from(workspaces).where(eq(workspaces.id, member.user.id));
    const ownName = own!.name;
    expect((await member.client.get("/api/auth/me")).json().workspace.id).toBe(owner.user.id);
    const stale = await trpcCall(member.client, "account.deleteWorkspace", {
      workspace_id: member.user.id,
      confirm_name: ownName,
      password: member.password,
    });
    expect(stale.status).toBe(409);
    expect(stale.error?.message).toMatch(
      /^Your account is now working in ‘.+’: the workspace was switched in another tab/,
    );
    const [still] = await t.db.select().from(workspaces).where(eq(workspaces.id, member.user.id));
    expect(still).toBeDefined();
    const [theirs] = await t.db.select().from(workspaces).where(eq(workspaces.id, owner.user.id));
    expect(theirs).toBeDefined();
  });

  it("the account-deleted email says nothing of owned workspaces when none was deleted", async () => {
    const owner = await businessOwner();
    const member = await joinWorkspace(t, owner.client, "member");
    // back in their own workspace (joining made the new one active)
    const back = await trpcCall(member.client, "workspaces.switch", { workspaceId: member.user.id });
    expect(back.status, JSON.stringify(back.error)).toBe(200);
    // the member deletes their own workspace; their session falls back to the one they joined
    const own = await trpcCall(member.client, "account.deleteWorkspace", {
      workspace_id: member.user.id,
      confirm_name: (await member.client.get("/api/auth/me")).json().workspace.name,
      password: member.password,
    });
    expect(own.status, JSON.stringify(own.error)).toBe(200);
    expect((await member.client.get("/api/auth/me")).json().workspace.id).toBe(owner.user.id);
    const gone = await trpcCall(member.client, "account.deleteAccount", {
      password: member.password,
      confirm: "DELETE",
    });
    expect(gone.status, JSON.stringify(gone.error)).toBe(200);
    expect(gone.data).toMatchObject({ deleted_workspaces: 0, left_workspaces: 1 });
    const mails = await t.db.select().from(outboxMessages).where(eq(outboxMessages.to, member.user.email));
    const notice = mails.find((m) => m.subject === "Your Pitchwise account was deleted");
    expect(notice?.body).toBe(
      `Hi ${member.user.name},\n\nYour Pitchwise account (${member.user.email}) was deleted, as you asked.\n\nIf this wasn't you, reply to this email at once.`,
    );
  });
});
