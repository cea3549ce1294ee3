import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { FastifyInstance, InjectOptions } from "fastify";
import twilio from "twilio";
import { inject } from "vitest";
import { loadEnv } from "../src/env";
import { createDb, type Db } from "../src/server/db/client";
import { campaignRecipients, outboxMessages, users, workspaces } from "../src/server/db/schema";
import type { JobDeps } from "../src/server/jobs/define";
import { InlineJobClient } from "../src/server/jobs/inline";
import { jobRegistry } from "../src/server/jobs/registry";
import { createServer, type ServerDeps } from "../src/server/main";
import { createProviders } from "../src/server/providers";

/** The folder of real third-party test files (../shared/data), or null when absent. */
export const SHARED_DATA = (() => {
  const dir = path.resolve(import.meta.dirname, "../../shared/data");
  return fs.existsSync(dir) ? dir : null;
})();
export const SHARED_DATA_MISSING =
  "../shared/data is absent: tests that read the shared third-party files are skipped";

/** Origin header value that passes the same-origin check for `app.inject` (Host is localhost:80). */
export const TEST_ORIGIN = "http://localhost:80";

/** The database of each test app, so `signUp` can read the verification email from the outbox. */
const appDb = new WeakMap<FastifyInstance, Db>();
/** Apps of createTestApp whose email provider is a vendor's fake (no outbox). */
const vendorEmailApps = new WeakSet<FastifyInstance>();

/**
 * A real app over the test Postgres with local providers and the inline job client.
 * `envOverrides` are raw env strings (e.g. { EMAIL_PROVIDER: "postmark", ... }).
 */
