/**
 * Fuzz test (issue 11, "Done when"): every REST route of Fastify's route table and every tRPC
 * procedure of the app router gets hostile input — wrong types, NUL, lone surrogates, huge strings,
 * arrays and objects swapped, fields missing, broken JSON, other content types, hostile path
 * parameters and superjson envelopes — signed in as workspace members (an admin member and the
 * owner of a workspace on the Enterprise plan, with contacts, a tag, a list and an API key), and no
 * answer may be a 5xx.
 *
 * Inputs are schema-aware where the schema is known: a tRPC procedure's zod input, and for a REST
 * route the zod schemas its adapter hands to `parseInput` (recorded by a probe request), each turned
 * into a valid sample (zod -> JSON Schema -> sample) whose fields are then broken one at a time, so
 * a request gets past validation of the other fields and reaches the code behind it. Each route gets a
 * deterministic sample (seeded by its name) of its mutations — about 30 requests per REST route and 24
 * per procedure, ~7,200 in all — so the run takes a few minutes. Date-ish fields always also get
 * dates past year 9999 (FAR_DATES), and every list taking a `cursor` gets cursors that decode but
 * hold impossible timestamps, NULs or bad ids (HOSTILE_CURSORS); every path parameter and UUID field
 * gets 36-character ids that are not UUIDs (UUID_LOOKALIKES); FUZZ_PER_FIELD=all tries every
 * value (slow), FUZZ_ONLY=<substring> one route. The summary prints requests, routes, procedures, the
 * slowest requests and the routes that never answered 2xx (fuzzed shallowly: fixtures missing).
 */
import { createHash } from "node:crypto";
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { appRouter } from "../../src/server/trpc/router";
import {
  type AuthedClient,
  createTestApp,
  daytimeZone,
  inviteTokenFor,
  setPlan,
  signUp,
  type TestApp,
  uniqueEmail,
} from "../helpers";
import { silentWav } from "./studio-helpers";

// --------------------------------------------------------------------------------------------
// Which zod schemas a REST adapter validates with: parseInput is wrapped to record them
// --------------------------------------------------------------------------------------------
const seenSchemas: z.ZodType[] = [];
vi.mock("../../src/server/lib/validate", async (importOriginal) => {
  const orig = await importOriginal<typeof import("../../src/server/lib/validate")>();
  return {
    ...orig,
    parseInput: (schema: z.ZodType, input: unknown) => {
      if (seenSchemas.length < 20 && !seenSchemas.includes(schema)) seenSchemas.push(schema);
      return orig.parseInput(schema, input);
    },
  };
});

const PER_FIELD = process.env.FUZZ_PER_FIELD === "all" ? Number.POSITIVE_INFINITY : 3;
/** FUZZ_ONLY=substring: fuzz only the routes/procedures whose name contains it (debugging). */
const ONLY = process.env.FUZZ_ONLY ?? "";

const NUL = "a\u0000b";
const HIGH = "x\uD800y";
const LOW = "\uDC00";
const HUGE = "A".repeat(200_000);

/** Values that replace one field at a time. */
const HOSTILE: unknown[] = [
  null,
  NUL,
  HIGH,
  LOW,
  HUGE,
  [],
  {},
  0,
  -1,
  1.5,
  2 ** 53 + 2,
  1e308,
  -1e308,
  1e20,
  "99999999999999999999999",
  true,
  "",
  "   ",
  ["a", 1, null, {}],
  { a: { b: [NUL] } },
  "NaN",
  "-0",
  "2026-02-30T25:61:00Z",
  "00000000-0000-0000-0000-000000000000",
  "'; drop table contacts; --",
  "%s%n%x%d",
  "../../../../etc/passwd",
  "http://127.0.0.1:1/x",
  "file:///etc/passwd",
  "javascript:alert(1)",
  "<script>alert(1)</script>",
  "\u202e\u200b\ufeff",
  "😀".repeat(2000),
  "x".repeat(10_001),
  { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } },
];

/**
 * Values of a date-ish field (`*_at`, `*At`, or a date-time in the sample): past year 9999 once in
 * UTC, as an epoch number, an expanded year and an offset that crosses the year; the last instant a
 * JS Date holds; a day that does not exist. Always tried on such fields, not sampled.
 */
const FAR_DATES: unknown[] = [
  253402300800000,
  8640000000000000,
  "+010000-01-01T00:00:00Z",
  "9999-12-31T23:59:59-14:00",
  "9999-12-31T23:59:59.999-14:00",
  "2026-02-30T09:00:00Z",
];

/**
 * Cursors that decode but hold what no list gives out: impossible timestamps (month 13, hour 25,
 * offset +99, 30 February, year 0), the old `ts|id` form, NUL and lone surrogates in a name, ids out
 * of range or of the wrong type. Sent to every list that takes `cursor`.
 */
