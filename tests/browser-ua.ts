/**
 * User-Agent headers of people's browsers and mail clients, for requests a test means as a person's
 * (a tracked link followed by its recipient, a landing page's view event). `app.inject` otherwise
 * sends "lightMyRequest", which the tracked-link and landing-page event routes take for a bot
 * (isbot's pattern list) and record nothing for.
 */
export const BROWSER_UA = {
  chrome:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  safari:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  outlook: "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)",
} as const;

/** `app.inject` headers of a person's browser (Chrome on Windows). */
export const PERSON = { "user-agent": BROWSER_UA.chrome } as const;
