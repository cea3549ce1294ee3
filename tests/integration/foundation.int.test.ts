import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/env";
import { createServer } from "../../src/server/main";
import { daytimePhone } from "../daytime-phone";
import { createTestApp, signUp, type TestApp, uniqueEmail } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("database connections", () => {
  it("run without JIT compilation on every pooled connection (CONNECTION_SETTINGS)", async () => {
    // five at once, so they come from different connections of the pool (max 5)
    const rows = await Promise.all(
      Array.from(
        { length: 5 },
        () =>
          t.sql<
            { jit: string; pid: number }[]
          >`select current_setting('jit') as jit, pg_backend_pid() as pid, pg_sleep(0.05)`,
      ),
    );
    expect(new Set(rows.map(([r]) => r?.pid)).size).toBeGreaterThan(1);
    for (const [r] of rows) expect(r?.jit).toBe("off");
  });
});

describe("health and routing", () => {
  it("/healthz checks the database", async () => {
    const res = await t.app.inject({ method: "GET", url: "/healthz" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it("unknown API paths are JSON 404s", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/nope" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: "Not found: GET /api/nope" });
  });

  it("refuses a NUL character in a body, query or tRPC input with a 400, on every route", async () => {
    const { client } = await signUp(t.app);
    const message =
      "The request contains a NUL character (\\u0000), which text cannot hold. Remove it and try again.";
    let res = await client.post("/api/contacts", { first_name: "a\u0000b", email: "nul@example.com" });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: message });
    res = await client.get("/api/contacts?search=a%00b");
    expect(res.statusCode).toBe(400);
    res = await client.post("/api/contacts", { "k\u0000": 1, email: "nul2@example.com" });
    expect(res.statusCode).toBe(400);
    // deeply nested: walked without recursion
    const deep = `${"[".repeat(5_000)}"\\u0000"${"]".repeat(5_000)}`;
    res = await client.inject({
      method: "POST",
      url: "/api/contacts/import",
      payload: `{"contacts":${deep}}`,
      headers: { "content-type": "application/json" },
    });
    expect(res.json()).toEqual({ success: false, error: message });
    res = await client.get(
      `/trpc/crm.list?input=${encodeURIComponent(JSON.stringify({ search: "x\u0000" }))}`,
    );
    expect(res.statusCode).toBe(400);
    // nothing was stored
    expect((await client.get("/api/contacts")).json().pagination.total).toBe(0);
  });

  it("sets security headers", async () => {
    const res = await t.app.inject({ method: "GET", url: "/healthz" });
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-frame-options"]).toBeDefined();
  });
});

describe("tRPC demo.send (the landing page's demo form)", () => {
  it("accepts a request and refuses bad input with the REST sentences", async () => {
    const call = (input: unknown) =>
      t.app.inject({ method: "POST", url: "/trpc/demo.send", payload: { json: input } });
    const ok = await call({ name: "Ann", email: uniqueEmail("demo-trpc") });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().result.data.json).toEqual({ success: true });
    const noName = await call({ name: " ", email: "a@b.co" });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().error.json.message).toBe("Please enter your name");
    const noTarget = await call({ name: "Ann" });
    expect(noTarget.statusCode).toBe(400);
    expect(noTarget.json().error.json.message).toBe("Please provide at least a phone number or email");
  });
});

