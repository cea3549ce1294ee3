import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leadSearches } from "../../src/server/db/schema";
import { enrichWebsite } from "../../src/server/features/leads/leads.enrich";
import { purgeGoogleContentJob } from "../../src/server/features/leads/leads.jobs";
import { type FakeGPlace, startGooglePlacesFake } from "../fakes/google-places";
import { startFakeWebsite } from "../fakes/website";
import { createTestApp, signUp, type TestApp } from "../helpers";

/**
 * Website enrichment (issue 13) against local fake websites, and the purge of Google content other
 * than place ids (Google's terms). The sites are on 127.0.0.1, allowed by OUTBOUND_ALLOWED_HOSTS as
 * the only exception to the SSRF guard.
 */

type Site = Awaited<ReturnType<typeof startFakeWebsite>>;
let good: Site;
let blocked: Site;
let redirect: Site;
let big: Site;
let g: TestApp;
let places: Awaited<ReturnType<typeof startGooglePlacesFake>>;

const place = (i: number, website: string | undefined): FakeGPlace => ({
  id: `ChIJenrich${i}`,
  displayName: { text: `Enrich Dental ${i}`, languageCode: "en" },
  formattedAddress: `${200 + i} State St, Saginaw, MI 48601, USA`,
  location: { latitude: 43.4047 + i * 0.001, longitude: -83.9156 },
  rating: 4.2,
  userRatingCount: 40,
  priceLevel: "PRICE_LEVEL_MODERATE",
  businessStatus: "OPERATIONAL",
  currentOpeningHours: { openNow: true },
  nationalPhoneNumber: `(989) 555-02${String(i).padStart(2, "0")}`,
  ...(website ? { websiteUri: website } : {}),
  types: ["dentist", "health", "point_of_interest", "establishment"],
});

beforeAll(async () => {
  good = await startFakeWebsite({
    "/robots.txt": {
      headers: { "content-type": "text/plain" },
      body: "User-agent: *\nDisallow: /about-us\n",
    },
    "/": {
      body: `<html><head><script>var x = "script@hidden.test";</script></head><body>
        <a href="/contact-us">Contact us</a> <a href="/about-us">About</a>
        <a href="https://www.facebook.com/EnrichDental/">Facebook</a>
        <a href="https://www.facebook.com/sharer/sharer.php?u=x">Share</a>
        <a href="https://instagram.com/enrichdental">Instagram</a>
        <img src="logo@2x.png"></body></html>`,
    },
    "/contact-us": {
      body: `<p>Write to <a href="mailto:Hello@Enrich-Dental.test?subject=Hi">us</a> or
        office&#64;enrich-dental.test</p>
        <form><input name="email" type="email"><textarea name="message"></textarea></form>`,
    },
    "/about-us": { body: "<p>secret@enrich-dental.test</p>" },
  });
  blocked = await startFakeWebsite({
    "/robots.txt": {
      headers: { "content-type": "text/plain" },
      body: "User-agent: PitchwiseBot\nDisallow: /\n",
    },
    "/": { body: "<p>blocked@robots.test</p>" },
  });
  redirect = await startFakeWebsite({
    "/": { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } },
    "/contact": { status: 302, headers: { location: "http://localhost:1/private" } },
  });
  big = await startFakeWebsite({
    "/": {
      body: (res) => {
        // 3 MiB: an email in the first KiB and another after 2 MiB (past the 1 MiB cap)
        res.write(`<p>early@big-site.test</p>${" ".repeat(1024)}`);
        const chunk = `<p>${"x".repeat(64 * 1024 - 7)}</p>`;
        let sent = 0;
        const more = () => {
          while (sent < 48) {
            sent++;
            if (sent === 33) res.write("<p>late@big-site.test</p>");
            if (!res.write(chunk)) return void res.once("drain", more);
          }
          res.end();
        };
        res.on("error", () => {});
        more();
      },
    },
  });
  places = await startGooglePlacesFake({
    apiKey: "test-key",
    places: [
      place(1, good.url),
      place(2, blocked.url),
      place(3, redirect.url),
      place(4, big.url),
      place(5, undefined),
    ],
  });
  g = await createTestApp({
    PLACES_PROVIDER: "google",
    GOOGLE_PLACES_API_KEY: "test-key",
    GOOGLE_PLACES_API_URL: places.url,
    OUTBOUND_ALLOWED_HOSTS: "127.0.0.1",
  });
});
afterAll(async () => {
  await g?.close();
  for (const s of [good, blocked, redirect, big, places]) await s?.close();
});

