import { expect, type Page } from "@playwright/test";

/**
 * The newest account link (`/verify-email?token=...` or `/reset-password?token=...`) emailed to
 * `email`, read from the dev outbox (issue 11).
 */
export async function accountLinkFromOutbox(
  page: Page,
  email: string,
  path: "verify-email" | "reset-password",
): Promise<string> {
  // the email is sent by a background job: wait for it to reach the outbox
  let links: string[] = [];
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`);
        expect(res.ok()).toBe(true);
        const messages = (await res.json()).messages as { body: string; id: number }[];
        links = messages
          .sort((a, b) => b.id - a.id)
          .map((m) => m.body.match(new RegExp(`https?://[^\\s]+/${path}\\?token=[a-z2-7]+`))?.[0])
          .filter((l): l is string => !!l);
        return links.length;
      },
      { message: `a ${path} email to ${email}`, timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  return links[0];
}

/**
 * Confirms a freshly registered address through its emailed verification link (the API call the
 * /verify-email page makes), so the account can launch campaigns (issue 11).
 */
export async function verifyEmailThroughOutbox(page: Page, email: string): Promise<void> {
  const link = await accountLinkFromOutbox(page, email, "verify-email");
  const token = new URL(link).searchParams.get("token");
  // a signed-in request must carry this site's Origin (CSRF check, src/server/http/origin.ts)
  const origin = new URL(page.url().startsWith("http") ? page.url() : link).origin;
  const res = await page.request.post("/api/auth/verify-email", { data: { token }, headers: { origin } });
  expect(res.ok(), await res.text()).toBe(true);
}
