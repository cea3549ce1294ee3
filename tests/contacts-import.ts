import { expect } from "vitest";
import type { toImportJson } from "../src/server/features/crm/crm.imports";
import type { AuthedClient } from "./helpers";
import { multipart } from "./integration/studio-helpers";

/** An import as GET /api/contacts/imports/:id returns it (crm.imports toImportJson). */
export type ImportRecord = ReturnType<typeof toImportJson>;

/**
 * Uploads a contacts file as the import page does (POST /api/contacts/import/upload, multipart: the
 * text `fields` such as `mapping` or `on_duplicate` first, then the `file` part named `file.name`,
 * content type `file.type`, default text/csv). Returns the raw response (202 with `import.id` when
 * accepted, else the 4xx the page shows).
 */
export function uploadContactsFile(
  client: AuthedClient,
  file: { name: string; content: Buffer | string; type?: string },
  fields: Record<string, string> = {},
) {
  const content = Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content, "utf8");
  return client.inject({
    method: "POST",
    url: "/api/contacts/import/upload",
    ...multipart(fields, {
      field: "file",
      filename: file.name,
      contentType: file.type ?? "text/csv",
      content,
    }),
  });
}

/**
 * Imports `csv` (text as UTF-8, or raw bytes) as the import page uploads it, with the form's text
 * `fields` and the file name `name` (the test app's job client runs the import inline), and returns
 * the import's record from GET /api/contacts/imports/:id. Fails the test unless the upload is 202
 * and the record 200.
 */
export async function importCsv(
  client: AuthedClient,
  csv: string | Buffer,
  fields: Record<string, string> = {},
  name = "people.csv",
) {
  const res = await uploadContactsFile(client, { name, content: csv }, fields);
  expect(res.statusCode, res.body).toBe(202);
  const status = await client.get(`/api/contacts/imports/${res.json().import.id}`);
  expect(status.statusCode, status.body).toBe(200);
  return status.json().import as ImportRecord;
}
