import { expect, type Page, test } from "@playwright/test";
import { loadAxe, seriousViolations } from "./a11y-helpers";
import { inviteLinkFromOutbox, registerVerifiedBusiness, verifyEmailThroughOutbox } from "./account-helpers";

/**
 * A QA finding (High): campaign emails carried no physical postal address (CAN-SPAM, 15 U.S.C.
 * 7704(a)(5)(A)(iii)) and there was nowhere to enter one. The email builder's review step warns while
 * the workspace has none (a member is told to ask an owner or admin; the launch is not refused); the
 * owner follows the notice's link to Settings > Workspace, saves the address, the notice is gone, and
 * the launched campaign's email carries the address in its footer. A member reads the field but
 * cannot edit it.
 */

// axe reads settled colours
test.use({ reducedMotion: "reduce" });

const NOTICE =
  "Add your business's postal address in Settings > Workspace: the law requires it in marketing email.";

/** Walks the email builder to Review & Launch with one CSV recipient `to`. */
async function toReview(page: Page, to: string) {
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("Sourdough is back");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Subject").fill("Fresh bread, {{first_name|there}}");
  await page.getByLabel("Email body").fill("Hi {{first_name|there}},\n\nOur sourdough is back on Saturday.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Contacts CSV (needs an email column)").setInputFiles({
    name: "bread.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(`name,email\nRobin Reader,${to}\n`),
  });
  await expect(page.getByText("bread.csv: 1 contact")).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByRole("heading", { name: "Review & Launch" })).toBeVisible();
  await expect(page.getByTestId("preview-subject")).toHaveText("Fresh bread, Robin");
}

test("the builder warns until the postal address is set in Settings > Workspace; the email's footer then carries it", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 7)}`;
  await registerVerifiedBusiness(page, { prefix: "postal", name: "Bea Baker", business: "Bee Bakery" });
  const origin = baseURL!;
  await loadAxe(page);

  // a member of the workspace (invited and accepted through the API)
  const mateEmail = `postal-mate-${stamp}@example.com`;
  const invited = await page.request.post("/api/workspaces/current/invites", {
    data: { email: mateEmail, role: "member" },
    headers: { origin },
  });
  expect(invited.status(), await invited.text()).toBe(201);
  const { token } = await inviteLinkFromOutbox(page, mateEmail);
  const mateContext = await browser.newContext();
  const mate = await mateContext.newPage();
  await mate.goto("/");
  const reg = await mate.request.post("/api/auth/register", {
    data: { name: "Mo Member", email: mateEmail, password: "correct-horse-battery", business_name: "" },
    headers: { origin },
  });
  expect(reg.ok(), await reg.text()).toBe(true);
  await verifyEmailThroughOutbox(mate, mateEmail);
  const accepted = await mate.request.post(`/api/invites/${token}/accept`, { headers: { origin } });
  expect(accepted.ok(), await accepted.text()).toBe(true);

  // the member is told to ask an owner or admin (no link to a form they cannot save)
  await toReview(mate, `postal-r0-${stamp}@example.com`);
  const mateNotice = mate.getByTestId("postal-address-notice");
  await expect(mateNotice).toHaveText(
    "Your business's postal address is missing from Settings > Workspace, and the law requires it in marketing email. Ask the workspace owner or an admin to add it.",
  );
  await expect(mate.getByRole("link", { name: "Add the postal address" })).toHaveCount(0);

  // the owner: the review step warns, with a link; Launch is not refused for it
  const recipient = `postal-r1-${stamp}@example.com`;
  await toReview(page, recipient);
  const alert = page.getByRole("alert").filter({ hasText: "Your emails have no postal address" });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText(NOTICE);
  await expect(page.getByRole("button", { name: "Launch Campaign" })).toBeEnabled();
  expect(await seriousViolations(page, "review step with the postal address notice")).toEqual([]);
  await alert.getByRole("link", { name: "Add the postal address" }).click();
  await expect(page).toHaveURL(/\/settings\?tab=workspace$/);

  const field = page.getByLabel("Postal address");
  await expect(field).toHaveAccessibleDescription(
    "The law (CAN-SPAM) requires a postal address in marketing email; it is shown in the footer of every campaign email.",
  );
  await field.fill("  12 Baker St\nSpringfield, IL 62701\nUSA  ");
  await page.getByRole("button", { name: "Save workspace" }).click();
  await expect(page.getByText("Workspace settings saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Postal address")).toHaveValue("12 Baker St\nSpringfield, IL 62701\nUSA");

  // the member reads it and cannot change it
  await mate.goto("/settings?tab=workspace");
  await expect(mate.getByLabel("Postal address")).toHaveValue("12 Baker St\nSpringfield, IL 62701\nUSA");
  await expect(mate.getByLabel("Postal address")).toBeDisabled();
  await expect(mate.getByRole("button", { name: "Save workspace" })).toHaveCount(0);
  await mateContext.close();

  // the notice is gone; the launched email carries the address in its footer
  await toReview(page, recipient);
  await expect(page.getByTestId("postal-address-notice")).toHaveCount(0);
  await expect(page.getByText("Your emails have no postal address")).toHaveCount(0);
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await expect
    .poll(
      async () => {
        const res = await page.request.get(
          `/api/dev/outbox?channel=email&to=${encodeURIComponent(recipient)}`,
        );
        const messages = (await res.json()).messages as { body: string; html: string | null }[];
        return messages.map((m) => [
          /Sent by Bee Bakery, 12 Baker St, Springfield, IL 62701, USA\. Unsubscribe: \S+\/u\/\S+$/.test(
            m.body,
          ),
          (m.html ?? "").includes("Sent by Bee Bakery, 12 Baker St, Springfield, IL 62701, USA."),
        ]);
      },
      { message: "the campaign email in the outbox", timeout: 60_000 },
    )
    .toEqual([[true, true]]);
});
