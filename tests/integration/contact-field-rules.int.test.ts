import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaces } from "../../src/server/db/schema";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

// A contact's web addresses and time zone are checked where they are written (REST, tRPC and v1 share
// crm.schemas): a javascript: website was stored and handed to every API client and webhook, and an
// unknown time zone was stored and then silently ignored by quiet hours.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("contact web addresses and time zone", () => {
  it("REST refuses a website or profile URL with another scheme than http(s), and an unknown time zone, saying which field", async () => {
    const { client } = await signUp(t.app);
    const base = { first_name: "Wes", email: uniqueEmail("web") };
    for (const [field, value] of [
      ["website", "javascript:alert(document.cookie)"],
      ["website", "data:text/html,<script>alert(1)</script>"],
      ["linkedin_url", "vbscript:msgbox(1)"],
      ["facebook_url", "file:///etc/passwd"],
      // text that is no address (it was stored and shown as a link)
      ["website", "not a url"],
      ["website", "n/a"],
      ["website", "https://"],
      ["linkedin_url", "linkedin"],
    ] as const) {
      const r = await client.post("/api/contacts", { ...base, [field]: value });
      expect(r.statusCode, `${field} ${value}`).toBe(400);
      expect(r.json().error).toMatch(/must be a web address starting with https:\/\/ or http:\/\//);
    }
    const tz = await client.post("/api/contacts", { ...base, timezone: "Mars/Base" });
    expect(tz.statusCode).toBe(400);
    expect(tz.json().error).toMatch(/must be a time zone name such as America\/Chicago/);
    // nothing was stored
    expect((await client.get("/api/contacts")).json().pagination.total).toBe(0);
  });

  it("keeps what people type: bare domains, http(s) URLs, host:port, IANA and Etc zones, blanks", async () => {
    const { client } = await signUp(t.app);
    const ok = await client.post("/api/contacts", {
      first_name: "Ok",
      email: uniqueEmail("web-ok"),
      website: "example.com/about",
      linkedin_url: "https://www.linkedin.com/in/someone",
      facebook_url: "HTTP://facebook.com/someone",
      timezone: "America/Chicago",
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const id = ok.json().contact.id;
    for (const patch of [
      { website: "shop.example.com:8080/cart", timezone: "Etc/GMT+5" },
      { website: "", timezone: "" },
    ]) {
      const r = await client.put(`/api/contacts/${id}`, patch);
      expect(r.statusCode, r.body).toBe(200);
    }
  });

  it("the public API v1 refuses the same values with param naming the field", async () => {
    const u = await signUp(t.app);
    await t.db.update(workspaces).set({ plan: "business" }).where(eq(workspaces.id, u.user.id));
    const key = (
      await u.client.post("/api/api-keys", { name: "Fields", scopes: ["contacts:read", "contacts:write"] })
    ).json().key as string;
    const v1 = (method: "POST" | "PATCH", url: string, payload: object) =>
      t.app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${key}` }, payload });
    const created = await v1("POST", "/contacts", { first_name: "Api", email: uniqueEmail("v1-web") });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const web = await v1("PATCH", `/contacts/${id}`, { website: "javascript:alert(1)" });
    expect(web.statusCode).toBe(400);
    expect(web.json().error.param).toBe("website");
    const tz = await v1("PATCH", `/contacts/${id}`, { timezone: "Mars/Base" });
    expect(tz.statusCode).toBe(400);
    expect(tz.json().error.param).toBe("timezone");
  });
});