const CURSOR_KEYS: string[] = [
  "2026-13-45 25:61:61.1+00|2",
  "9999-12-31 23:59:59+99|2",
  '["2026-13-45 25:61:61+00",1]',
  '["9999-12-31 23:59:59+99",1]',
  '["2026-02-30 00:00:00+00",1]',
  '["0000-01-01 00:00:00+00",1]',
  '["2026-13-45 25:61:61+00","00000000-0000-0000-0000-000000000000"]',
  '["\\u0000",1]',
  '["\\ud800",1]',
  '["a",-1]',
  '["a",1e400]',
  '["2026-01-01 00:00:00+00","2"]',
  '[{"a":1},[]]',
];
const HOSTILE_CURSORS = CURSOR_KEYS.map((k) => Buffer.from(k, "utf8").toString("base64url"));

/** Whole bodies/inputs (a route's input replaced as a whole). */
const WHOLE: unknown[] = [null, "text", 42, [], [{}], { [NUL]: 1 }, { "\uD800": "x" }, true];

/** Hostile values of a path parameter (URL-encoded where needed). */
const PARAMS = [
  "0",
  "-1",
  "1.5",
  "99999999999999999999",
  "9223372036854775808",
  "abc",
  "null",
  "%00",
  "a%00b",
  "%ED%A0%80",
  "%F0%9F%98%80",
  "%E2%80%AE",
  "..%2F..%2Fetc%2Fpasswd",
  "00000000-0000-0000-0000-000000000000",
  "x".repeat(3000),
];

/**
 * Ids of a UUID's length that a loose check (/^[0-9a-f-]{36}$/) once let through to Postgres, which
 * refused them with "invalid input syntax for type uuid" (a 500). Always tried, not sampled: on
 * every path parameter, and on every field whose sample is a UUID.
 */
const UUID_LOOKALIKES = ["-".repeat(36), "a".repeat(36)];
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// --------------------------------------------------------------------------------------------
// Samples from schemas
// --------------------------------------------------------------------------------------------
type Json = Record<string, unknown>;