export async function createTestApp(
  envOverrides: Record<string, string> = {},
  options: Pick<ServerDeps, "onRoute"> = {},
) {
  // a test that needs a database of its own (e.g. no other test file's snapshots) passes DATABASE_URL
  const databaseUrl = envOverrides.DATABASE_URL ?? inject("databaseUrl");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-test-data-"));
  const env = loadEnv({
    NODE_ENV: "test",
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    APP_URL: "http://localhost:80",
    AUTH_RATE_LIMIT_PER_IP: "100000",
    AUTH_RATE_LIMIT_PER_EMAIL: "100000",
    AUTH_RATE_LIMIT_PER_IP_EMAIL: "100000",
    DEMO_RATE_LIMIT_PER_IP: "100000",
    DEMO_RATE_LIMIT_PER_TARGET: "100000",
    // each test app counts on its own (production's default is the shared rate_limits table, which
    // test files running side by side on one database would share); rate-limit-shared tests the table
    RATE_LIMIT_STORE: "memory",
    ...envOverrides,
  });
  const { db, sql } = createDb(databaseUrl, { max: 5 });
  let deps: JobDeps | null = null;
  const jobs = new InlineJobClient(() => deps!, jobRegistry);
  const providers = createProviders(env, { db });
  const { app, ctx } = await createServer({
    db,
    sql,
    env,
    providers,
    jobs,
    serveClient: false,
    onRoute: options.onRoute,
  });
  deps = { db, sql, env, providers, jobs, log: ctx.log };
  appDb.set(app, db);
  if (env.EMAIL_PROVIDER !== "local") vendorEmailApps.add(app);
  await app.ready();
  return {
    app,
    ctx,
    db,
    sql,
    env,
    jobs,
    providers,
    async close() {
      await app.close();
      await sql.end({ timeout: 5 });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

let counter = 0;
/** A unique email for this test run. */
/**
 * A promise and the function that settles it, for a test to hold a step until another has happened
 * (as Promise.withResolvers, which needs Node 22): `await d.promise` waits, `d.resolve()` lets it go.
 */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export function uniqueEmail(prefix = "user") {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}@example.com`;
}

/**
 * The token of the newest account link of `purpose` emailed to `to` (read from the local provider's
 * outbox table), or null.
 */
export async function accountLinkToken(
  app: FastifyInstance,
  to: string,
  purpose: "verify-email" | "reset-password",
): Promise<string | null> {
  const db = appDb.get(app);
  if (!db) throw new Error("accountLinkToken needs an app from createTestApp");
  const rows = await db
    .select({ body: outboxMessages.body })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.to, to), eq(outboxMessages.channel, "email")))
    .orderBy(desc(outboxMessages.id))
    .limit(20);
  for (const r of rows) {
    const m = r.body.match(new RegExp(`/${purpose}\\?token=([a-z2-7]+)`));
    if (m) return m[1];
  }
  return null;
}

/**
 * Confirms `email` through the verification link in its newest verification email (issue 11). An app
 * whose email provider is a vendor's fake (Postmark tests) has no outbox: there the address is marked
 * verified in the database, as the link would, so those tests can launch.
 */
export async function verifyEmailThroughOutbox(app: FastifyInstance, email: string) {
  const token = await accountLinkToken(app, email, "verify-email");
  if (!token && vendorEmailApps.has(app)) {
    const db = appDb.get(app) as Db;
    await db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email));
    return;
  }
  if (!token) throw new Error(`no verification email for ${email}`);
  const res = await app.inject({ method: "POST", url: "/api/auth/verify-email", payload: { token } });
  if (res.statusCode !== 200) throw new Error(`verify-email failed: ${res.statusCode} ${res.body}`);
}

/**
 * Registers a fresh user through the REST API and returns a client that sends its cookie and Origin.
 * The address is verified through the emailed link (as a person would) unless `verify: false`, so
 * the account can launch campaigns (issue 11).
 */
export async function signUp(
  app: FastifyInstance,
  overrides: Partial<{ name: string; email: string; password: string; business_name: string }> = {},
  opts: { verify?: boolean } = {},
) {
  const body = {
    name: "Test User",
    email: uniqueEmail(),
    password: "correct-horse-battery",
    business_name: "Acme",
    ...overrides,
  };
  const res = await app.inject({ method: "POST", url: "/api/auth/register", payload: body });
  if (res.statusCode !== 200) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const setCookie = res.cookies.find((c) => c.name === "pw_session");
  if (!setCookie) throw new Error("no session cookie");
  const cookie = `pw_session=${setCookie.value}`;
  const user = res.json().user as { id: string; email: string; name: string };
  if (opts.verify !== false) await verifyEmailThroughOutbox(app, body.email);
  return { user, password: body.password, cookie, client: authedClient(app, cookie) };
}

/** `app.inject` with the session cookie and a same-origin Origin header. */
export function authedClient(app: FastifyInstance, cookie: string) {
  const call = (opts: InjectOptions) =>
    app.inject({ ...opts, headers: { cookie, origin: TEST_ORIGIN, ...(opts.headers ?? {}) } });
  return {
    inject: call,
    get: (url: string) => call({ method: "GET", url }),
    post: (url: string, payload?: unknown) =>
      call({ method: "POST", url, payload: payload as InjectOptions["payload"] }),
    put: (url: string, payload?: unknown) =>
      call({ method: "PUT", url, payload: payload as InjectOptions["payload"] }),
    del: (url: string) => call({ method: "DELETE", url }),
  };
}
export type AuthedClient = ReturnType<typeof authedClient>;

/**
 * Calls a tRPC procedure over HTTP as the client does (superjson envelope: GET with `?input=` for a
 * query, POST for a mutation); returns `{status, data, error}` with `error.message` the server's sentence.
 */
export async function trpcCall(
  client: AuthedClient,
  path: string,
  input: unknown,
  kind: "query" | "mutation" = "mutation",
) {
  const res =
    kind === "query"
      ? await client.get(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`)
      : await client.inject({ method: "POST", url: `/trpc/${path}`, payload: { json: input } });
  const body = res.json();
  return {
    status: res.statusCode,
    data: body.result?.data?.json,
    error: body.error?.json as { message: string } | undefined,
  };
}

/**
 * Puts a workspace on a plan directly (tests of plan limits; the checkout itself is tested in
 * billing-payments.int.test.ts). A paid plan gets an active status; no subscription or period.
 */
export async function setPlan(t: Pick<TestApp, "db">, workspaceId: string, plan: string) {
  await t.db
    .update(workspaces)
    .set({
      plan,
      subscriptionStatus: plan === "free" ? null : "active",
      subscriptionTier: plan === "free" ? null : "premium",
    })
    .where(eq(workspaces.id, workspaceId));
}

/**
 * A time for a scheduled send later in the current calendar month (UTC, the monthly meters' period
 * on Free and on a plan set without a subscription): an hour from now, or in the month's last hour
 * halfway from now to the month's end. Tests that schedule "in an hour" and expect this month's meter
 * failed in the last hour of every month, when an hour from now is the next month.
 */
export function laterThisMonth(now = Date.now()): Date {
  const d = new Date(now);
  const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return new Date(Math.min(now + 3_600_000, now + Math.floor((monthEnd - now) / 2)));
}

/** How many outbox messages (any channel) went to each of `addresses`: a count above 1 is a double send. */
export async function outboxCountsTo(t: Pick<TestApp, "db">, addresses: string[]) {
  const n = new Map<string, number>();
  if (addresses.length === 0) return n;
  const rows = await t.db
    .select({ to: outboxMessages.to })
    .from(outboxMessages)
    .where(inArray(outboxMessages.to, addresses));
  for (const r of rows) n.set(r.to, (n.get(r.to) ?? 0) + 1);
  return n;
}

/** An Etc/GMT zone where the local time is now about 14:00 (inside the SMS/call 8am-9pm window). */
export function daytimeZone(): string {
  const o = ((14 - new Date().getUTCHours() + 12 + 24) % 24) - 12;
  return o === 0 ? "Etc/GMT" : `Etc/GMT${o > 0 ? "-" : "+"}${Math.abs(o)}`;
}

/**
 * Posts a Twilio webhook to `/api/webhooks/twilio/{hook}` (a status callback or an inbound SMS), signed
 * as Twilio signs it (X-Twilio-Signature over the public URL and the form params) with `authToken`.
 */
export function postTwilioWebhook(
  app: FastifyInstance,
  authToken: string,
  hook: "status" | "inbound",
  params: Record<string, string>,
) {
  return app.inject({
    method: "POST",
    url: `/api/webhooks/twilio/${hook}`,
    payload: new URLSearchParams(params).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": twilio.getExpectedTwilioSignature(
        authToken,
        `${TEST_ORIGIN}/api/webhooks/twilio/${hook}`,
        params,
      ),
    },
  });
}

