import { type Browser, expect, type Page } from "@playwright/test";
import { inviteLinkFromOutbox, verifyEmailThroughOutbox } from "./account-helpers";

/** Registers `name` (business `business`) in a fresh browser context and verifies the address. */
export async function registerIn(page: Page, origin: string, email: string, name: string, business: string) {
  await page.goto("/");
  const reg = await page.request.post("/api/auth/register", {
    headers: { origin },
    data: { name, email, password: "correct-horse-battery", business_name: business },
  });
  expect(reg.ok(), await reg.text()).toBe(true);
  await verifyEmailThroughOutbox(page, email);
}

/**
 * A person named `name` (own workspace `business`) is invited by the signed-in owner on `page` (as a
 * member unless `role` says admin), registers in a browser context of their own and joins through
 * the emailed link, which makes the owner's workspace their active one. Returns their address, tab
 * and context (close it when done) and the invitation's link and token.
 */
export async function memberJoins(
  page: Page,
  browser: Browser,
  origin: string,
  who: { prefix: string; name: string; business: string; role?: "admin" | "member" },
) {
  const email = `${who.prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
  const invited = await page.request.post("/api/workspaces/current/invites", {
    headers: { origin },
    data: { email, role: who.role ?? "member" },
  });
  expect(invited.ok(), await invited.text()).toBe(true);
  const context = await browser.newContext();
  const tab = await context.newPage();
  await registerIn(tab, origin, email, who.name, who.business);
  const { link, token } = await inviteLinkFromOutbox(tab, email);
  const accepted = await tab.request.post(`/api/invites/${token}/accept`, { headers: { origin } });
  expect(accepted.ok(), await accepted.text()).toBe(true);
  return { email, tab, context, link, token };
}