/** Stable pseudo-random numbers seeded by a string (mulberry32 over a sha1 prefix). */
function rng(seed: string) {
  let a = createHash("sha1").update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` items of `xs` picked deterministically by `seed` (all when n >= length). */
function pick<T>(xs: T[], n: number, seed: string): T[] {
  if (n >= xs.length) return xs;
  const r = rng(seed);
  const copy = [...xs];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, n);
}

interface Fixtures {
  contactId: number;
  tagId: number;
  segmentId: number;
  campaignId: number;
  mediaId: number;
  endpointId: string;
  inviteId: string;
  importId: string;
  workspaceId: string;
  ownerId: string;
  memberId: string;
  apiKeyId: string;
}

/** A JSON Schema of a zod input, or null when zod cannot express it. */
function jsonSchemaOf(schema: unknown): Json | null {
  try {
    return z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }) as Json;
  } catch {
    return null;
  }
}

/** The route or procedure being sampled: decides which fixture an `id` field names. */
let sampleScope = "";
let emails = 0;

/** The fixture id an id-like field `key` most likely names, in the current scope. */
function fixtureId(key: string): number | string {
  const k = key.toLowerCase();
  const scope = sampleScope.toLowerCase();
  if (/tag/.test(k)) return fx.tagId;
  if (/segment|list/.test(k)) return fx.segmentId;
  if (/contact/.test(k)) return fx.contactId;
  if (/campaign/.test(k) || (k === "id" && /campaign/.test(scope))) return fx.campaignId;
  if (/media/.test(k) || (k === "id" && /studio|media/.test(scope))) return fx.mediaId;
  if (/endpoint/.test(k) || (k === "id" && /webhook/.test(scope))) return fx.endpointId;
  if (/invite/.test(k)) return fx.inviteId;
  if (/import/.test(k) || (k === "id" && /import/.test(scope))) return fx.importId;
  if (/user|member/.test(k)) return fx.memberId;
  if (k === "id" && /apikey|api-key/.test(scope)) return fx.apiKeyId;
  if (k === "id" && /workspace/.test(scope)) return fx.workspaceId;
  return fx.contactId;
}

/** A valid-looking sample of a JSON Schema (first enum member, minimum, a fixture id for `*id*`). */
function sample(js: Json | undefined, fx: Fixtures, key = "", depth = 0): unknown {
  if (!js || depth > 6) return undefined;
  if ("const" in js) return js.const;
  if (Array.isArray(js.enum)) return js.enum[0];
  if ("default" in js && js.default !== undefined && js.default !== null) return js.default;
  for (const k of ["anyOf", "oneOf"] as const) {
    const alts = js[k] as Json[] | undefined;
    if (alts) {
      const alt = alts.find((a) => a.type !== "null") ?? alts[0];
      return sample(alt, fx, key, depth + 1);
    }
  }
  if (Array.isArray(js.allOf)) {
    return Object.assign({}, ...(js.allOf as Json[]).map((s) => sample(s, fx, key, depth + 1)));
  }
  const type = Array.isArray(js.type) ? (js.type as string[]).find((t) => t !== "null") : js.type;
  const idLike = /(^|_)ids?$|Ids?$/.test(key);
  switch (type) {
    case "object": {
      const out: Json = {};
      for (const [k, s] of Object.entries((js.properties as Record<string, Json>) ?? {})) {
        const v = sample(s, fx, k, depth + 1);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    case "array": {
      const item = sample(js.items as Json, fx, key, depth + 1);
      const n = Math.max(1, Number(js.minItems ?? 1));
      return Array.from({ length: Math.min(n, 3) }, () => item);
    }
    case "integer":
    case "number": {
      if (idLike) {
        const id = fixtureId(key);
        if (typeof id === "number") return id;
      }
      const min = Number(js.minimum ?? js.exclusiveMinimum ?? 1);
      const max = Number(js.maximum ?? js.exclusiveMaximum ?? min + 10);
      return Math.min(Math.max(1, min + (js.exclusiveMinimum !== undefined ? 1 : 0)), max);
    }
    case "boolean":
      return true;
    case "null":
      return null;
    case "string": {
      const fmt = js.format as string | undefined;
      if (fmt === "email" || /email/i.test(key)) return `fuzz-${process.pid}-${++emails}@example.com`;
      if (fmt === "uri" || fmt === "url" || /url|website/i.test(key)) return "https://example.com/fuzz";
      if (fmt === "uuid" || idLike) return String(fixtureId(key));
      // a week ahead: inside every date range (a campaign is scheduled at most 365 days ahead)
      if (fmt === "date-time" || /_at$|At$/.test(key))
        return new Date(Date.now() + 7 * 86_400_000).toISOString();
      if (fmt === "date") return "2030-01-01";
      if (/phone|mobile|to$/i.test(key)) return "+14155552671";
      if (/colou?r/i.test(key)) return "#6366f1";
      if (key === "provider") return "local";
      if (/script|body|subject|message|text/i.test(key)) return "Hello {{first_name}}";
      const min = Number(js.minLength ?? 1);
      return "fuzz".padEnd(Math.max(min, 4), "z").slice(0, Number(js.maxLength ?? 100));
    }
    default:
      // {} (z.unknown()): an object, the shape such procedures parse themselves
      return js.properties || Object.keys(js).every((k) => k.startsWith("$"))
        ? sample({ ...js, type: "object" }, fx, key, depth)
        : "fuzz";
  }
}

/** Paths of the fields of a sample, one level into objects and arrays' first item (e.g. filter.search). */
function fieldPaths(v: unknown, prefix: (string | number)[] = [], depth = 0): (string | number)[][] {
  if (depth > 2 || v === null || typeof v !== "object") return [];
  const out: (string | number)[][] = [];
  const entries: [string | number, unknown][] = Array.isArray(v)
    ? v.length
      ? [[0, v[0]]]
      : []
    : Object.entries(v as Json);
  for (const [k, x] of entries) {
    out.push([...prefix, k]);
    out.push(...fieldPaths(x, [...prefix, k], depth + 1));
  }
  return out;
}

/** A deep copy of `base` with the field at `path` set to `value` (deleted when `value` is `DELETE`). */
const DELETE = Symbol("delete");
function withField(base: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(base) as Json;
  let node = copy as Json;
  for (const k of path.slice(0, -1)) node = node[k as string] as Json;
  const last = path[path.length - 1] as string;
  if (value === DELETE) delete node[last];
  else node[last] = value;
  return copy;
}

type Mutation = { label: string; input: unknown; pinned?: boolean };

/** The mutations of one input: whole replacements, each field missing, each field hostile. */
function mutations(base: unknown, seed: string, cap: number): Mutation[] {
  const all = allMutations(base, seed);
  if (PER_FIELD === Number.POSITIVE_INFINITY) return all;
  // the valid sample and the far dates always, then a deterministic sample of the rest
  // (FUZZ_PER_FIELD=all: everything)
  const pinned = all.filter((m, i) => i === 0 || m.pinned);
  const rest = all.filter((m, i) => i !== 0 && !m.pinned);
  return [...pinned, ...pick(rest, Math.max(0, cap - pinned.length), `${seed}:cap`)];
}

/** Whether a field holds a date: its key says so (`scheduled_at`, `expiresAt`) or its sample is one. */
function isDateField(path: (string | number)[], value: unknown): boolean {
  const key = String(path[path.length - 1]);
  return /_at$|At$/.test(key) || (typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value));
}

function allMutations(base: unknown, seed: string): Mutation[] {
  const out: Mutation[] = [{ label: "valid sample", input: base }];
  if (process.env.FUZZ_DEBUG) return out;
  for (const w of WHOLE) out.push({ label: `whole=${JSON.stringify(w)}`, input: w });
  out.push({ label: "wrapped in an array", input: [base] });
  for (const path of fieldPaths(base)) {
    const name = path.join(".");
    out.push({ label: `${name} missing`, input: withField(base, path, DELETE) });
    for (const h of pick(HOSTILE, PER_FIELD, `${seed}:${name}`)) {
      out.push({ label: `${name}=${describe_(h)}`, input: withField(base, path, h) });
    }
    // the field's own value swapped into an array and into an object
    const own = path.reduce<unknown>((n, k) => (n as Json)?.[k as string], base);
    if (isDateField(path, own))
      for (const d of FAR_DATES)
        out.push({ label: `${name}=${describe_(d)}`, input: withField(base, path, d), pinned: true });
    if (typeof own === "string" && CANONICAL_UUID.test(own))
      for (const id of UUID_LOOKALIKES)
        out.push({ label: `${name}=${describe_(id)}`, input: withField(base, path, id), pinned: true });
    out.push({ label: `${name} as [value]`, input: withField(base, path, [own]) });
    out.push({ label: `${name} as {value}`, input: withField(base, path, { value: own }) });
  }
  return out;
}

function describe_(v: unknown): string {
  if (typeof v === "string") return v.length > 40 ? `string(${v.length})` : JSON.stringify(v);
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 40)}...` : s;
}

