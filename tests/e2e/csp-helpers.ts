import type { Page } from "@playwright/test";

/**
 * Collects Content-Security-Policy refusals on `page` (issue 11), from the moment it is called:
 * - `violations()`: the `securitypolicyviolation` events of the current document (an init script
 *   records them on `window.__csp`, so the list restarts at every navigation: read it before leaving
 *   a page), as `directive blocked-uri source:line`;
 * - `refusals`: every console message or page error naming the policy ('Refused to ...'), across all
 *   navigations, prefixed with the page's URL.
 */
export async function collectCsp(
  page: Page,
): Promise<{ violations: () => Promise<string[]>; refusals: string[] }> {
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      w.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  const refusals: string[] = [];
  page.on("console", (msg) => {
    if (/Refused to|Content Security Policy/i.test(msg.text())) refusals.push(`${page.url()}: ${msg.text()}`);
  });
  page.on("pageerror", (err) => {
    if (/Content Security Policy|unsafe-eval/i.test(err.message))
      refusals.push(`${page.url()}: ${err.message}`);
  });
  return {
    violations: () => page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []),
    refusals,
  };
}
