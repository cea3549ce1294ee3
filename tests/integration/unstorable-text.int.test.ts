import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUnstorableText } from "../../src/server/lib/nul";
import { type AuthedClient, createTestApp, signUp, type TestApp } from "../helpers";

let t: TestApp;
let client: AuthedClient;
let contactId: number;
beforeAll(async () => {
  t = await createTestApp();
  ({ client } = await signUp(t.app));
  const res = await client.post("/api/contacts", { first_name: "Nul", email: "nul@example.com" });
  contactId = res.json().contact.id;
});
afterAll(async () => t?.close());

const NUL = "a\u0000b";
const HIGH = "a\uD800b"; // a high surrogate with no low one after it
const LOW = "\uDC00tail"; // a low surrogate with no high one before it

/** tRPC over HTTP (superjson envelope), as the client sends it. */
function trpc(path: string, input: unknown, kind: "query" | "mutation") {
  return kind === "query"
    ? client.get(`/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`)
    : client.inject({
        method: "POST",
        url: `/trpc/${path}`,
        // JSON.stringify writes a lone surrogate as a \ud800 escape, as a hostile client would
        payload: JSON.stringify({ json: input }),
        headers: { "content-type": "application/json" },
      });
}

function multipart(fields: Record<string, string>, fileName: string) {
  const boundary = "----pwnul";
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\nemail\na@example.com\n\r\n--${boundary}--\r\n`,
  );
  return {
    payload: Buffer.from(parts.join("")),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

describe("findUnstorableText", () => {
  it("finds NUL and unpaired surrogates in keys and values, and accepts paired ones", () => {
    expect(findUnstorableText({ a: [{ b: NUL }] })).toBe("nul");
    expect(findUnstorableText({ [HIGH]: 1 })).toBe("surrogate");
    expect(findUnstorableText([LOW])).toBe("surrogate");
    expect(findUnstorableText("\uD800")).toBe("surrogate");
    expect(findUnstorableText({ emoji: "😀 \uD83D\uDE00", text: "ok" })).toBeNull();
  });
});

describe("NUL and lone surrogates get a readable 400, never a 500 (issue 11 #8)", () => {
  it.each([
    ["NUL", NUL, /NUL character/],
    ["high surrogate", HIGH, /unpaired UTF-16 surrogate/],
    ["low surrogate", LOW, /unpaired UTF-16 surrogate/],
  ])("tRPC inputs: %s in a mutation and in a query", async (_, bad, message) => {
    const create = await trpc("crm.create", { first_name: bad, email: "x@example.com" }, "mutation");
    expect(create.statusCode, create.body).toBe(400);
    expect(create.json().error.json.message).toMatch(message);
    const note = await trpc("crm.addNote", { id: contactId, note_text: bad }, "mutation");
    expect(note.statusCode, note.body).toBe(400);
    // jsonb: a saved list's filter
    const list = await trpc("crm.createList", { name: "L", filter: { search: bad } }, "mutation");
    expect(list.statusCode, list.body).toBe(400);
    const query = await trpc("crm.list", { search: bad }, "query");
    expect(query.statusCode, query.body).toBe(400);
    expect(query.json().error.json.message).toMatch(message);
  });

  it.each([
    ["NUL", NUL],
    ["high surrogate", HIGH],
  ])("REST JSON bodies: %s into text and jsonb columns", async (_, bad) => {
    for (const [url, body] of [
      ["/api/contacts", { first_name: "X", email: "y@example.com", custom_fields: { k: bad } }],
      ["/api/contacts/lists", { name: "L", filter: { search: bad } }],
      [`/api/contacts/${contactId}/notes`, { note_text: bad }],
    ] as const) {
      const res = await client.inject({
        method: "POST",
        url,
        payload: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatch(/NUL character|unpaired UTF-16 surrogate/);
    }
  });

  it("multipart fields and file names of the CSV upload and the media upload", async () => {
    for (const [fields, name] of [
      [{ on_duplicate: "skip\u0000" }, "a.csv"],
      // (a lone surrogate cannot travel in a UTF-8 multipart body: it arrives as U+FFFD)
      [{ mapping: `{"email":0}${NUL}` }, "a.csv"],
      [{}, "a\u0000.csv"],
    ] as const) {
      const { payload, headers } = multipart(fields, name);
      const res = await client.inject({
        method: "POST",
        url: "/api/contacts/import/upload",
        payload,
        headers,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatch(/NUL character|unpaired UTF-16 surrogate/);
    }
    const { payload, headers } = multipart({ name: `clip${NUL}` }, "clip.mp4");
    const media = await client.inject({ method: "POST", url: "/api/media/upload", payload, headers });
    expect(media.statusCode, media.body).toBeLessThan(500);
    expect(media.statusCode).toBeGreaterThanOrEqual(400);
  });
});