const search = { location: "48601", businessType: "dentist", radius: 2, searchRadius: 1 };

describe("enrichWebsite (the crawler)", () => {
  const allowed = ["127.0.0.1"];

  it("finds emails (mailto, text, entities; not scripts or image names), profiles and a contact form; honours robots.txt; 3 pages at most", async () => {
    good.requested.length = 0;
    const r = await enrichWebsite(good.url, allowed);
    expect(r.status).toBe("ok");
    expect(r.emails.sort()).toEqual(["hello@enrich-dental.test", "office@enrich-dental.test"]);
    expect(r.email).toMatch(/@enrich-dental\.test$/);
    expect(r.socials).toEqual({
      facebook: "https://www.facebook.com/EnrichDental",
      instagram: "https://instagram.com/enrichdental",
    });
    expect(r.hasContactForm).toBe(true);
    // robots.txt first, then home and contact; /about-us is disallowed and never requested
    expect(good.requested).toEqual(["/robots.txt", "/", "/contact-us"]);
    expect(r.skipped).toContainEqual({ url: `${good.url}about-us`, reason: "disallowed by robots.txt" });
    expect(good.userAgents.every((u) => u.startsWith("PitchwiseBot/"))).toBe(true);
  });

  it("HTTPS first: an http:// website is tried over TLS before plain http", async () => {
    good.connections.length = 0;
    good.requested.length = 0;
    const r = await enrichWebsite(good.url, allowed);
    // one TLS attempt first (refused by this plain-http site), then the pages over http (connections
    // may be reused from earlier tests, so only the new ones are recorded)
    expect(good.connections[0]).toBe("tls");
    expect(good.connections.filter((c) => c === "tls")).toHaveLength(1);
    expect(good.requested[0]).toBe("/robots.txt");
    expect(r.pages.every((p) => p.url.startsWith("http://"))).toBe(true);
  });

  it("a robots.txt that cannot be read (5xx) disallows everything (RFC 9309)", async () => {
    const down = await startFakeWebsite({
      "/robots.txt": { status: 503, body: "busy" },
      "/": { body: "<p>down@robots.test</p>" },
    });
    try {
      const r = await enrichWebsite(down.url, allowed);
      expect(r.status).toBe("blocked");
      expect(down.requested).toEqual(["/robots.txt"]);
    } finally {
      await down.close();
    }
  });

  it("a robots.txt disallowing our agent: no page is fetched", async () => {
    blocked.requested.length = 0;
    const r = await enrichWebsite(blocked.url, allowed);
    expect(r.status).toBe("blocked");
    expect(r.email).toBeNull();
    expect(blocked.requested).toEqual(["/robots.txt"]);
  });

  it("refuses redirects to private addresses (cloud metadata, localhost) hop by hop", async () => {
    const r = await enrichWebsite(redirect.url, allowed);
    expect(r.pages.filter((p) => p.status < 400)).toEqual([]); // only /about answered (404)
    expect(r.status).toBe("failed");
    expect(r.skipped.map((s) => s.reason).join(" | ")).toMatch(/169\.254\.169\.254.*non-public/);
    expect(r.skipped.map((s) => s.reason).join(" | ")).toMatch(/localhost.*non-public/);
  });

  it("reads at most 1 MiB of a page: the cut page keeps what came before the cap", async () => {
    const r = await enrichWebsite(big.url, allowed);
    expect(r.pages[0]).toMatchObject({ status: 200, truncated: true });
    expect(r.emails).toContain("early@big-site.test");
    expect(r.emails).not.toContain("late@big-site.test");
  });

  it("refuses private addresses without the allow-list exception", async () => {
    const r = await enrichWebsite(good.url, []);
    expect(r.status).toBe("failed");
    expect(r.skipped[0]?.reason).toMatch(/non-public/);
    expect(r.pages).toEqual([]);
  });
});

