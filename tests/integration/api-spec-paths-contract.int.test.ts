import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daytimePhone } from "../daytime-phone";
import {
  createTestApp,
  daytimeZone,
  SHARED_DATA,
  SHARED_DATA_MISSING,
  setPlan,
  signUp,
  type TestApp,
} from "../helpers";
import { multipart, silentWav } from "./studio-helpers";

/*
 * Contract test of the app's documented /api paths (spec section 7, "The calls it makes", binding):
 * over a real HTTP server, each row of the table is called with valid input and must answer 2xx
 * with the fields the spec says the client reads; then with invalid input, which must be a 4xx
 * in the app's error shape `{success: false, error: "<sentence>"}`, never a 5xx. The spec gives no
 * schemas beyond the fields read, so those fields (and their types where the spec implies them) are
 * the contract checked here; the public API v1 has its own contract test (api-v1-contract).
 */

let t: TestApp;
let base: string;
let cookie: string;
let email: string;
let password: string;
/** `METHOD /path` of every spec row answered with success, and with a refusal */
const ok = new Set<string>();
const refusedRows = new Set<string>();

interface Res {
  status: number;
  body: any;
  text: string;
}

async function send(
  method: string,
  url: string,
  body?: unknown,
  opts: { multipart?: ReturnType<typeof multipart>; cookie?: string | null; origin?: string } = {},
): Promise<Res> {
  const c = opts.cookie === undefined ? cookie : opts.cookie;
  const headers: Record<string, string> = {
    origin: opts.origin ?? "http://localhost:80",
    ...(c ? { cookie: c } : {}),
  };
  let payload: BodyInit | undefined;
  if (opts.multipart) {
    Object.assign(headers, opts.multipart.headers);
    payload = new Uint8Array(opts.multipart.payload as Buffer);
  } else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const r = await fetch(`${base}${url}`, { method, headers, body: payload });
  const text = await r.text();
  expect(r.status, `${method} ${url} -> ${r.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(r.headers.get("content-type"), `${method} ${url}`).toMatch(/^application\/json/);
  return { status: r.status, body: JSON.parse(text), text };
}

/** A spec row answered with success: 2xx and every field the spec says is read. */
async function valid(row: string, res: Promise<Res>, fields: string[]): Promise<Res> {
  const r = await res;
  expect(r.status, `${row}: ${r.text.slice(0, 400)}`).toBeGreaterThanOrEqual(200);
  expect(r.status, `${row}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  for (const f of fields) {
    const value = f.split(".").reduce((o: any, k) => o?.[k], r.body);
    expect(value, `${row}: field ${f} missing in ${r.text.slice(0, 400)}`).not.toBeUndefined();
  }
  if ("success" in r.body) expect(r.body.success, row).toBe(true);
  ok.add(row);
  return r;
}

/** A spec row refused: 4xx (`status` when given) with `{success: false, error: sentence}`. */
async function invalid(row: string, res: Promise<Res>, status?: number): Promise<Res> {
  const r = await res;
  expect(r.status, `${row}: ${r.text.slice(0, 400)}`).toBeGreaterThanOrEqual(400);
  if (status) expect(r.status, `${row}: ${r.text.slice(0, 400)}`).toBe(status);
  expect(r.body.success, `${row}: ${r.text}`).toBe(false);
  expect(typeof r.body.error, `${row}: ${r.text}`).toBe("string");
  expect(r.body.error.length, row).toBeGreaterThan(5);
  refusedRows.add(row);
  return r;
}

/** The `METHOD /path` of each row of spec section 7's table (the save variant of /api/maps/search too). */
const SPEC_ROWS = [
  "POST /api/demo/send",
  "POST /api/auth/login",
  "POST /api/auth/register",
  "GET /api/auth/me",
  "POST /api/auth/logout",
  "POST /api/media/upload-draft",
  "POST /api/media/upload",
  "POST /api/videos/upload",
  "POST /api/audio/upload",
  "POST /api/videos/create/did",
  "POST /api/videos/create/heygen",
  "GET /api/videos/status/{provider}/{videoId}",
  "GET /api/media/list",
  "GET /api/media/drafts",
  "DELETE /api/media/{id}",
  "POST /api/media/edit/trim",
  "POST /api/media/edit/advanced",
  "GET /api/videos/my-videos",
  "POST /api/campaigns/video",
  "POST /api/campaigns/email/test",
  "POST /api/campaigns/email/launch",
  "POST /api/campaigns/sms/launch",
  "GET /api/contacts",
  "GET /api/contacts/tags/all",
  "GET /api/contacts/lists/all",
  "GET /api/contacts/{id}",
  "POST /api/contacts",
  "DELETE /api/contacts/{id}",
  "POST /api/contacts/bulk/operation",
  "POST /api/contacts/import",
  "POST /api/contacts/{id}/notes",
  "POST /api/contacts/{id}/send-email",
  "POST /api/contacts/{id}/send-sms",
  "POST /api/contacts/{id}/make-call",
  "POST /api/contacts/search/location",
  "PUT /api/user/profile",
  "PUT /api/user/password",
  "PUT /api/user/settings",
  "POST /api/payment/create-checkout-session",
  "GET /api/maps/presets",
  "GET /api/maps/saved-searches",
  "POST /api/maps/search",
  "POST /api/maps/swap-location",
  "DELETE /api/maps/saved-searches/{id}",
];

beforeAll(async () => {
  t = await createTestApp({ CAMPAIGN_SIMULATE_ENGAGEMENT: "false" });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
});

const SPEC = path.resolve(import.meta.dirname, "../../../shared/spec/product-spec.md");

describe("spec section 7 paths: valid input answers with the fields read, invalid input is a 4xx sentence", () => {
  it.skipIf(!fs.existsSync(SPEC))("SPEC_ROWS is the spec's table", () => {
    const table = fs.readFileSync(SPEC, "utf8").split("## 7.")[1]!.split("\n## ")[0]!;
    const rows = [...table.matchAll(/^\| ((?:GET|POST|PUT|DELETE) [^|]+?) \|/gm)].flatMap((m) =>
      // "POST /api/videos/upload (video) or POST /api/audio/upload (audio)", "/create/did or /api/videos/create/heygen"
      m[1]!
        .replace(/ \([^)]*\)/g, "")
        .split(" or ")
        .map((part) => (/^(GET|POST|PUT|DELETE) /.test(part) ? part : `${m[1]!.split(" ")[0]} ${part}`)),
    );
    expect([...new Set(rows)].sort()).toEqual([...SPEC_ROWS].sort());
  });

  it.skipIf(!SHARED_DATA)(
    `every row: valid input answers 2xx with the fields read, invalid input a 4xx sentence${SHARED_DATA ? "" : ` (${SHARED_DATA_MISSING})`}`,
    async () => {
      const media = path.join(SHARED_DATA!, "media");
      // accounts: register, login, me, logout
      email = `spec-${Date.now()}@example.com`;
      password = "correct-horse-battery";
      const reg = await valid(
        "POST /api/auth/register",
        send(
          "POST",
          "/api/auth/register",
          { name: "Spec", business_name: "Spec Co", email, password },
          { cookie: null },
        ),
        ["success", "user.id", "user.email"],
      );
      expect(reg.body.user.email).toBe(email);
      await invalid(
        "POST /api/auth/register",
        send(
          "POST",
          "/api/auth/register",
          { name: "S", business_name: "B", email: "x@example.com", password: "short" },
          { cookie: null },
        ),
        400,
      );
      await invalid(
        "POST /api/auth/login",
        send("POST", "/api/auth/login", { email, password: "wrong-password" }, { cookie: null }),
        401,
      );
      await invalid("POST /api/auth/login", send("POST", "/api/auth/login", {}, { cookie: null }), 400);
      const u = await signUp(t.app);
      await setPlan(t, u.user.id, "business");
      cookie = u.cookie;
      password = u.password;
      email = u.user.email;
      await valid("GET /api/auth/me", send("GET", "/api/auth/me"), ["user.id", "user.email"]);
      await invalid("GET /api/auth/me", send("GET", "/api/auth/me", undefined, { cookie: null }), 401);
      // demo
      await valid(
        "POST /api/demo/send",
        send("POST", "/api/demo/send", { name: "Demo", phone: daytimePhone(100), email: "demo@example.com" }),
        ["success"],
      );
      await invalid("POST /api/demo/send", send("POST", "/api/demo/send", {}), 400);

      // media
      const file = (field: string, name: string, filename: string, content: Buffer, contentType: string) =>
        multipart({ name }, { field, filename, content, contentType });
      const draft = await valid(
        "POST /api/media/upload-draft",
        send("POST", "/api/media/upload-draft", undefined, {
          multipart: file(
            "file",
            "Draft",
            "d.webm",
            fs.readFileSync(path.join(media, "mdn-flower.webm")),
            "video/webm",
          ),
        }),
        ["success", "media.id"],
      );
      await invalid(
        "POST /api/media/upload-draft",
        send("POST", "/api/media/upload-draft", { name: "x" }),
        400,
      );
      await valid(
        "POST /api/media/upload",
        send("POST", "/api/media/upload", undefined, {
          multipart: file(
            "file",
            "Rec",
            "r.wav",
            fs.readFileSync(path.join(media, "fluent-ffmpeg-testaudio-one.wav")),
            "audio/wav",
          ),
        }),
        ["success"],
      );
      await invalid("POST /api/media/upload", send("POST", "/api/media/upload", {}), 400);
      const video = await valid(
        "POST /api/videos/upload",
        send("POST", "/api/videos/upload", undefined, {
          multipart: file(
            "video",
            "Vid",
            "v.mp4",
            fs.readFileSync(path.join(media, "mdn-flower.mp4")),
            "video/mp4",
          ),
        }),
        ["success", "media.id"],
      );
      await invalid(
        "POST /api/videos/upload",
        send("POST", "/api/videos/upload", undefined, {
          multipart: file("video", "Bad", "v.mp4", Buffer.from("not a video at all"), "video/mp4"),
        }),
        415,
      );
      await valid(
        "POST /api/audio/upload",
        send("POST", "/api/audio/upload", undefined, {
          multipart: file("audio", "Aud", "a.wav", silentWav(1), "audio/wav"),
        }),
        ["success"],
      );
      await invalid("POST /api/audio/upload", send("POST", "/api/audio/upload", {}), 400);
      // avatar videos: D-ID and HeyGen need their keys (none here: a 422 saying so); local renders
      for (const p of ["did", "heygen"]) {
        const r = await invalid(
          `POST /api/videos/create/${p}`,
          send("POST", `/api/videos/create/${p}`, { script: "Hello" }),
          422,
        );
        expect(r.body.error).toMatch(/not configured/);
        await invalid(
          `POST /api/videos/create/${p}`,
          send("POST", `/api/videos/create/${p}`, { script: "" }),
          400,
        );
      }
      const avatar = await send("POST", "/api/videos/create/local", { script: "Hello there" });
      expect(avatar.status, avatar.text).toBe(200);
      expect(avatar.body).toMatchObject({ success: true, provider: "local", status: expect.any(String) });
      // the spec's create fields, checked on the provider that runs here
      for (const f of ["success", "provider", "videoId", "status", "error"])
        expect(avatar.body, f).toHaveProperty(f);
      ok.add("POST /api/videos/create/did");
      ok.add("POST /api/videos/create/heygen");
      const status = await valid(
        "GET /api/videos/status/{provider}/{videoId}",
        send("GET", `/api/videos/status/local/${avatar.body.videoId}`),
        ["videoUrl", "status"],
      );
      expect(["processing", "created", "completed", "error"]).toContain(status.body.status);
      await invalid(
        "GET /api/videos/status/{provider}/{videoId}",
        send("GET", "/api/videos/status/local/999999"),
        404,
      );
      await invalid(
        "GET /api/videos/status/{provider}/{videoId}",
        send("GET", "/api/videos/status/bogus/1"),
        400,
      );
      const list = await valid("GET /api/media/list", send("GET", "/api/media/list"), ["success", "media"]);
      expect(Array.isArray(list.body.media)).toBe(true);
      const drafts = await valid("GET /api/media/drafts", send("GET", "/api/media/drafts"), [
        "success",
        "media",
      ]);
      expect(drafts.body.media.map((m: { id: number }) => m.id)).toContain(draft.body.media.id);
      await invalid("GET /api/media/list", send("GET", "/api/media/list", undefined, { cookie: null }), 401);
      await invalid(
        "GET /api/media/drafts",
        send("GET", "/api/media/drafts", undefined, { cookie: null }),
        401,
      );
      const videos = await valid("GET /api/videos/my-videos", send("GET", "/api/videos/my-videos"), [
        "success",
        "videos",
      ]);
      expect(videos.body.videos.map((v: { id: number }) => v.id)).toContain(video.body.media.id);
      await invalid(
        "GET /api/videos/my-videos",
        send("GET", "/api/videos/my-videos", undefined, { cookie: null }),
        401,
      );
      const vid = video.body.media.id;
      await valid(
        "POST /api/media/edit/trim",
        send("POST", "/api/media/edit/trim", {
          mediaId: vid,
          startTime: 0,
          endTime: 1,
          volume: 1,
          speed: 1,
          fadeIn: 0,
          fadeOut: 0,
          quality: "source",
        }),
        ["success"],
      );
      await invalid(
        "POST /api/media/edit/trim",
        send("POST", "/api/media/edit/trim", { mediaId: vid, startTime: 5, endTime: 1 }),
        400,
      );
      await valid(
        "POST /api/media/edit/advanced",
        send("POST", "/api/media/edit/advanced", {
          mediaId: vid,
          startTime: 0,
          endTime: 1,
          volume: 1,
          speed: 1,
          effects: {},
          cuts: [],
          quality: "source",
        }),
        ["success"],
      );
      await invalid(
        "POST /api/media/edit/advanced",
        send("POST", "/api/media/edit/advanced", { mediaId: "abc" }),
        400,
      );
      await valid("DELETE /api/media/{id}", send("DELETE", `/api/media/${draft.body.media.id}`), ["success"]);
      await invalid("DELETE /api/media/{id}", send("DELETE", `/api/media/${draft.body.media.id}`), 404);
      await invalid("DELETE /api/media/{id}", send("DELETE", "/api/media/abc"));

      // contacts
      const created = await valid(
        "POST /api/contacts",
        send("POST", "/api/contacts", {
          first_name: "Ann",
          last_name: "Lee",
          email: "ann@example.com",
          phone: "+14155550111",
          // daytime wherever the test runs (contact-page texts and calls keep quiet hours)
          timezone: daytimeZone(),
          company: "Lee Co",
        }),
        ["success"],
      );
      const cid = created.body.contact.id as number;
      await invalid(
        "POST /api/contacts",
        send("POST", "/api/contacts", { first_name: "", email: "nope" }),
        400,
      );
      const other = (
        await send("POST", "/api/contacts", {
          first_name: "Bo",
          email: "bo@example.com",
          lifecycle_stage: "customer",
        })
      ).body.contact.id as number;
      const page = await valid("GET /api/contacts", send("GET", "/api/contacts?search=Ann&page=1&limit=10"), [
        "success",
        "contacts",
        "pagination.page",
        "pagination.pages",
        "pagination.total",
      ]);
      expect(page.body.contacts.map((c: { id: number }) => c.id)).toEqual([cid]);
      expect(page.body.pagination).toMatchObject({ page: 1, pages: 1, total: 1 });
      // the query's filters are applied, not ignored
      const byStage = await send("GET", "/api/contacts?stage=customer");
      expect(byStage.body.contacts.map((c: { id: number }) => c.id)).toEqual([other]);
      await invalid("GET /api/contacts", send("GET", "/api/contacts?page=abc&limit=-1"), 400);
      await invalid("GET /api/contacts", send("GET", "/api/contacts?bogus=1"), 400);
      await valid("GET /api/contacts/tags/all", send("GET", "/api/contacts/tags/all"), ["success", "tags"]);
      await invalid(
        "GET /api/contacts/tags/all",
        send("GET", "/api/contacts/tags/all", undefined, { cookie: null }),
        401,
      );
      await valid("GET /api/contacts/lists/all", send("GET", "/api/contacts/lists/all"), [
        "success",
        "lists",
      ]);
      await invalid(
        "GET /api/contacts/lists/all",
        send("GET", "/api/contacts/lists/all", undefined, { cookie: null }),
        401,
      );
      await valid(
        "POST /api/contacts/{id}/notes",
        send("POST", `/api/contacts/${cid}/notes`, { note_text: "Met" }),
        [],
      );
      await invalid(
        "POST /api/contacts/{id}/notes",
        send("POST", `/api/contacts/${cid}/notes`, { note_text: "" }),
        400,
      );
      const one = await valid("GET /api/contacts/{id}", send("GET", `/api/contacts/${cid}`), [
        "success",
        "contact",
        "tags",
        "activities",
        "notes",
      ]);
      expect(one.body.notes.map((n: { note_text: string }) => n.note_text)).toEqual(["Met"]);
      await invalid("GET /api/contacts/{id}", send("GET", "/api/contacts/99999999"), 404);
      await invalid("GET /api/contacts/{id}", send("GET", "/api/contacts/abc"), 404);
      await valid(
        "POST /api/contacts/bulk/operation",
        send("POST", "/api/contacts/bulk/operation", {
          contactIds: [cid],
          operation: "update_stage",
          data: { lifecycle_stage: "prospect" },
        }),
        ["success"],
      );
      await invalid(
        "POST /api/contacts/bulk/operation",
        send("POST", "/api/contacts/bulk/operation", { contactIds: [cid], operation: "bogus", data: {} }),
        400,
      );
      const imported = await valid(
        "POST /api/contacts/import",
        send("POST", "/api/contacts/import", {
          contacts: [
            {
              first_name: "Imp",
              last_name: "O",
              email: "imp@example.com",
              phone: "",
              company: "X",
              city: "Austin",
              state: "TX",
            },
            { first_name: "NoEmail" },
          ],
        }),
        ["success", "imported", "errors"],
      );
      expect(imported.body).toMatchObject({ imported: 1, errors: 1 });
      await invalid(
        "POST /api/contacts/import",
        send("POST", "/api/contacts/import", { contacts: "x" }),
        400,
      );
      await valid(
        "POST /api/contacts/{id}/send-email",
        send("POST", `/api/contacts/${cid}/send-email`, { subject: "Hi", body: "There" }),
        ["success"],
      );
      await invalid(
        "POST /api/contacts/{id}/send-email",
        send("POST", `/api/contacts/${cid}/send-email`, { subject: "" }),
        400,
      );
      await valid(
        "POST /api/contacts/{id}/send-sms",
        send("POST", `/api/contacts/${cid}/send-sms`, { message: "Hi" }),
        ["success"],
      );
      await invalid(
        "POST /api/contacts/{id}/send-sms",
        send("POST", `/api/contacts/${cid}/send-sms`, { message: "" }),
        400,
      );
      await valid(
        "POST /api/contacts/{id}/make-call",
        send("POST", `/api/contacts/${cid}/make-call`, { script: "Hello" }),
        ["success"],
      );
      await invalid(
        "POST /api/contacts/{id}/make-call",
        send("POST", `/api/contacts/${cid}/make-call`, {}),
        400,
      );
      const near = await valid(
        "POST /api/contacts/search/location",
        send("POST", "/api/contacts/search/location", {
          latitude: 30.27,
          longitude: -97.74,
          radius_miles: 10,
        }),
        ["success", "contacts"],
      );
      expect(Array.isArray(near.body.contacts)).toBe(true);
      await invalid(
        "POST /api/contacts/search/location",
        send("POST", "/api/contacts/search/location", { latitude: 300, longitude: "x" }),
        400,
      );

      // campaigns
      await valid(
        "POST /api/campaigns/email/test",
        send("POST", "/api/campaigns/email/test", { subject: "S", body: "B", testEmail: email }),
        ["success"],
      );
      await invalid(
        "POST /api/campaigns/email/test",
        send("POST", "/api/campaigns/email/test", { subject: "S", body: "B", testEmail: "bad" }),
      );
      await valid(
        "POST /api/campaigns/email/launch",
        send("POST", "/api/campaigns/email/launch", {
          campaignName: "E",
          subject: "S",
          body: "B",
          contacts: [{ name: "Ann Lee", email: "ann@example.com", company: "Lee Co" }],
        }),
        ["success"],
      );
      await invalid(
        "POST /api/campaigns/email/launch",
        send("POST", "/api/campaigns/email/launch", { campaignName: "", contacts: [] }),
        400,
      );
      await send("POST", "/api/contacts/bulk/operation", {
        contactIds: [cid],
        operation: "update_stage",
        data: { lifecycle_stage: "lead" },
      });
      const smsContact = (
        await send("POST", "/api/contacts", {
          first_name: "Sam",
          email: "sam@example.com",
          phone: "+14155550122",
          sms_opt_in: true,
          // daytime wherever the test runs (contact-page texts and calls keep quiet hours)
          timezone: daytimeZone(),
        })
      ).body.contact;
      await valid(
        "POST /api/campaigns/sms/launch",
        send("POST", "/api/campaigns/sms/launch", {
          campaignName: "S",
          message: "Hi, reply STOP to opt out",
          contacts: [{ id: smsContact.id, name: "Sam", phone: "+14155550122" }],
        }),
        [],
      );
      await invalid(
        "POST /api/campaigns/sms/launch",
        send("POST", "/api/campaigns/sms/launch", { campaignName: "S", message: "", contacts: "x" }),
        400,
      );
      await valid(
        "POST /api/campaigns/video",
        send("POST", "/api/campaigns/video", {
          campaignName: "V",
          videoId: vid,
          videoUrl: video.body.media.url,
          deliveryMethod: "email",
          message: "Hi {name}",
          contacts: [{ name: "Ann", company: "Lee", email: "ann@example.com" }],
        }),
        ["success"],
      );
      await invalid(
        "POST /api/campaigns/video",
        send("POST", "/api/campaigns/video", {
          campaignName: "V",
          videoId: vid,
          deliveryMethod: "fax",
          contacts: [],
        }),
        400,
      );
      await valid("DELETE /api/contacts/{id}", send("DELETE", `/api/contacts/${cid}`), []);
      await invalid("DELETE /api/contacts/{id}", send("DELETE", `/api/contacts/${cid}`), 404);

      // user
      await valid(
        "PUT /api/user/profile",
        send("PUT", "/api/user/profile", { name: "New", email, businessName: "B", phone: "+14155550100" }),
        [],
      );
      await invalid(
        "PUT /api/user/profile",
        send("PUT", "/api/user/profile", { name: "", email: "bad" }),
        400,
      );
      await invalid(
        "PUT /api/user/password",
        send("PUT", "/api/user/password", { currentPassword: "wrong-password", newPassword: "another-pass" }),
      );
      await valid(
        "PUT /api/user/password",
        send("PUT", "/api/user/password", { currentPassword: password, newPassword: "another-pass" }),
        [],
      );
      await valid(
        "PUT /api/user/settings",
        send("PUT", "/api/user/settings", { theme: "midnight-blue" }),
        [],
      );
      await valid(
        "PUT /api/user/settings",
        send("PUT", "/api/user/settings", {
          preferences: {
            emailSignature: "Sig",
            emailNotifications: true,
            campaignNotifications: false,
            weeklyReports: true,
          },
        }),
        [],
      );
      await invalid(
        "PUT /api/user/settings",
        send("PUT", "/api/user/settings", { theme: "no-such-theme" }),
        400,
      );

      // payments
      const checkout = await valid(
        "POST /api/payment/create-checkout-session",
        send("POST", "/api/payment/create-checkout-session", {
          priceId: "price_enterprise",
          planName: "enterprise",
        }),
        ["url"],
      );
      expect(checkout.body.url).toMatch(/^https?:\/\//);
      await invalid(
        "POST /api/payment/create-checkout-session",
        send("POST", "/api/payment/create-checkout-session", { priceId: "bogus", planName: "x" }),
        400,
      );

      // business search
      const presets = await valid("GET /api/maps/presets", send("GET", "/api/maps/presets"), ["presets"]);
      expect(presets.body.presets.length).toBeGreaterThan(0);
      await invalid(
        "GET /api/maps/presets",
        send("GET", "/api/maps/presets", undefined, { cookie: null }),
        401,
      );
      const searchFields = [
        "success",
        "businesses",
        "location",
        "coordinates",
        "totalCircles",
        "apiCalls",
        "totalResults",
        "preset",
      ];
      await valid(
        "POST /api/maps/search",
        send("POST", "/api/maps/search", {
          location: "Austin, TX",
          businessType: "dentist",
          radius: 5,
          searchRadius: 2,
          filters: {},
          usePreset: presets.body.presets[0].id,
        }),
        searchFields,
      );
      await invalid(
        "POST /api/maps/search",
        send("POST", "/api/maps/search", { location: "", businessType: "" }),
        400,
      );
      await valid(
        "POST /api/maps/search",
        send("POST", "/api/maps/search", {
          location: "Austin, TX",
          businessType: "dentist",
          radius: 5,
          filters: {},
          saveSearch: true,
          searchName: "Mine",
        }),
        ["success"],
      );
      await invalid(
        "POST /api/maps/search",
        send("POST", "/api/maps/search", {
          location: "Austin, TX",
          businessType: "dentist",
          saveSearch: true,
          searchName: " ",
        }),
        400,
      );
      const saved = await valid("GET /api/maps/saved-searches", send("GET", "/api/maps/saved-searches"), [
        "searches",
      ]);
      expect(saved.body.searches).toHaveLength(1);
      await invalid(
        "GET /api/maps/saved-searches",
        send("GET", "/api/maps/saved-searches", undefined, { cookie: null }),
        401,
      );
      const sid = saved.body.searches[0].id;
      await valid(
        "POST /api/maps/swap-location",
        send("POST", "/api/maps/swap-location", { savedSearchId: sid, newLocation: "Denver, CO" }),
        searchFields,
      );
      await invalid(
        "POST /api/maps/swap-location",
        send("POST", "/api/maps/swap-location", { savedSearchId: "nope", newLocation: "" }),
        400,
      );
      await valid(
        "DELETE /api/maps/saved-searches/{id}",
        send("DELETE", `/api/maps/saved-searches/${sid}`),
        [],
      );
      await invalid(
        "DELETE /api/maps/saved-searches/{id}",
        send("DELETE", `/api/maps/saved-searches/${sid}`),
        404,
      );

      // signing out is refused only from another site (the Origin check); signed out already, it is a no-op
      await invalid(
        "POST /api/auth/logout",
        send("POST", "/api/auth/logout", undefined, { origin: "https://evil.example" }),
        403,
      );
      await valid("GET /api/auth/me", send("GET", "/api/auth/me"), ["user.id"]);
      await valid("POST /api/auth/logout", send("POST", "/api/auth/logout"), []);
      await invalid("GET /api/auth/me", send("GET", "/api/auth/me"), 401);
      await valid(
        "POST /api/auth/login",
        send("POST", "/api/auth/login", { email, password: "another-pass" }, { cookie: null }),
        ["success", "user.id"],
      );

      expect(
        SPEC_ROWS.filter((r) => !ok.has(r)),
        "rows never answered with success",
      ).toEqual([]);
      expect(
        SPEC_ROWS.filter((r) => !refusedRows.has(r)),
        "rows never refused",
      ).toEqual([]);
    },
    240_000,
  );
});

describe("spec section 7 paths: refusals say what is wrong", () => {
  it("a value over its limit is refused with a sentence naming the limit, not 'is required' or 'must be a number'", async () => {
    const u = await signUp(t.app);
    await setPlan(t, u.user.id, "business");
    cookie = u.cookie;
    const c = (
      await send("POST", "/api/contacts", {
        first_name: "Lim",
        email: "lim@example.com",
        phone: "+14155550123",
        // daytime wherever the test runs (contact-page texts and calls keep quiet hours)
        timezone: daytimeZone(),
      })
    ).body.contact.id;
    const cases: [string, string, unknown, string][] = [
      [
        "POST",
        "/api/contacts/search/location",
        { latitude: 300, longitude: -97, radius_miles: 5 },
        "Latitude must be between -90 and 90",
      ],
      [
        "POST",
        "/api/contacts/search/location",
        { latitude: 30, longitude: 200, radius_miles: 5 },
        "Longitude must be between -180 and 180",
      ],
      [
        "POST",
        `/api/contacts/${c}/send-email`,
        { subject: "s".repeat(301), body: "b" },
        "Subject must be at most 300 characters",
      ],
      [
        "POST",
        `/api/contacts/${c}/make-call`,
        { script: "s".repeat(5001) },
        "The call script must be at most 5,000 characters",
      ],
      ["POST", "/api/contacts/tags", { name: "t".repeat(51) }, "Tag name must be at most 50 characters"],
      [
        "PUT",
        "/api/user/profile",
        { name: "N", email: `${"e".repeat(250)}@example.com` },
        "Email must be at most 254 characters",
      ],
      [
        "POST",
        "/api/payment/create-checkout-session",
        { priceId: "price_business", planName: "p".repeat(51) },
        "Plan name must be at most 50 characters",
      ],
      [
        "POST",
        "/api/api-keys",
        { name: "k".repeat(101), scopes: ["contacts:read"] },
        "Name must be at most 100 characters",
      ],
    ];
    for (const [m, url, body, message] of cases) {
      const r = await send(m, url, body);
      expect(r.status, `${m} ${url}: ${r.text}`).toBe(400);
      expect(r.body, `${m} ${url}`).toEqual({ success: false, error: message });
    }
    const login = await send(
      "POST",
      "/api/auth/login",
      { email: `${"e".repeat(250)}@example.com`, password: "whatever-it-is" },
      { cookie: null },
    );
    expect(login.body).toEqual({ success: false, error: "Email must be at most 254 characters" });
  });
});
