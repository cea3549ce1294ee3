import { expect, type Page, test } from "@playwright/test";
import { verifyEmailThroughOutbox } from "./account-helpers";
import { upgradeThroughLocalCheckout } from "./billing-helpers";
import { landingUrlFromOutbox } from "./landing-helpers";

/** Video campaign builder, "Personalised AI avatar": one local avatar video per recipient. */

async function register(page: Page) {
  const email = `avc-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post("/api/auth/register", {
    data: {
      name: "Avatar Sender",
      business_name: "Bloom Florists",
      email,
      password: "correct-horse-battery",
    },
  });
  expect(res.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  return email;
}

async function buildAndLaunch(page: Page, recipient: string) {
  await page.goto("/campaigns/video");
  await page.getByLabel("Campaign name").fill("Avatar hello");
  await page.getByText("Personalised AI avatar").click();
  const script = page.getByLabel("Avatar script");
  await script.fill("Hi ");
  await page.getByRole("button", { name: "Insert full name" }).click();
  await script.press("End");
  await script.pressSequentially(", a video for ");
  await page.getByRole("button", { name: "Insert company" }).click();
  await expect(script).toHaveValue("Hi {{name|there}}, a video for {{company|your company}}");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Step 2: Delivery Settings")).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await page.locator("#vc-csv").setInputFiles({
    name: "contacts.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(`Name,Email,Company\nAda Lovelace,${recipient},Analytical Ltd\n`),
  });
  await expect(page.getByText("contacts.csv: 1 contact", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("Avatar says: “Hi Ada Lovelace, a video for Analytical Ltd”")).toBeVisible();
  await expect(page.getByText("Personalised AI avatar (one video per recipient)")).toBeVisible();
  await page.getByRole("button", { name: "Launch Campaign" }).click();
}

test("a Free plan user is told that video campaigns need an upgrade", async ({ page }) => {
  await page.goto("/");
  await register(page);
  await buildAndLaunch(page, `ada-${Date.now()}@example.com`);
  await expect(page.getByText(/Video campaigns are not included in your Free plan/)).toBeVisible();
});

test("a Professional user's recipient gets their own avatar video on their landing page", async ({
  page,
}) => {
  test.setTimeout(150_000);
  await page.goto("/");
  await register(page);
  await upgradeThroughLocalCheckout(page, "Professional");
  const recipient = `ada-${Date.now()}@example.com`;
  await buildAndLaunch(page, recipient);
  await expect(page.getByRole("heading", { name: "Campaign Launched!" })).toBeVisible();
  const landing = await landingUrlFromOutbox(page, recipient, 90_000);
  await page.goto(landing);
  await expect(page.getByRole("heading", { name: "A video for Ada Lovelace" })).toBeVisible();
  await page.getByRole("button", { name: "Play", exact: true }).first().click();
  await expect
    .poll(() => page.locator("video").evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 })
    .toBeGreaterThan(1);
});