/** Posts a Postmark webhook `payload` to `/api/webhooks/postmark` with HTTP basic auth `user:password`. */
export function postPostmarkEvent(app: FastifyInstance, user: string, password: string, payload: object) {
  return app.inject({
    method: "POST",
    url: "/api/webhooks/postmark",
    payload,
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` },
  });
}

/** A campaign's recipient rows, in id order (the order they were created in). */
export function campaignRecipientRows(t: Pick<TestApp, "db">, campaignId: number) {
  return t.db
    .select()
    .from(campaignRecipients)
    .where(eq(campaignRecipients.campaignId, campaignId))
    .orderBy(campaignRecipients.id);
}

/**
 * Makes campaign `campaignId`'s waiting rows due now (not_before a second ago: a retry's back-off,
 * quiet hours, a wait for a vendor's report) and runs the deferred jobs, as the worker does once
 * their time comes.
 */
export async function runCampaignRowsNow(t: Pick<TestApp, "db" | "jobs">, campaignId: number): Promise<void> {
  await t.db
    .update(campaignRecipients)
    .set({ notBefore: new Date(Date.now() - 1000) })
    .where(eq(campaignRecipients.campaignId, campaignId));
  await t.jobs.runDeferred();
}

/**
 * The invitation token of the newest invite email to `email` in the local outbox (the link
 * `/invite/<token>` the invitee receives, read through GET /api/dev/outbox).
 * @throws Error when no invite email was sent to `email`.
 */
export async function inviteTokenFor(t: TestApp, email: string): Promise<string> {
  const res = await t.app.inject({
    method: "GET",
    url: `/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`,
  });
  // newest first; other emails to the address (a verification link) may be newer than the invite
  for (const { body } of res.json().messages as { body: string }[]) {
    const m = body.match(/\/invite\/([a-z2-7]+)/);
    if (m) return m[1] as string;
  }
  throw new Error(`no invite email for ${email}`);
}

/**
 * `owner` (a signed-in client of the workspace's owner or an admin) invites a new person, signed up
 * with `profile`, to its active workspace as `role`, and the person accepts the invitation from its
 * email. Returns the person as signUp gives them.
 * @throws Error with the response when the invitation or the accept is refused.
 */
export async function joinWorkspace(
  t: TestApp,
  owner: AuthedClient,
  role: "admin" | "member" = "member",
  profile: Parameters<typeof signUp>[1] = {},
) {
  const person = await signUp(t.app, profile);
  const inv = await owner.post("/api/workspaces/current/invites", { email: person.user.email, role });
  if (inv.statusCode !== 201) throw new Error(`invite: ${inv.statusCode} ${inv.body}`);
  const token = await inviteTokenFor(t, person.user.email);
  const accepted = await person.client.post(`/api/invites/${token}/accept`);
  if (accepted.statusCode !== 200) throw new Error(`accept: ${accepted.statusCode} ${accepted.body}`);
  return person;
}