// --------------------------------------------------------------------------------------------
// The app, its principals and the record of answers
// --------------------------------------------------------------------------------------------
let t: TestApp;
const routes: RouteOptions[] = [];
interface Principal {
  name: string;
  client: AuthedClient;
}
let principals: Principal[] = [];
let fx: Fixtures;
let apiKey = "";
const failures: string[] = [];
const timings: { what: string; ms: number }[] = [];
/** answers by route or procedure: how many were 2xx and 4xx (a route never answering 2xx is fuzzed shallowly) */
const answers = new Map<string, { ok: number; client: number }>();
let currentTarget = "";
let requests = 0;

beforeAll(async () => {
  t = await createTestApp(
    {
      API_RATE_LIMIT_PER_MINUTE: "100000000",
      OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", // the fixture webhook endpoint (a closed port)
    },
    { onRoute: (r) => routes.push(r) },
  );
  await setUpPrincipals();
});
afterAll(async () => t?.close());

/**
 * An owner on the Enterprise plan with a contact, a tag, a list and an API key, and an admin member
 * who accepted an invite and works in the owner's workspace. Called again whenever a fuzzed request
 * signed one of them out, removed the member or changed the workspace.
 */
async function setUpPrincipals() {
  const owner = await signUp(t.app, { name: "Fuzz Owner", business_name: "Fuzz Co" });
  await setPlan(t, owner.user.id, "enterprise");
  const memberEmail = uniqueEmail("fuzz-member");
  const inv = await owner.client.post("/api/workspaces/current/invites", {
    email: memberEmail,
    role: "admin",
  });
  if (inv.statusCode !== 201) throw new Error(`invite: ${inv.body}`);
  const token = await inviteTokenFor(t, memberEmail);
  const member = await signUp(t.app, { name: "Fuzz Member", email: memberEmail });
  const acc = await member.client.post(`/api/invites/${token}/accept`);
  if (acc.statusCode !== 200) throw new Error(`accept: ${acc.body}`);
  await member.client.post(`/api/workspaces/${owner.user.id}/switch`);
  const contact = await owner.client.post("/api/contacts", {
    first_name: "Fuzzy",
    last_name: "Target",
    email: uniqueEmail("fuzz-contact"),
    phone: "+14155550132",
    // daytime wherever the test runs, so send-sms and make-call reach past the quiet-hours check
    timezone: daytimeZone(),
  });
  const tag = await owner.client.post("/api/contacts/tags", { name: `fuzz-${Date.now()}` });
  const list = await owner.client.post("/api/contacts/lists", {
    name: `fuzz-${Date.now()}`,
    filter: { search: "fuzz" },
  });
  const campaign = await owner.client.post("/api/campaigns/email/launch", {
    campaignName: "Fuzz",
    subject: "Hi {{first_name|there}}",
    body: "Hello",
    contacts: [{ name: "Fuzz Recipient", email: uniqueEmail("fuzz-recipient") }],
  });
  if (campaign.statusCode !== 200) throw new Error(`campaign: ${campaign.body}`);
  const wav = multipartBody({}, "fuzz.wav", silentWav(0.2));
  const media = await owner.client.inject({ method: "POST", url: "/api/audio/upload", ...wav });
  if (media.statusCode !== 200) throw new Error(`media: ${media.body}`);
  const endpoint = await owner.client.post("/api/webhook-endpoints", {
    url: "http://127.0.0.1:9/fuzz",
    events: ["campaign.completed"],
  });
  if (endpoint.statusCode >= 300) throw new Error(`endpoint: ${endpoint.body}`);
  await owner.client.post("/api/workspaces/current/invites", {
    email: uniqueEmail("fuzz-pending"),
    role: "member",
  });
  const invites = (await owner.client.get("/api/workspaces/current/members")).json().invites as {
    id: string;
  }[];
  const csv = multipartBody({}, "fuzz.csv", "first_name,email\nCsv,fuzz-csv@example.com\n");
  const imp = await owner.client.inject({ method: "POST", url: "/api/contacts/import/upload", ...csv });
  if (imp.statusCode !== 202) throw new Error(`import: ${imp.body}`);
  const key = await owner.client.post("/api/api-keys", {
    name: "fuzz",
    scopes: [
      "contacts:read",
      "contacts:write",
      "campaigns:read",
      "campaigns:write",
      "media:read",
      "webhooks:write",
    ],
  });
  if (key.statusCode !== 200) throw new Error(`api key: ${key.body}`);
  apiKey = key.json().key;
  fx = {
    contactId: contact.json().contact.id,
    tagId: tag.json().tag.id,
    segmentId: list.json().list.id,
    campaignId: campaign.json().campaignId,
    mediaId: media.json().media?.id ?? media.json().id,
    endpointId: endpoint.json().endpoint?.id ?? endpoint.json().webhookEndpoint?.id ?? endpoint.json().id,
    inviteId: invites[0]?.id ?? "none",
    importId: imp.json().import.id,
    workspaceId: owner.user.id,
    ownerId: owner.user.id,
    memberId: member.user.id,
    apiKeyId: key.json().apiKey.id,
  };
  principals = [
    { name: "admin member", client: member.client },
    { name: "owner", client: owner.client },
  ];
}

