import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, daytimeZone, setPlan, signUp, type TestApp, trpcCall as trpc } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("tRPC crm router", () => {
  it("runs the same operations as REST through the same service, scoped to the user", async () => {
    const a = await signUp(t.app);
    await setPlan(t, a.user.id, "professional"); // the single SMS below is not on the Free plan
    const b = await signUp(t.app);
    const created = await trpc(
      a.client,
      "crm.create",
      { first_name: "Tia", email: "tia@trpc.example", phone: "9895550150", timezone: daytimeZone() },
      "mutation",
    );
    expect(created.status).toBe(200);
    expect(created.data).toMatchObject({
      first_name: "Tia",
      email: "tia@trpc.example",
      phone_e164: "+19895550150",
    });
    const id = created.data.id as number;

    const list = await trpc(a.client, "crm.list", { search: "tia" }, "query");
    expect(list.data.pagination).toEqual({ page: 1, pages: 1, total: 1, limit: 50 });

    const updated = await trpc(
      a.client,
      "crm.update",
      { id, data: { lifecycle_stage: "customer" } },
      "mutation",
    );
    expect(updated.data.lifecycle_stage).toBe("customer");

    const tag = await trpc(a.client, "crm.createTag", { name: "Gold" }, "mutation");
    const bulk = await trpc(
      a.client,
      "crm.bulk",
      { contactIds: [id], operation: "add_tag", data: { tag_id: tag.data.id } },
      "mutation",
    );
    expect(bulk.data).toEqual({ tagged: 1 });

    const note = await trpc(a.client, "crm.addNote", { id, note_text: "via tRPC" }, "mutation");
    expect(note.data.note_text).toBe("via tRPC");
    const sms = await trpc(a.client, "crm.sendSms", { id, message: "hello" }, "mutation");
    expect(sms.status).toBe(200);

    const detail = await trpc(a.client, "crm.get", { id }, "query");
    expect(detail.data.tags).toEqual([{ id: tag.data.id, tag_name: "Gold", tag_color: "#4f46e5" }]);
    expect(detail.data.activities.map((x: { activity_type: string }) => x.activity_type).sort()).toEqual([
      "note_added",
      "sms_sent",
    ]);

    // tenant isolation and validation through tRPC
    const foreign = await trpc(b.client, "crm.get", { id }, "query");
    expect(foreign.status).toBe(404);
    expect(foreign.error?.message).toBe("Contact not found");
    expect((await trpc(b.client, "crm.delete", { id }, "mutation")).status).toBe(404);
    const bad = await trpc(a.client, "crm.sendSms", { id, message: "  " }, "mutation");
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toBe("Please enter a message");

    const imported = await trpc(
      a.client,
      "crm.importRows",
      { contacts: [{ email: "row@trpc.example", first_name: "Row" }, { first_name: "NoEmail" }] },
      "mutation",
    );
    expect(imported.data).toMatchObject({ imported: 1, errors: 1 });
    expect((await trpc(a.client, "crm.tags", undefined, "query")).data).toEqual([
      { id: tag.data.id, name: "Gold", color: "#4f46e5", contact_count: 1 },
    ]);
    const deleted = await trpc(a.client, "crm.delete", { id }, "mutation");
    expect(deleted.data).toEqual({ success: true });

    const anon = await t.app.inject({
      method: "GET",
      url: `/trpc/crm.list?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`,
    });
    expect(anon.statusCode).toBe(401);
  });

  it("sends email and calls, and follows a CSV import, as the contact page and import dialog do", async () => {
    const a = await signUp(t.app);
    await setPlan(t, a.user.id, "professional"); // calls are not on the Free plan
    const b = await signUp(t.app);
    const stamp = Date.now();
    const created = await trpc(
      a.client,
      "crm.create",
      { first_name: "Cal", email: `cal-${stamp}@trpc.example`, phone: "9895550151", timezone: daytimeZone() },
      "mutation",
    );
    const id = created.data.id as number;

    const email = await trpc(a.client, "crm.sendEmail", { id, subject: "Hi", body: "Hello Cal" }, "mutation");
    expect(email.status).toBe(200);
    expect(typeof email.data.message_id).toBe("string");
    const noSubject = await trpc(a.client, "crm.sendEmail", { id, subject: " ", body: "x" }, "mutation");
    expect(noSubject.status).toBe(400);
    const call = await trpc(a.client, "crm.makeCall", { id, script: "Hello from us" }, "mutation");
    expect(call.status).toBe(200);
    expect(typeof call.data.call_id).toBe("string");
    const detail = await trpc(a.client, "crm.get", { id }, "query");
    expect(detail.data.activities.map((x: { activity_type: string }) => x.activity_type).sort()).toEqual([
      "call_made",
      "email_sent",
    ]);
    for (const path of ["crm.sendEmail", "crm.makeCall"]) {
      const foreign = await trpc(b.client, path, { id, subject: "Hi", body: "x", script: "x" }, "mutation");
      expect(foreign.status, path).toBe(404);
      expect(foreign.error?.message).toBe("Contact not found");
    }

    // the dialog uploads to the REST endpoint (multipart), then polls crm.importStatus
    const boundary = `----pwtest${stamp}`;
    const csv = `email,first_name\nimp-${stamp}@trpc.example,Imp\nnot-an-email,Bad\n`;
    const upload = await a.client.inject({
      method: "POST",
      url: "/api/contacts/import/upload",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`,
      ),
    });
    expect(upload.statusCode, upload.body).toBe(202);
    const importId = upload.json().import.id as string;
    const status = await trpc(a.client, "crm.importStatus", { importId }, "query");
    expect(status.status).toBe(200);
    expect(status.data).toMatchObject({
      id: importId,
      status: "completed",
      file_name: "c.csv",
      rows_processed: 2,
      created: 1,
      errors: 1,
    });
    expect(status.data.error_rows).toHaveLength(1);
    const foreignImport = await trpc(b.client, "crm.importStatus", { importId }, "query");
    expect(foreignImport.status).toBe(404);
    expect(foreignImport.error?.message).toBe("Import not found");
  });
});
