import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { idempotencyLease } from "../../src/server/features/api/api.service";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

/**
 * An Idempotency-Key claim is a lease its running request keeps alive: a long OpenStreetMap lead
 * search (POST /api/v1/lead_searches, here an Overpass fake that holds its answer) can run past the
 * 5 minutes after which a claim used to be taken over by a retry with the same key, which then ran the
 * search a second time. A retry gets 409 'still in progress' while the first request runs, however
 * long; it takes over only when the owner stopped renewing (its process died).
 */

let t: TestApp;
let server: http.Server;
let key: string;
/** Overpass requests received, and the releases of the ones being held */
let received = 0;
let hold = false;
const held: (() => void)[] = [];
const defaultLease = { ...idempotencyLease };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      const answer = () => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ version: 0.6, elements: [] }));
      };
      if (hold) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  t = await createTestApp({
    PLACES_PROVIDER: "osm",
    OVERPASS_URL: `http://127.0.0.1:${port}/api/interpreter`,
  });
  const u = await signUp(t.app);
  await setPlan(t, u.user.id, "business");
  const res = await u.client.post("/api/api-keys", { name: "lease", scopes: ["leads:read"] });
  expect(res.statusCode, res.body).toBe(200);
  key = res.json().key;
});
afterEach(() => {
  Object.assign(idempotencyLease, defaultLease);
  hold = false;
  for (const release of held.splice(0)) release();
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((r) => server?.close(() => r()));
});

const body = { location: "Saginaw, MI", business_type: "dentist", radius: 2, search_radius: 2 };
const search = (idem: string) =>
  t.app.inject({
    method: "POST",
    url: "/api/v1/lead_searches",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idem },
    payload: body,
  });

async function until(what: string, ok: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts a search that hangs at Overpass; resolves once Overpass holds it. */
async function startHeldSearch(idem: string) {
  hold = true;
  const before = received;
  const first = search(idem);
  await until("the first search to reach Overpass", () => received > before);
  return { first, before };
}

/**
 * The retry's answer, or null when it ran the search again instead (Overpass got it: held there, it
 * would never answer).
 */
async function retryOrRerun(idem: string, before: number) {
  let answered = false;
  const retry = search(idem).then((r) => {
    answered = true;
    return r;
  });
  const rerun = (async () => {
    while (!answered && received - before < 2) await new Promise((r) => setTimeout(r, 20));
    return null;
  })();
  return Promise.race([retry, rerun]);
}

/** Backdates the key's claim by `minutes` (its age as the takeover rule saw it). */
async function ageClaim(idem: string, minutes: number) {
  const rows = await t.db.execute<{ key: string }>(
    sql`update api_idempotency_keys set created_at = now() - make_interval(mins => ${minutes})
        where key = ${idem} and status_code is null returning key`,
  );
  expect(rows).toHaveLength(1);
}

const inProgress = {
  error: expect.objectContaining({
    message: "A request with this Idempotency-Key is still in progress.",
    param: "Idempotency-Key",
  }),
};

describe("Idempotency-Key claims are leases kept alive by the running request", () => {
  it("a claim older than 5 minutes whose request still runs is not taken over: 409, the search runs once", async () => {
    const idem = `lease-${Math.random().toString(36).slice(2)}`;
    const { first, before } = await startHeldSearch(idem);
    await ageClaim(idem, 10);
    const second = await retryOrRerun(idem, before);
    expect(received - before, "the retry ran the search again").toBe(1);
    expect(second?.statusCode, second?.body).toBe(409);
    expect(second?.json()).toMatchObject(inProgress);

    for (const release of held.splice(0)) release();
    const done = await first;
    expect(done.statusCode, done.body).toBe(201);
    const replay = await search(idem);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.json()).toEqual(done.json());
    expect(received - before).toBe(1);
  });

  it("the running request renews its lease: a retry long after the lease length still gets 409", async () => {
    Object.assign(idempotencyLease, { seconds: 1, renewEveryMs: 200 });
    const idem = `renew-${Math.random().toString(36).slice(2)}`;
    const { first, before } = await startHeldSearch(idem);
    await ageClaim(idem, 10);
    await new Promise((r) => setTimeout(r, 2_500)); // 2.5 lease lengths
    const second = await retryOrRerun(idem, before);
    expect(received - before, "the retry ran the search again").toBe(1);
    expect(second?.statusCode, second?.body).toBe(409);
    expect(second?.json()).toMatchObject(inProgress);
    for (const release of held.splice(0)) release();
    expect((await first).statusCode).toBe(201);
  });

  it("a claim whose owner stopped renewing (died) is taken over by a retry with the same body", async () => {
    const idem = `dead-${Math.random().toString(36).slice(2)}`;
    const { first, before } = await startHeldSearch(idem);
    for (const release of held.splice(0)) release();
    const done = await first;
    expect(done.statusCode).toBe(201);
    // the state a request that died mid-flight leaves: no response, a lease nobody renews, lapsed
    await t.db.execute(
      sql`update api_idempotency_keys set status_code = null, response = null,
            claim_id = gen_random_uuid(), lease_expires_at = now() - interval '1 second'
          where key = ${idem}`,
    );
    hold = false;
    const retry = await search(idem);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(received - before).toBe(2);
  });
});
