import { type Browser, expect, type Page, test } from "@playwright/test";
import { inviteLinkFromOutbox, registerVerifiedBusiness, verifyEmailThroughOutbox } from "./account-helpers";
import { e2eReceiverPort } from "./e2e-info";

/**
 * A small team must see who did what on a contact, and a member must not be offered what the server
 * refuses: Edit and Delete show only on the notes the reader may change (their own; an owner or admin
 * any), as the server's can_edit / can_delete say.
 */

/** `name` is invited as a member by the owner on `page`, registers in a context of their own and joins. */
async function memberJoins(
  page: Page,
  browser: Browser,
  origin: string,
  who: { prefix: string; name: string },
) {
  const email = `${who.prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const invited = await page.request.post("/api/workspaces/current/invites", {
    headers: { origin },
    data: { email, role: "member" },
  });
  expect(invited.ok(), await invited.text()).toBe(true);
  const context = await browser.newContext();
  const tab = await context.newPage();
  await tab.goto("/");
  const reg = await tab.request.post("/api/auth/register", {
    headers: { origin },
    data: { name: who.name, email, password: "correct-horse-battery", business_name: `${who.name} Co` },
  });
  expect(reg.ok(), await reg.text()).toBe(true);
  await verifyEmailThroughOutbox(tab, email);
  const { token } = await inviteLinkFromOutbox(tab, email);
  const accepted = await tab.request.post(`/api/invites/${token}/accept`, { headers: { origin } });
  expect(accepted.ok(), await accepted.text()).toBe(true);
  return { tab, context };
}

test("a member sees Edit and Delete on her own note only; the owner on every note", async ({
  page,
  browser,
}) => {
  await registerVerifiedBusiness(page, {
    prefix: "ana-attr",
    name: "Ana Owner",
    business: "Attribution Roofing",
  });
  await page.goto("/contacts");
  const origin = new URL(page.url()).origin;
  const cara = await memberJoins(page, browser, origin, {
    prefix: "cara-attr",
    name: "Cara Member",
  });
  try {
    const created = await page.request.post("/api/contacts", {
      headers: { origin },
      data: { first_name: "Dora", email: `dora-attr-${Date.now()}@example.com` },
    });
    expect(created.ok(), await created.text()).toBe(true);
    const contactId = (await created.json()).contact.id as number;
    const owners = await page.request.post(`/api/contacts/${contactId}/notes`, {
      headers: { origin },
      data: { note_text: "Owner: quote approved." },
    });
    expect(owners.ok(), await owners.text()).toBe(true);

    await cara.tab.goto(`/contacts/${contactId}`);
    await cara.tab.getByRole("tab", { name: /Notes/ }).click();
    await cara.tab.getByLabel("New note").fill("Cara: called her back.");
    await cara.tab.getByRole("button", { name: "Add Note" }).click();
    const carasNote = cara.tab.getByTestId("note").filter({ hasText: "Cara: called her back." });
    const ownersNote = cara.tab.getByTestId("note").filter({ hasText: "Owner: quote approved." });
    await expect(carasNote.getByRole("button", { name: "Edit note" })).toBeVisible();
    await expect(carasNote.getByRole("button", { name: "Delete note" })).toBeVisible();
    await expect(ownersNote).toContainText("Ana Owner ·");
    await expect(ownersNote.getByRole("button", { name: "Edit note" })).toHaveCount(0);
    await expect(ownersNote.getByRole("button", { name: "Delete note" })).toHaveCount(0);

    await page.goto(`/contacts/${contactId}`);
    await page.getByRole("tab", { name: /Notes/ }).click();
    for (const text of ["Cara: called her back.", "Owner: quote approved."]) {
      const note = page.getByTestId("note").filter({ hasText: text });
      await expect(note.getByRole("button", { name: "Edit note" })).toBeVisible();
      await expect(note.getByRole("button", { name: "Delete note" })).toBeVisible();
    }
  } finally {
    await cara.context.close();
  }
});

test("a contact and a note added through an API key say which key", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "ana-key", name: "Ana Owner", business: "Keyed Roofing" });
  await page.goto("/contacts");
  const origin = new URL(page.url()).origin;
  const made = await page.request.post("/api/api-keys", {
    headers: { origin },
    data: { name: "Zapier", scopes: ["contacts:write"] },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const auth = { origin, authorization: `Bearer ${(await made.json()).key}` };
  const created = await page.request.post("/api/v1/contacts", {
    headers: auth,
    data: { first_name: "Hal", email: `hal-key-${Date.now()}@example.com` },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const contactId = (await created.json()).id as number;
  const note = await page.request.post(`/api/v1/contacts/${contactId}/notes`, {
    headers: auth,
    data: { note_text: "Synced from the web form." },
  });
  expect(note.ok(), await note.text()).toBe(true);

  await page.goto(`/contacts/${contactId}`);
  await expect(page.getByTestId("contact-added")).toContainText("Added through API key 'Zapier' on");
  await page.getByRole("tab", { name: /Notes/ }).click();
  await expect(page.getByTestId("note")).toContainText("Added through API key 'Zapier' ·");
  await expect(page.getByTestId("note")).not.toContainText("Ana Owner");
});

test("the timeline says who sent an email from the contact's page", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "ana-sent", name: "Ana Owner", business: "Sent Roofing" });
  await page.goto("/contacts");
  const origin = new URL(page.url()).origin;
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Nia", email: `nia-sent-${Date.now()}@example.com` },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const contactId = (await created.json()).contact.id as number;
  const sent = await page.request.post(`/api/contacts/${contactId}/send-email`, {
    headers: { origin },
    data: { subject: "Your quote", body: "Here it is." },
  });
  expect(sent.ok(), await sent.text()).toBe(true);

  await page.goto(`/contacts/${contactId}`);
  await page.getByRole("tab", { name: "Activity" }).click();
  await expect(page.getByTestId("activity-actor")).toHaveText("Sent by Ana Owner");
});

test("a re-enabled webhook endpoint says who added it and who re-enabled it", async ({ page }) => {
  await registerVerifiedBusiness(page, { prefix: "ana-hook", name: "Ana Owner", business: "Hooked Roofing" });
  await page.goto("/settings?tab=webhooks");
  const origin = new URL(page.url()).origin;
  const url = `http://127.0.0.1:${e2eReceiverPort()}/reenabled`;
  const made = await page.request.post("/api/webhook-endpoints", {
    headers: { origin },
    data: { url, events: ["contact.created"] },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const id = (await made.json()).endpoint.id as string;
  for (const enabled of [false, true]) {
    const res = await page.request.patch(`/api/webhook-endpoints/${id}`, {
      headers: { origin },
      data: { enabled },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
  await page.reload();
  const row = page.getByTestId("webhook-row").filter({ hasText: url });
  await expect(row).toContainText("Added by Ana Owner");
  await expect(row.getByTestId("webhook-reenabled-by")).toHaveText("Re-enabled by Ana Owner");
});