describe("enrichment job on a search", () => {
  it("email filters need enrichment with Google; with it they are applied after the job, results re-scored, progress complete", async () => {
    const a = await signUp(g.app);
    const no = await a.client.post("/api/maps/search", { ...search, filters: { hasEmail: true } });
    expect(no.statusCode).toBe(422);
    expect(no.json().error).toContain("hasEmail (Google does not supply email addresses)");

    const filters = (await a.client.get("/api/maps/filters")).json().filters;
    expect(filters.find((f: { key: string }) => f.key === "hasEmail")).toMatchObject({
      answerable: false,
      answerableWithEnrichment: true,
    });
    expect(filters.find((f: { key: string }) => f.key === "minBBBRating")).toMatchObject({
      answerable: false,
      answerableWithEnrichment: false,
    });

    const plain = (await a.client.post("/api/maps/search", { ...search, enrich: true })).json();
    expect(plain.totalResults).toBe(5);
    expect(plain.enrichment).toEqual({ status: "queued", deferredFilters: [] });
    // the inline job client ran the job during the request: read the stored results
    const call = async (path: string, input: unknown) =>
      (
        await a.client.get(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`)
      ).json().result.data.json;
    const progress = await call("leads.progress", { searchId: plain.searchId });
    expect(progress.enrichment).toEqual({ status: "completed", done: 4, total: 4 });
    const results = await call("leads.results", { searchId: plain.searchId });
    const byName = Object.fromEntries(results.map((b: { name: string }) => [b.name, b]));
    const one = byName["Enrich Dental 1"];
    expect(one.email).toMatch(/@enrich-dental\.test$/);
    expect(one.socials.facebook).toBe("https://www.facebook.com/EnrichDental");
    expect(one.has_contact_form).toBe(true);
    expect(one.enrichment).toMatchObject({ status: "ok", pages: 2, emails_found: 2 });
    expect(one.scoreReasons).toContain("Public email (+10)");
    const before = plain.businesses.find((b: { name: string }) => b.name === "Enrich Dental 1");
    expect(one.leadScore).toBe(before.leadScore + 15); // email +10, social profile +5
    expect(byName["Enrich Dental 2"].enrichment.status).toBe("blocked");
    expect(byName["Enrich Dental 3"].enrichment.status).toBe("failed");
    expect(byName["Enrich Dental 4"].email).toBe("early@big-site.test");
    expect(byName["Enrich Dental 5"].enrichment).toMatchObject({ status: "skipped", reason: "no website" });

    const filtered = (
      await a.client.post("/api/maps/search", { ...search, enrich: true, filters: { hasEmail: true } })
    ).json();
    expect(filtered.enrichment.deferredFilters).toEqual(["hasEmail"]);
    expect(filtered.totalResults).toBe(5); // before enrichment nothing is known
    const after = await call("leads.results", { searchId: filtered.searchId });
    expect(after.map((b: { name: string }) => b.name).sort()).toEqual(["Enrich Dental 1", "Enrich Dental 4"]);
    expect((await call("leads.progress", { searchId: filtered.searchId })).totalResults).toBe(2);

    const social = (
      await a.client.post("/api/maps/search", { ...search, enrich: true, filters: { hasInstagram: true } })
    ).json();
    expect(
      (await call("leads.results", { searchId: social.searchId })).map((b: { name: string }) => b.name),
    ).toEqual(["Enrich Dental 1"]);
  });

  it("local demo results are not visited (their websites are invented)", async () => {
    const t = await createTestApp();
    try {
      const a = await signUp(t.app);
      const r = (
        await a.client.post("/api/maps/search", {
          location: "Saginaw, MI",
          businessType: "dentist",
          radius: 2,
          enrich: true,
        })
      ).json();
      const [s] = await t.db.select().from(leadSearches).where(eq(leadSearches.id, r.searchId));
      expect(s).toMatchObject({ enrichStatus: "completed", enrichTotal: 0 });
      const [row] = await t.db.execute<{ e: { status: string; reason: string } }>(
        sql`select data->'enrichment' as e from lead_results where search_id = ${r.searchId} limit 1`,
      );
      expect(row?.e).toMatchObject({ status: "skipped", reason: "demo data: its website is invented" });
    } finally {
      await t.close();
    }
  });
});

describe("Google content retention", () => {
  it("keeps only place ids after GOOGLE_PLACES_RETENTION_DAYS: on read at once, and in storage by the purge job", async () => {
    const a = await signUp(g.app);
    const r = (await a.client.post("/api/maps/search", search)).json();
    const results = () =>
      a.client
        .get(
          `/trpc/leads.results?input=${encodeURIComponent(JSON.stringify({ json: { searchId: r.searchId } }))}`,
        )
        .then((x) => x.json().result.data.json);
    expect(await results()).toHaveLength(5);
    // the purge job waits for the retention period
    const queued = g.jobs.deferred.filter((d) => d.job.name === "leads.purge-google-content");
    expect(queued.some((d) => (d.data as { searchId: string }).searchId === r.searchId)).toBe(true);
    const due = queued.find((d) => (d.data as { searchId: string }).searchId === r.searchId)!;
    expect(due.options.startAfter!.getTime() - Date.now()).toBeGreaterThan(29.9 * 86_400_000);

    // run early: nothing is purged
    await g.jobs.runDeferred();
    const [row0] = await g.db.execute<{ data: Record<string, unknown> }>(
      sql`select data from lead_results where search_id = ${r.searchId} limit 1`,
    );
    expect(row0?.data.name).toMatch(/^Enrich Dental/);

    // 31 days later: read shows place ids only before the job ran; add-to-contacts refuses
    await g.db
      .update(leadSearches)
      .set({ finishedAt: new Date(Date.now() - 31 * 86_400_000) })
      .where(eq(leadSearches.id, r.searchId));
    expect(await results()).toEqual([]); // the screen's list: nothing left to show
    const add = await a.client.post("/api/maps/results/add-to-contacts", {
      searchId: r.searchId,
      placeIds: ["ChIJenrich1"],
    });
    expect(add.statusCode).toBe(409);
    expect(add.json().error).toContain("Google's terms keep only place ids after 30 days");

    // the job rewrites storage: place id only, and stamps the search
    await g.jobs.send(purgeGoogleContentJob, { searchId: r.searchId });
    const rows = await g.db.execute<{ place_id: string; data: Record<string, unknown> }>(
      sql`select place_id, data from lead_results where search_id = ${r.searchId} order by position`,
    );
    expect(rows).toHaveLength(5);
    for (const x of rows) expect(x.data).toEqual({ place_id: x.place_id, purged: true });
    const [s] = await g.db.select().from(leadSearches).where(eq(leadSearches.id, r.searchId));
    expect(s?.contentPurgedAt).toBeInstanceOf(Date);
    // the saved searches keep only inputs and place ids
    const cols = await g.db.execute<{ column_name: string }>(
      sql`select column_name from information_schema.columns where table_name = 'lead_saved_searches'`,
    );
    expect(cols.map((c) => c.column_name).sort()).toEqual(
      [
        "business_type",
        "circle_size",
        "created_at",
        "created_by",
        "filters",
        "id",
        "last_place_ids",
        "last_run_at",
        "location",
        "preset",
        "radius",
        "result_count",
        "search_name",
        "workspace_id",
      ].sort(),
    );
  });
});
