import { expect, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { registerVerifiedBusiness } from "./account-helpers";
import { withE2eDb } from "./e2e-info";

/**
 * The contact page's Send SMS and Call dialogs say up front that the person opted out (a QA pass:
 * they asked "This contact has not opted in to SMS. Send anyway?" and after "Send anyway" failed with
 * "This number is on your suppression list"). The dialog names how, in the server's words (crm.optOuts,
 * crm.doNotCall: the sentences the page shows), and offers no message box and no Send; the owner's own
 * Do Not Call mark reads as that. A contact who merely has not opted in is still asked. At 390 px,
 * keyboard only, no serious axe violation in the open dialog.
 */
test.use({ viewport: { width: 390, height: 844 } });

test("Send SMS and Call to someone who opted out say so and offer no send", async ({ page }) => {
  test.setTimeout(120_000);
  await loadAxe(page);
  await registerVerifiedBusiness(page, { prefix: "send-optout", name: "Sol Sender", business: "Sol Co" });
  const origin = new URL(page.url()).origin;
  const headers = { origin };
  const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
  const mobile = `+1415555${String(Math.floor(1000 + Math.random() * 8999))}`;
  const make = async (data: Record<string, unknown>) => {
    const r = await page.request.post("/api/contacts", { headers, data });
    expect(r.ok(), await r.text()).toBe(true);
    return (await r.json()).contact.id as number;
  };
  const stopped = await make({ first_name: "Stella", email: `stella-${stamp}@example.com`, mobile });
  const marked = await make({
    first_name: "Mark",
    email: `mark-${stamp}@example.com`,
    phone: `+1415555${String(Math.floor(1000 + Math.random() * 8999))}`,
  });
  // Stella replied STOP and pressed 9 during a call (as the inbound SMS and keypress webhooks record them)
  await withE2eDb(async (sql) => {
    const [c] = await sql<
      { workspace_id: string }[]
    >`select workspace_id from contacts where id = ${stopped}`;
    const ws = c!.workspace_id;
    await sql`insert into suppressions (workspace_id, channel, value, reason, source) values
      (${ws}, 'sms', ${mobile}, 'stop_reply', 'twilio inbound'),
      (${ws}, 'voice', ${mobile}, 'keypress_opt_out', 'call keypress')`;
  });

  await page.goto(`/contacts/${stopped}`);
  await expect(page.getByTestId("opt-out-texts")).toContainText(
    "They replied STOP to a text from your sending number.",
  );

  // Send SMS: said up front, nothing to send
  await page.getByRole("button", { name: "Send SMS" }).click();
  const sms = page.getByRole("dialog", { name: "Send SMS" });
  await expect(sms.getByText("Stella opted out of texts")).toBeVisible();
  await expect(sms.getByTestId("send-blocked")).toHaveText(
    "They replied STOP to a text from your sending number. No texts go to them.",
  );
  await expect(sms.getByRole("textbox")).toHaveCount(0);
  await expect(sms.getByRole("button", { name: /^Send/ })).toHaveCount(0);
  expect(await seriousViolations(page, "send sms to an opted-out contact")).toEqual([]);
  await page.keyboard.press("Escape");
  await expect(sms).toHaveCount(0);

  // Call: the keypress and the STOP, in the Do Not Call card's words
  await page.getByRole("button", { name: "Call", exact: true }).click();
  const call = page.getByRole("dialog", { name: "Call" });
  await expect(call.getByText("Stella opted out of calls")).toBeVisible();
  await expect(call.getByTestId("send-blocked")).toContainText(
    "They pressed 9 during a call to stop calls from you.",
  );
  await expect(call.getByTestId("send-blocked")).toContainText("No calls go to them.");
  await expect(call.getByRole("textbox")).toHaveCount(0);
  await expect(call.getByRole("button", { name: /Call/ })).toHaveCount(0);
  await call.getByRole("button", { name: "Close" }).first().click();
  await expect(call).toHaveCount(0);

  // the owner's own mark: Call says so; Send SMS (not opted out, not opted in) still asks
  await page.goto(`/contacts/${marked}`);
  await page.getByTestId("do-not-call").getByRole("button", { name: "Mark Do Not Call" }).click();
  await expect(page.getByTestId("do-not-call")).toContainText("You marked this contact do not call.");
  await page.getByRole("button", { name: "Call", exact: true }).click();
  await expect(call.getByText("Mark is marked Do Not Call")).toBeVisible();
  await expect(call.getByTestId("send-blocked")).toContainText("You marked this contact do not call.");
  await expect(call.getByRole("textbox")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "Send SMS" }).click();
  await expect(sms.getByLabel("Message")).toBeVisible();
  await expect(sms.getByTestId("send-blocked")).toHaveCount(0);
  await sms.getByLabel("Message").fill("Hello");
  await sms.getByRole("button", { name: "Send", exact: true }).click();
  const ask = page.getByRole("dialog", { name: "Send the SMS to Mark?" });
  await expect(ask.getByText("This contact has not opted in to SMS. Send anyway?")).toBeVisible();
});