/**
 * Both principals still signed in, in the shared workspace, the API key working and the fixture
 * contact there; else everything anew (a fuzzed request may sign out, leave, revoke or delete).
 */
async function ensurePrincipals() {
  for (const p of principals) {
    const me = await p.client.get("/api/auth/me");
    if (me.statusCode !== 200 || me.json().workspace?.id !== fx.workspaceId) return setUpPrincipals();
  }
  const key = await t.app.inject({
    method: "GET",
    url: "/api/v1/tags",
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const contact = await (principals[1] as Principal).client.get(`/api/contacts/${fx.contactId}`);
  const media = await (principals[1] as Principal).client.get(`/api/media/${fx.mediaId}`);
  if (key.statusCode !== 200 || contact.statusCode !== 200 || media.statusCode !== 200)
    await setUpPrincipals();
}

type InjectRes = Awaited<ReturnType<AuthedClient["inject"]>>;

/** Sends one request as `who`, records a 5xx (or a thrown error) as a failure with its input. */
async function send(
  who: Principal,
  what: string,
  opts: Parameters<AuthedClient["inject"]>[0],
): Promise<InjectRes | null> {
  requests += 1;
  const a = performance.now();
  try {
    const res = await who.client.inject(opts);
    timings.push({ what, ms: performance.now() - a });
    const tally = answers.get(currentTarget) ?? { ok: 0, client: 0 };
    if (res.statusCode < 300) tally.ok += 1;
    else if (res.statusCode < 500) tally.client += 1;
    answers.set(currentTarget, tally);
    if (process.env.FUZZ_DEBUG && (what.endsWith("valid sample") || what.endsWith(" probe")))
      console.log(`${what} [${who.name}] -> ${res.statusCode} ${res.body.slice(0, 160)}`);
    if (res.statusCode >= 500)
      failures.push(`${what} [${who.name}] -> ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  } catch (e) {
    failures.push(`${what} [${who.name}] -> threw ${(e as Error).message.slice(0, 300)}`);
    return null;
  }
}

/** encodeURIComponent, except that a lone surrogate becomes the bytes a hostile client would send. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((c) => (/[\uD800-\uDFFF]/.test(c) ? "%ED%A0%80" : encodeURIComponent(c))).join("");
  }
}

/** `value` as a query string: scalars as is, arrays as repeated keys, objects as JSON. */
function toQuery(value: unknown): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return `q=${enc(String(value))}`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Json)) {
    const vals = Array.isArray(v) ? v : [v];
    for (const x of vals)
      parts.push(`${enc(k)}=${enc(typeof x === "object" && x !== null ? JSON.stringify(x) : String(x))}`);
  }
  return parts.join("&");
}

/** A valid value for a path parameter (a fixture id where the name says what it is). */
function validParam(url: string, name: string): string {
  if (name === "userId") return fx.memberId;
  if (name === "inviteId") return fx.inviteId;
  if (name === "importId") return fx.importId;
  if (name === "provider") return "local";
  if (name === "index") return "0";
  if (name !== "id") return "fuzz";
  if (url.startsWith("/api/workspaces/:id")) return fx.workspaceId;
  if (url.startsWith("/api/api-keys")) return fx.apiKeyId;
  if (/^\/api\/(v1\/)?campaigns/.test(url)) return String(fx.campaignId);
  if (/^\/api\/(v1\/)?media\/:id/.test(url)) return String(fx.mediaId);
  if (/webhook.endpoints/.test(url)) return fx.endpointId;
  return String(fx.contactId);
}

function fillParams(url: string, values: Record<string, string>): string {
  return url.replace(/:(\w+)/g, (_, n: string) => values[n] ?? validParam(url, n));
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function multipartBody(fields: Record<string, string>, fileName: string, file: string | Buffer) {
  const boundary = "----pwfuzz";
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const head = `${parts.join("")}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(head), Buffer.from(file), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

// --------------------------------------------------------------------------------------------
// REST
// --------------------------------------------------------------------------------------------
/** Every (method, url) of the route table except HEAD (Fastify's mirror of GET) and /trpc. */
function restRoutes(): { method: string; url: string }[] {
  const out: { method: string; url: string }[] = [];
  for (const r of routes) {
    if (r.url.startsWith("/trpc")) continue;
    for (const m of [r.method].flat()) if (m !== "HEAD") out.push({ method: m, url: r.url });
  }
  return out;
}

async function fuzzRestRoute(method: string, url: string) {
  const key = `${method} ${url}`;
  currentTarget = key;
  const isV1 = url.startsWith("/api/v1");
  const authHeaders: Record<string, string> = isV1 ? { authorization: `Bearer ${apiKey}` } : {};
  const params = [...url.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
  let n = 0;
  const who = () => principals[n++ % principals.length] as Principal;
  const valid = () => fillParams(url, {});
  const hasBody = BODY_METHODS.has(method);

  // probe with an empty input: which zod schemas does the adapter validate with?
  seenSchemas.length = 0;
  await send(who(), `${key} probe`, {
    method: method as "GET",
    url: valid(),
    headers: authHeaders,
    ...(hasBody ? { payload: {} } : {}),
  });
  const schemas = [...seenSchemas];
  sampleScope = key;
  const bases = schemas.map((s) => sample(jsonSchemaOf(s) ?? undefined, fx)).filter((b) => b !== undefined);
  if (bases.length === 0) bases.push({ name: "fuzz", email: "fuzz@example.com", id: fx.contactId });

  // schema-aware mutations, as body (POST/PUT/PATCH/DELETE) or as query string (GET/DELETE)
  for (const [i, base] of bases.entries()) {
    for (const m of mutations(base, `${key}#${i}`, 20)) {
      const what = `${key} ${hasBody ? "body" : "query"} ${m.label}`;
      if (hasBody)
        await send(who(), what, {
          method: method as "POST",
          url: valid(),
          headers: { ...authHeaders, "content-type": "application/json" },
          payload: JSON.stringify(m.input) ?? "",
        });
      else
        await send(who(), what, {
          method: method as "GET",
          url: `${valid()}?${toQuery(m.input)}`,
          headers: authHeaders,
        });
    }
  }
  if (process.env.FUZZ_DEBUG) return;
  // lists that take a cursor: every decodable-but-invalid cursor
  if (!hasBody && bases.some((b) => b !== null && typeof b === "object" && "cursor" in (b as Json)))
    for (const [i, c] of HOSTILE_CURSORS.entries())
      await send(who(), `${key} cursor ${CURSOR_KEYS[i]}`, {
        method: method as "GET",
        url: `${valid()}?cursor=${c}`,
        headers: authHeaders,
      });
  // query strings: repeated keys (arrays), nested-looking keys, hostile values for common keys
  for (const q of [
    "page=1&page=2&limit=1&limit=2&search=a&search=b&stage=lead&stage=customer",
    "page=-1&limit=0",
    "page=99999999999999999999&limit=99999999999999999999",
    "page=1e400&limit=NaN",
    "search=%00&q=%00&cursor=%00&token=%00",
    "search=%ED%A0%80&cursor=%ED%A0%80",
    `search=${"x".repeat(20_000)}&cursor=${"A".repeat(5000)}`,
    "filter[search]=x&filter[__proto__][polluted]=1&__proto__=x&constructor=x",
    "cursor=MjAyNi0wMS0wMSAwMDowMDowMCswMHwx&cursor=x",
    "tag=abc&tag_id=-5&id=abc&ids=1,2,x&radius=1e308&lat=NaN&lng=Infinity",
  ].filter((_, i) => (method === "GET" ? i % 2 === Number(key.length % 2) : i === key.length % 10)))
    await send(who(), `${key} query ${q.slice(0, 80)}`, {
      method: method as "GET",
      url: `${valid()}?${q}`,
      headers: authHeaders,
    });

  // hostile path parameters, one at a time (UUID look-alikes always)
  for (const p of params)
    for (const v of [...pick(PARAMS, 4, `${key}:${p}`), ...UUID_LOOKALIKES])
      await send(who(), `${key} :${p}=${v.slice(0, 40)}`, {
        method: method as "GET",
        url: fillParams(url, { [p]: v }),
        headers: authHeaders,
        ...(hasBody ? { payload: bases[0] as Json } : {}),
      });

  if (!hasBody) return;
  // bodies that are not the expected JSON
  for (const [ct, body] of pick<[string, string]>(
    [
      ["application/json", "{not json"],
      ["application/json", '{"a":'],
      ["application/json", ""],
      ["application/json", `${"[".repeat(5000)}${"]".repeat(5000)}`],
      ["application/json", `{"a":"\\ud800","b":"\\u0000"}`],
      ["application/json", '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}'],
      ["text/plain", "hello"],
      ["application/xml", "<a>1</a>"],
      ["application/x-www-form-urlencoded", `name=${encodeURIComponent(NUL)}&email=x&contacts=1&filter=a`],
      ["application/x-www-form-urlencoded", "a=1&a=2&b[c]=3&%ED%A0%80=1"],
      ["multipart/form-data", "no boundary"],
      [
        "multipart/form-data; boundary=zz",
        '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ntruncated',
      ],
      ["multipart/form-data; boundary=zz", "--zz\r\nno header end"],
    ],
    4,
    `${key}:ct`,
  ))
    await send(who(), `${key} content-type ${ct} ${body.slice(0, 30)}`, {
      method: method as "POST",
      url: valid(),
      headers: { ...authHeaders, "content-type": ct },
      payload: body,
    });
  // multipart to every body route: hostile fields and file names, and a file that is not what it says
  for (const [fields, fileName, file] of pick<[Record<string, string>, string, string]>(
    [
      [{ name: NUL, mapping: "{bad json", on_duplicate: "sideways" }, "a.csv", "email\nx@example.com\n"],
      [{ mapping: '{"email":99999999999}', title: HIGH }, "\uD800.mp4", "not a video"],
      [{ mapping: "[]", on_duplicate: "update" }, `${"n".repeat(5000)}.csv`, "\u0000\u0001\u0002"],
      [
        {},
        "../../../etc/passwd",
        "ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000#EXTM3U\nfile:///etc/passwd\n",
      ],
    ],
    2,
    `${key}:mp`,
  )) {
    const mp = multipartBody(fields as Record<string, string>, fileName, file);
    await send(who(), `${key} multipart ${JSON.stringify(fields).slice(0, 60)} ${fileName.slice(0, 20)}`, {
      method: method as "POST",
      url: valid(),
      headers: { ...authHeaders, ...mp.headers },
      payload: mp.payload,
    });
  }
}

// --------------------------------------------------------------------------------------------
// tRPC
// --------------------------------------------------------------------------------------------
interface ProcDef {
  type: "query" | "mutation" | "subscription";
  inputs: unknown[];
}
function procedures(): [string, ProcDef][] {
  const procs = (appRouter as unknown as { _def: { procedures: Record<string, { _def: ProcDef }> } })._def
    .procedures;
  return Object.entries(procs).map(([k, p]) => [k, p._def]);
}

async function callTrpc(who: Principal, what: string, path: string, type: string, envelope: unknown) {
  const json = JSON.stringify(envelope);
  return type === "query"
    ? send(who, what, {
        method: "GET",
        url: `/trpc/${path}${json === undefined ? "" : `?input=${encodeURIComponent(json)}`}`,
      })
    : send(who, what, {
        method: "POST",
        url: `/trpc/${path}`,
        headers: { "content-type": "application/json" },
        payload: json ?? "",
      });
}

async function fuzzProcedure(path: string, def: ProcDef) {
  currentTarget = `trpc ${path}`;
  let n = 0;
  const who = () => principals[n++ % principals.length] as Principal;
  const schema = def.inputs[0];
  sampleScope = path;
  const base = schema ? sample(jsonSchemaOf(schema) ?? undefined, fx) : undefined;
  for (const m of mutations(base ?? {}, path, 18))
    await callTrpc(who(), `trpc ${path} ${m.label}`, path, def.type, { json: m.input });
  if (process.env.FUZZ_DEBUG) return;
  // superjson envelopes: no envelope, hostile meta (types, referential equalities), undefined
  for (const [label, env] of pick<[string, unknown]>(
    [
      ["no envelope", base ?? {}],
      ["undefined input", undefined],
      [
        "meta Date on a string",
        {
          json: base ?? {},
          meta: { values: Object.fromEntries(fieldPaths(base).map((p) => [p.join("."), ["Date"]])) },
        },
      ],
      ["meta bigint", { json: "notanumber", meta: { values: ["bigint"] } }],
      ["meta regexp", { json: "(a+)+$", meta: { values: ["regexp"] } }],
      ["meta set/map", { json: { a: [1, 2] }, meta: { values: { a: ["map"] } } }],
      ["meta custom", { json: "x", meta: { values: [["custom", "nope"]] } }],
      ["meta class", { json: {}, meta: { values: [["class", "Nope"]] } }],
      [
        "meta referential __proto__",
        { json: { a: {} }, meta: { referentialEqualities: { a: ["__proto__.polluted"] } } },
      ],
      ["meta garbage", { json: {}, meta: "garbage" }],
    ],
    4,
    `${path}:meta`,
  ))
    await callTrpc(who(), `trpc ${path} ${label}`, path, def.type, env);
  // the procedure called the other way (a query by POST, a mutation by GET), and in a batch
  await send(who(), `trpc ${path} other method`, {
    method: def.type === "query" ? "POST" : "GET",
    url: `/trpc/${path}`,
    headers: { "content-type": "application/json" },
    ...(def.type === "query" ? { payload: JSON.stringify({ json: base ?? {} }) } : {}),
  });
  const batchInput = encodeURIComponent(
    JSON.stringify({ 0: { json: base ?? {} }, 1: { json: NUL }, 2: "x" }),
  );
  await send(who(), `trpc ${path} batch`, {
    method: def.type === "query" ? "GET" : "POST",
    url: `/trpc/${path},${path},${path}?batch=1${def.type === "query" ? `&input=${batchInput}` : ""}`,
    headers: { "content-type": "application/json" },
    ...(def.type === "query" ? {} : { payload: decodeURIComponent(batchInput) }),
  });
}

// --------------------------------------------------------------------------------------------
// The tests
// --------------------------------------------------------------------------------------------
describe("fuzz: no 5xx from any REST route or tRPC procedure (issue 11)", () => {
  it("enumerates the route table and the router", () => {
    const rest = restRoutes();
    const procs = procedures();
    // a floor, so a broken enumeration cannot pass as "no failures over nothing"
    expect(rest.length).toBeGreaterThan(140);
    expect(procs.length).toBeGreaterThan(80);
    expect(rest.some((r) => r.method === "PUT" && r.url === "/api/contacts/:id")).toBe(true);
    expect(procs.some(([p]) => p === "crm.list")).toBe(true);
  });

  it("every tRPC procedure", { timeout: 900_000 }, async () => {
    const before = requests;
    const start = failures.length;
    for (const [path, def] of procedures()) {
      if (def.type === "subscription" || !`trpc ${path}`.includes(ONLY)) continue;
      await fuzzProcedure(path, def);
      await ensurePrincipals();
    }
    console.log(`tRPC: ${procedures().length} procedures, ${requests - before} requests`);
    expect(failures.slice(start)).toEqual([]);
  });

  it("every REST route", { timeout: 900_000 }, async () => {
    const before = requests;
    const start = failures.length;
    const rest = restRoutes();
    for (const { method, url } of rest) {
      if (!`${method} ${url}`.includes(ONLY)) continue;
      await fuzzRestRoute(method, url);
      await ensurePrincipals();
    }
    console.log(`REST: ${rest.length} routes, ${requests - before} requests`);
    expect(failures.slice(start)).toEqual([]);
  });

  it("/trpc with a wrong method or content type is a 405 or 415, not a 500", async () => {
    const who = principals[0] as Principal;
    const start = failures.length;
    for (const method of ["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"] as const) {
      const res = await send(who, `${method} /trpc/crm.list`, {
        method: method as "PUT",
        url: "/trpc/crm.list",
        headers: { "content-type": "application/json" },
        payload: "{}",
      });
      expect(res?.statusCode, `${method}: ${res?.body}`).toBe(405);
    }
    for (const ct of [
      "text/plain",
      "application/xml",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await send(who, `POST /trpc/crm.create as ${ct}`, {
        method: "POST",
        url: "/trpc/crm.create",
        headers: { "content-type": ct },
        payload: "first_name=x",
      });
      expect(res?.statusCode, `${ct}: ${res?.body}`).toBe(415);
    }
    expect(failures.slice(start)).toEqual([]);
  });

  afterAll(() => {
    const shallow = [...answers].filter(([, a]) => a.ok === 0).map(([k]) => k);
    console.log(`never answered 2xx (${shallow.length}): ${shallow.join(", ")}`);
    const slow = [...timings].sort((a, b) => b.ms - a.ms).slice(0, 8);
    console.log(
      `fuzz: ${requests} requests; slowest: ${slow.map((s) => `${s.what.slice(0, 90)} ${s.ms.toFixed(0)} ms`).join(" | ")}`,
    );
  });
});
