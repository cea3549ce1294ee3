import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contactImports } from "../../src/server/db/schema";
import { importContactsJob, importStorageKey } from "../../src/server/features/crm/crm.jobs";
import { handlerOf } from "../../src/server/jobs/registry";
import { createTestApp, setPlan, signUp, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

type ImportRow = Record<string, unknown> & {
  errors: { line: number; reason: string; kept?: boolean; field?: string }[];
};

/** Runs the import job over `bytes` for a new Enterprise workspace; returns the workspace and the stored import row. */
async function runImport(
  name: string,
  bytes: Buffer,
): Promise<{ workspaceId: string; imp: ImportRow; progress: () => Promise<Record<string, unknown>> }> {
  const { user, client } = await signUp(t.app);
  await setPlan(t, user.id, "enterprise");
  const file = path.join(t.env.DATA_DIR, name);
  fs.writeFileSync(file, bytes);
  const importId = randomUUID();
  await t.providers.storage.putFile(importStorageKey(importId), file, { contentType: "text/csv" });
  await t.db
    .insert(contactImports)
    .values({ id: importId, workspaceId: user.id, fileName: name, fileSize: bytes.length });
  await handlerOf(importContactsJob).handler(
    { importId },
    { db: t.db, sql: t.sql, env: t.env, providers: t.providers, jobs: t.jobs, log: t.ctx.log },
    { id: randomUUID(), retryCount: 0 },
  );
  const [row] = await t.sql`select * from contact_imports where id = ${importId}`;
  const progress = async () => {
    const res = await client.get(`/api/contacts/imports/${importId}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().import as Record<string, unknown>;
  };
  return { workspaceId: user.id, imp: row as ImportRow, progress };
}

const asciiRows = (n: number) =>
  Array.from({ length: n }, (_, i) => `ascii${i}@enc.example,Plain${i},${"x".repeat(60)}\n`).join("");

async function firstName(workspaceId: string, email: string) {
  const [c] =
    await t.sql`select first_name from contacts where workspace_id = ${workspaceId} and email = ${email}`;
  return c?.first_name as string | undefined;
}

describe("the CSV import's text encoding", () => {
  it("a Windows-1252 file whose first 64 KB are ASCII reads José as José", async () => {
    const head = `email,first_name,notes\n${asciiRows(1000)}`;
    expect(head.length).toBeGreaterThan(65536);
    const bytes = Buffer.concat([
      Buffer.from(head, "latin1"),
      Buffer.from("jose@enc.example,José,x\n", "latin1"),
    ]);
    const { workspaceId, imp } = await runImport("cp1252.csv", bytes);
    expect(imp).toMatchObject({ status: "completed", created: 1001, error_count: 0 });
    expect(await firstName(workspaceId, "jose@enc.example")).toBe("José");
    expect(imp.errors).toEqual([]);
  });

  it("a UTF-8 file with one stray byte is read as UTF-8, and the row holding it is named in the report", async () => {
    const bytes = Buffer.concat([
      Buffer.from("email,first_name\nstray@enc.example,Caf", "utf8"),
      Buffer.from([0xe9]),
      Buffer.from("\nzoe@enc.example,Zoë\nrene@enc.example,René\n", "utf8"),
    ]);
    const { workspaceId, imp } = await runImport("stray.csv", bytes);
    expect(imp).toMatchObject({ status: "completed", created: 3, error_count: 0 });
    expect(await firstName(workspaceId, "zoe@enc.example")).toBe("Zoë");
    expect(await firstName(workspaceId, "rene@enc.example")).toBe("René");
    expect(imp.errors).toEqual([
      expect.objectContaining({
        line: 2,
        kept: true,
        field: "first_name",
        kind: "encoding",
        reason: expect.stringMatching(/^First name: some bytes are not valid UTF-8 .* on line 2: /),
      }),
    ]);
  });

  it("the warning names each imported field whose values hold unreadable bytes, with its lines, as the other kept-row warnings do (an unmapped column is not reported)", async () => {
    const stray = Buffer.from([0xe9]);
    const bytes = Buffer.concat([
      Buffer.from("email,first_name,company,phone,ignored_column\n", "utf8"),
      Buffer.from("a@enc.example,Caf", "utf8"),
      stray,
      // more well-formed UTF-8 than stray bytes: the file is read as UTF-8
      Buffer.from(",Acme,,x\nb@enc.example,Zoë Müller-Ñuñez Renée,Bistro ", "utf8"),
      stray,
      Buffer.from(",+1 202 555 0100,y\nc@enc.example,Ann,Gar", "utf8"),
      stray,
      Buffer.from(",,z\nd@enc.example,Bob,Plain,,only here ", "utf8"),
      stray,
      Buffer.from("\n", "utf8"),
    ]);
    const { imp, progress } = await runImport("fields.csv", bytes);
    expect(imp).toMatchObject({ status: "completed", created: 4, error_count: 0 });
    expect(imp.errors).toEqual([
      expect.objectContaining({
        line: 2,
        kept: true,
        field: "first_name",
        kind: "encoding",
        reason: expect.stringMatching(
          /^First name: some bytes are not valid UTF-8 .* on line 2: contacts imported as read/,
        ),
      }),
      expect.objectContaining({
        line: 3,
        kept: true,
        field: "company",
        kind: "encoding",
        reason: expect.stringMatching(/^Company: some bytes are not valid UTF-8 .* on lines 3, 4: /),
      }),
    ]);
    // the progress the import screen reads: the field and kind, and it is neither a phone nor a field left empty
    const p = await progress();
    expect(p).toMatchObject({ phone_invalid: 0, fields_cleared: 0, errors: 0 });
    expect(p.error_rows).toEqual([
      expect.objectContaining({ line: 2, kept: true, field: "first_name", kind: "encoding" }),
      expect.objectContaining({ line: 3, kept: true, field: "company", kind: "encoding" }),
    ]);
  });
});
