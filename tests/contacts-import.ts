import { expect } from "vitest";
import type { AuthedClient } from "./helpers";
import { multipart } from "./integration/studio-helpers";

/**
 * Imports `csv` as the import page uploads it (POST /api/contacts/import/upload, multipart `file`;
 * the test app's job client runs the import inline) and returns the import's record from
 * GET /api/contacts/imports/:id. Fails the test unless the upload is 202 and the record 200.
 */
export async function importCsv(client: AuthedClient, csv: string) {
  const res = await client.inject({
    method: "POST",
    url: "/api/contacts/import/upload",
    ...multipart(
      {},
      { field: "file", filename: "people.csv", contentType: "text/csv", content: Buffer.from(csv, "utf8") },
    ),
  });
  expect(res.statusCode, res.body).toBe(202);
  const status = await client.get(`/api/contacts/imports/${res.json().import.id}`);
  expect(status.statusCode, status.body).toBe(200);
  return status.json().import as {
    created: number;
    updated: number;
    skipped: number;
    errors: number;
    error_rows: { line: number; reason: string }[];
  };
}