describe("POST /api/demo/send", () => {
  it("validates per spec section 5", async () => {
    const noName = await t.app.inject({
      method: "POST",
      url: "/api/demo/send",
      payload: { name: " ", email: "a@b.co" },
    });
    expect(noName.statusCode).toBe(400);
    expect(noName.json()).toEqual({ success: false, error: "Please enter your name" });
    const noTarget = await t.app.inject({ method: "POST", url: "/api/demo/send", payload: { name: "Ann" } });
    expect(noTarget.statusCode).toBe(400);
    expect(noTarget.json()).toEqual({
      success: false,
      error: "Please provide at least a phone number or email",
    });
    const badPhone = await t.app.inject({
      method: "POST",
      url: "/api/demo/send",
      payload: { name: "Ann", phone: "123" },
    });
    expect(badPhone.statusCode).toBe(400);
    // a visitor has no workspace: the sentence names the country a number without + is read in
    expect(badPhone.json().error).toBe(
      "Please enter a valid phone number, with the country code if it is not a US number (e.g. +44 20 7946 0958)",
    );
    const wrongType = await t.app.inject({
      method: "POST",
      url: "/api/demo/send",
      payload: { name: ["Ann"], email: "a@b.co" },
    });
    expect(wrongType.statusCode).toBe(400);
  });

  it("queues the demo job, which sends the email, SMS and voice call through the providers (outbox)", async () => {
    const email = uniqueEmail("demo");
    // a number where it is day now: the demo keeps quiet hours (demo-quiet-hours.int)
    const phone = daytimePhone(143);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/demo/send",
      payload: { name: "Dana Demo", email, phone },
      remoteAddress: "10.1.1.1",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    const outbox = await t.app.inject({
      method: "GET",
      url: `/api/dev/outbox?to=${encodeURIComponent(email)}`,
    });
    const emails = outbox.json().messages;
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({
      channel: "email",
      to: email,
      subject: "Dana, your Pitchwise demo is here",
      status: "sent",
    });
    expect(emails[0].html).toContain("Start your free trial");
    expect(emails[0].body).toContain("Pitchwise");
    const phoneMsgs = (
      await t.app.inject({ method: "GET", url: `/api/dev/outbox?to=${encodeURIComponent(phone)}` })
    ).json().messages;
    const channels = phoneMsgs.map((m: { channel: string }) => m.channel).sort();
    expect(channels).toContain("sms");
    expect(channels).toContain("voice");
    const sms = phoneMsgs.find((m: { channel: string }) => m.channel === "sms");
    expect(sms.body).toMatch(/Reply STOP to opt out/);
  });

  it("rate-limits demo requests per IP and per phone/email", async () => {
    const strict = await createTestApp({ DEMO_RATE_LIMIT_PER_IP: "2", DEMO_RATE_LIMIT_PER_TARGET: "1" });
    try {
      const email = uniqueEmail("demo-rl");
      const first = await strict.app.inject({
        method: "POST",
        url: "/api/demo/send",
        payload: { name: "A", email },
        remoteAddress: "10.2.0.1",
      });
      expect(first.statusCode).toBe(200);
      const sameTarget = await strict.app.inject({
        method: "POST",
        url: "/api/demo/send",
        payload: { name: "A", email },
        remoteAddress: "10.2.0.2",
      });
      expect(sameTarget.statusCode).toBe(429);
      expect(sameTarget.json().error).toMatch(/^Too many demo requests/);
      await strict.app.inject({
        method: "POST",
        url: "/api/demo/send",
        payload: { name: "A", email: uniqueEmail() },
        remoteAddress: "10.2.0.9",
      });
      await strict.app.inject({
        method: "POST",
        url: "/api/demo/send",
        payload: { name: "A", email: uniqueEmail() },
        remoteAddress: "10.2.0.9",
      });
      const sameIp = await strict.app.inject({
        method: "POST",
        url: "/api/demo/send",
        payload: { name: "A", email: uniqueEmail() },
        remoteAddress: "10.2.0.9",
      });
      expect(sameIp.statusCode).toBe(429);
    } finally {
      await strict.close();
    }
  });
});

describe("dev outbox", () => {
  it("renders the HTML page outside production", async () => {
    const email = uniqueEmail("page");
    await t.app.inject({
      method: "POST",
      url: "/api/demo/send",
      payload: { name: "Page <b>Test</b>", email },
      remoteAddress: "10.3.0.1",
    });
    const res = await t.app.inject({ method: "GET", url: "/dev/outbox?channel=email" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.body).toContain(email);
    expect(res.body).not.toContain("<b>Test</b>"); // escaped
  });

  it("does not exist in production", async () => {
    const env = loadEnv({
      NODE_ENV: "production",
      APP_SECRET: "test-secret-0123456789abcdef0123456789abcdef",
      DATABASE_URL: t.env.DATABASE_URL,
      LOG_LEVEL: "silent",
      DATA_DIR: t.env.DATA_DIR,
    });
    const { app } = await createServer({
      db: t.db,
      sql: t.sql,
      env,
      providers: t.providers,
      jobs: t.jobs,
      serveClient: false,
    });
    try {
      expect((await app.inject({ method: "GET", url: "/api/dev/outbox" })).statusCode).toBe(404);
      expect((await app.inject({ method: "GET", url: "/dev/outbox" })).statusCode).toBe(404);
      const reg = await app.inject({
        method: "POST",
        url: "/api/auth/register",
        payload: { name: "P", email: uniqueEmail(), password: "longenough" },
      });
      expect(String(reg.headers["set-cookie"])).toMatch(/Secure/);
    } finally {
      await app.close();
    }
  });
});

describe("GET /api/dashboard/stats", () => {
  it("returns the four cards for the signed-in user only", async () => {
    const { client } = await signUp(t.app);
    const res = await client.get("/api/dashboard/stats");
    expect(res.statusCode).toBe(200);
    const { stats } = res.json();
    for (const key of ["totalCampaigns", "totalContacts", "messagesSent", "engagementRate"]) {
      expect(stats[key]).toEqual({
        value: expect.any(Number),
        previous: expect.any(Number),
        changePct: null,
      });
    }
    expect((await t.app.inject({ method: "GET", url: "/api/dashboard/stats" })).statusCode).toBe(401);
  });
});
