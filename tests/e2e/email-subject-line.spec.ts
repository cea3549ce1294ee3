import { expect, test } from "@playwright/test";
import { registerVerifiedBusiness } from "./account-helpers";

/**
 * A subject filled from merge tags had no length cap: six {{company}} tags over a 200-character
 * company made a 1,205-character subject, previewed and sent whole (RFC 5322 section 2.1.1 caps a
 * header line at 998 characters, Postmark refuses subjects over 2,000). The subject is now cut at a
 * word boundary with an ellipsis (lib/email-subject emailSubjectLine), the same way in the contact
 * page's preview, the campaign builder's review and what is sent: the previews show the subject as sent.
 */
test("a subject merge tags make too long is previewed and sent cut at a word boundary with an ellipsis", async ({
  page,
}) => {
  await registerVerifiedBusiness(page, { prefix: "subject-cap", name: "Sam Subject", business: "Cap Co" });
  const origin = new URL(page.url()).origin;
  const company = "Longword ".repeat(23).slice(0, 200).trim(); // 199 characters (the field holds 200)
  const email = `subject-cap-${Date.now()}@example.com`;
  const created = await page.request.post("/api/contacts", {
    headers: { origin },
    data: { first_name: "Lena", last_name: "Long", email, company },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const id = (await created.json()).contact.id as number;
  const template = Array(6).fill("{{company}}").join(" ");
  const sentSubjects = async () => {
    const res = await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`);
    return ((await res.json()).messages as { id: number; subject: string }[])
      .sort((a, b) => a.id - b.id)
      .map((m) => m.subject);
  };

  // the contact page: the dialog previews the subject as it is sent
  await page.goto(`/contacts/${id}`);
  await page.getByRole("button", { name: "Send Email" }).click();
  const dialog = page.getByRole("dialog", { name: "Send Email" });
  await dialog.getByLabel("Subject").fill(template);
  await dialog.getByLabel("Message").fill("Hello {{first_name}}");
  const previewed = (await dialog.getByTestId("message-preview-subject").textContent()) ?? "";
  expect(previewed.length).toBeGreaterThan(950);
  expect(previewed.length).toBeLessThanOrEqual(989);
  expect(previewed.startsWith(`${company} ${company}`)).toBe(true);
  expect(previewed).toMatch(/ Longword…$/);
  await dialog.getByRole("button", { name: "Send", exact: true }).click();
  await expect(page.getByText("Email sent successfully!")).toBeVisible();
  await expect.poll(sentSubjects).toEqual([previewed]);

  // the email campaign builder: the review's preview is the subject the campaign sends
  await page.goto("/email-campaign");
  await page.getByLabel("Campaign name").fill("Long subject");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Subject").fill(template);
  await page.getByLabel("Email body").fill("Hi {{first_name|there}}.");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByText("Choose from contacts").click();
  await page.getByRole("checkbox", { name: "Select Lena Long" }).check();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByTestId("preview-subject")).toHaveText(previewed);
  await page.getByRole("button", { name: "Launch Campaign" }).click();
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  await expect.poll(sentSubjects, { timeout: 30_000 }).toEqual([previewed, previewed]);
});
