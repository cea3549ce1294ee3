import { expect, type Page } from "@playwright/test";

/**
 * The personal landing page URL (`{APP_URL}/v/{token}`) of a video campaign's email to `recipient`,
 * read from the dev outbox: polls the newest email's HTML until it contains `/v/` (the message is sent
 * by the worker's campaign jobs, after an avatar video renders for a personalised campaign), for at
 * most `timeoutMs` milliseconds.
 * @throws (a failed expectation) when no such email arrives in time or its link cannot be read.
 */
export async function landingUrlFromOutbox(
  page: Page,
  recipient: string,
  timeoutMs: number,
): Promise<string> {
  let html = "";
  await expect
    .poll(
      async () => {
        const res = await page.request.get(
          `/api/dev/outbox?channel=email&to=${encodeURIComponent(recipient)}`,
        );
        html = (await res.json()).messages[0]?.html ?? "";
        return html;
      },
      { timeout: timeoutMs },
    )
    .toContain("/v/");
  const landing = /https?:\/\/[^"\s]+\/v\/[a-z0-9]+/.exec(html)?.[0];
  expect(landing).toBeTruthy();
  return landing as string;
}
