import { expect, type Page } from "@playwright/test";
import { withE2eDb } from "./e2e-info";

/**
 * The links matching `pattern` in the emails to `email` in the dev outbox, newest email first, once
 * at least `atLeast` have arrived (emails are sent by background jobs: polled up to 30 s; `what`
 * names them in the failure).
 */
async function outboxLinks(page: Page, email: string, pattern: RegExp, atLeast: number, what: string) {
  let links: string[] = [];
  await expect
    .poll(
      async () => {
        const res = await page.request.get(`/api/dev/outbox?channel=email&to=${encodeURIComponent(email)}`);
        expect(res.ok()).toBe(true);
        const messages = (await res.json()).messages as { body: string; id: number }[];
        links = messages
          .sort((a, b) => b.id - a.id)
          .map((m) => m.body.match(pattern)?.[0])
          .filter((l): l is string => !!l);
        return links.length;
      },
      { message: what, timeout: 30_000 },
    )
    .toBeGreaterThanOrEqual(atLeast);
  return links;
}

/**
 * The newest account link (`/verify-email?token=...` or `/reset-password?token=...`) emailed to
 * `email`, read from the dev outbox (issue 11), once at least `atLeast` such emails have arrived (each
 * link retires the earlier ones: after a resend, wait for the second email, or the first one's
 * retired link may be the newest in the outbox yet).
 */
export async function accountLinkFromOutbox(
  page: Page,
  email: string,
  path: "verify-email" | "reset-password",
  atLeast = 1,
): Promise<string> {
  const pattern = new RegExp(`https?://[^\\s]+/${path}\\?token=[a-z2-7]+`);
  return (
    await outboxLinks(page, email, pattern, atLeast, `${atLeast} ${path} email(s) to ${email}`)
  )[0] as string;
}

/**
 * The newest invitation link (`<origin>/invite/<token>`) emailed to `email`, read from the dev outbox
 * once it has arrived; `token` is its last path segment (for `POST /api/invites/{token}/accept`).
 */
export async function inviteLinkFromOutbox(
  page: Page,
  email: string,
): Promise<{ link: string; token: string }> {
  const [link] = await outboxLinks(
    page,
    email,
    /https?:\/\/\S+\/invite\/[a-z2-7]+/,
    1,
    `an invitation email to ${email}`,
  );
  const found = link as string;
  return { link: found, token: found.slice(found.lastIndexOf("/") + 1) };
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

/**
 * Registers a new account (`name`, `business`, an address starting with `prefix`) and verifies it
 * through the emailed link; its workspace is on the Free plan. Leaves the page on "/", signed in.
 * Returns the address.
 */
export async function registerVerified(
  page: Page,
  who: { prefix: string; name: string; business: string },
): Promise<string> {
  const email = `${who.prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await page.goto("/");
  const res = await page.request.post("/api/auth/register", {
    data: { name: who.name, email, password: "correct-horse-battery", business_name: who.business },
  });
  expect(res.ok()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
  return email;
}

/**
 * registerVerified, then puts its workspace on the Business plan in the e2e server's database (paid
 * channels and large imports need a plan above Free). Returns the address.
 */
export async function registerVerifiedBusiness(
  page: Page,
  who: { prefix: string; name: string; business: string },
): Promise<string> {
  const email = await registerVerified(page, who);
  await withE2eDb(
    (sql) =>
      sql`update workspaces set plan = 'business', subscription_status = 'active' where owner_id = (select id from users where email = ${email})`,
  );
  return email;
}

/** An Etc/GMT zone whose local hour is `hour` now (for contacts inside or outside quiet hours). */
export function zoneAt(hour: number): string {
  let o = (((hour - new Date().getUTCHours()) % 24) + 24) % 24;
  if (o > 14) o -= 24;
  return o === 0 ? "Etc/GMT" : o > 0 ? `Etc/GMT-${o}` : `Etc/GMT+${-o}`;
}
