import { readableTextOn } from "../../lib/contrast";
import type { LandingData } from "./campaigns.video";

/** HTML-escapes text for element content and attribute values. */
export function esc(s: string | null | undefined): string {
  return String(s ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Only http(s) and mailto/tel links are rendered (no javascript: URLs). */
function safeHref(url: string): string | null {
  return /^(https?:|mailto:|tel:)/i.test(url) ? url : null;
}

/** Plyr options from spec section 9, with the sprite served locally (no CDN). */
const PLYR_CONFIG = {
  controls: [
    "play-large",
    "play",
    "progress",
    "current-time",
    "duration",
    "mute",
    "volume",
    "settings",
    "pip",
    "airplay",
    "fullscreen",
  ],
  settings: ["quality", "speed", "loop"],
  speed: { selected: 1, options: [0.5, 0.75, 1, 1.25, 1.5, 2] },
  quality: { default: 720, options: [4320, 2880, 2160, 1440, 1080, 720, 576, 480, 360, 240] },
  ratio: "16:9",
  toggleInvert: true,
  keyboard: { focused: true, global: true },
  tooltips: { controls: true, seek: true },
  captions: { active: false },
  hideControls: true,
  disableContextMenu: false,
  resetOnEnd: false,
  clickToPlay: true,
  iconUrl: "/v/assets/plyr.svg",
  blankVideo: "",
};

/**
 * The landing page's script, served as /v/assets/landing.js (no inline script, so the page works
 * under the Content-Security-Policy): Plyr on the video, then view and watch-progress events
 * (25/50/75/100 %) posted to the URL in the video's `data-events`.
 */
export const LANDING_JS = `(function () {
  var video = document.getElementById("player");
  if (!video) return;
  try { new Plyr(video, ${JSON.stringify(PLYR_CONFIG)}); } catch (e) {}
  var url = video.getAttribute("data-events");
  var chain = Promise.resolve();
  function post(body) {
    chain = chain.then(function () {
      return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), keepalive: true, credentials: "omit" });
    }).catch(function () {});
  }
  post({ event: "view" });
  var sent = {};
  function mark(p) { if (!sent[p]) { sent[p] = true; post({ event: "progress", percent: p }); } }
  video.addEventListener("timeupdate", function () {
    if (!video.duration) return;
    var pct = (video.currentTime / video.duration) * 100;
    [25, 50, 75].forEach(function (m) { if (pct >= m) mark(m); });
    if (pct >= 99.5) mark(100);
  });
  video.addEventListener("ended", function () { [25, 50, 75, 100].forEach(mark); });
})();
`;

/**
 * The recipient's landing page (`/v/{token}`): the video in Plyr, the sender's message merged for
 * this recipient, a call-to-action button (the campaign's link, else a reply email), the sender's
 * contact details, and the view / watch-progress (25/50/75/100 %) tracking script.
 * `opts.ctaHref`: the button's signed click-tracking link (campaigns.video landingCtaHref), used
 * instead of the page's raw `ctaUrl` so the click is recorded; without it the button links to
 * `ctaUrl` directly (a campaign launched before the button was tracked).
 */
export function renderLandingPage(
  d: LandingData,
  token: string,
  opts: { ctaHref?: string | null } = {},
): string {
  const senderName = d.sender.businessName || d.sender.name;
  // workspace branding (Settings > Workspace): brand colour on the player and button, logo, white-label footer
  const brand =
    d.sender.brandColor && /^#[0-9a-f]{6}$/i.test(d.sender.brandColor) ? d.sender.brandColor : "#4f46e5";
  const onBrand = readableTextOn(brand);
  const logo = d.sender.logoUrl && safeHref(d.sender.logoUrl);
  const hello = d.page.recipientName ? `A video for ${d.page.recipientName}` : "A video for you";
  // the reply subject never names the library file (the sender's own label, not meant for recipients)
  const ctaHref =
    (d.page.ctaUrl && (opts.ctaHref || safeHref(d.page.ctaUrl))) ||
    `mailto:${d.sender.email}?subject=${encodeURIComponent(`Re: your video from ${senderName}`)}`;
  const ctaLabel = d.page.ctaLabel || (d.page.ctaUrl ? "Learn more" : `Reply to ${d.sender.name}`);
  const base = `/v/${encodeURIComponent(token)}`;
  const message = esc(d.page.message).replace(/\r?\n/g, "<br>");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(hello)} from ${esc(senderName)}</title>
<link rel="stylesheet" href="/v/assets/plyr.css">
<style>
  :root { --plyr-color-main: ${brand}; color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f8; color: #111827; }
  main { max-width: 860px; margin: 0 auto; padding: 32px 16px 48px; }
  header p { margin: 0; color: #4b5563; font-size: 14px; }
  h1 { margin: 4px 0 20px; font-size: 28px; line-height: 1.2; }
  .player { border-radius: 12px; overflow: hidden; background: #000; box-shadow: 0 10px 30px rgba(17,24,39,.15); }
  .card { background: #fff; border-radius: 12px; padding: 24px; margin-top: 24px; box-shadow: 0 1px 3px rgba(17,24,39,.08); }
  .message { font-size: 17px; line-height: 1.6; margin: 0 0 20px; }
  .cta { display: inline-block; background: ${brand}; color: ${onBrand}; text-decoration: none; padding: 14px 28px; border-radius: 10px; font-weight: 600; font-size: 16px; }
  .cta:hover, .cta:focus-visible { filter: brightness(0.92); outline: 3px solid ${brand}55; }
  .sender { display: flex; flex-wrap: wrap; gap: 8px 24px; margin-top: 20px; padding-top: 20px; border-top: 1px solid #e5e7eb; font-size: 14px; color: #374151; }
  .sender strong { display: block; width: 100%; font-size: 15px; color: #111827; }
  .sender a { color: #4338ca; }
  footer { margin-top: 24px; text-align: center; font-size: 12px; color: #4b5563; }
  .logo { max-height: 48px; max-width: 200px; display: block; margin-bottom: 8px; }
  /* Plyr hides controls by viewport only: size the controls by the player's own width so the
     progress bar stays wide enough to scrub on phones (same rules as the app's styles.css) */
  .plyr { container-type: inline-size; }
  .plyr__controls .plyr__progress__container { min-width: 64px; }
  .plyr__progress input[type=range] { height: 28px; }
  @container (max-width: 639px) {
    .plyr .plyr__volume input[type=range], .plyr [data-plyr=pip], .plyr [data-plyr=airplay], .plyr .plyr__controls .plyr__time--duration { display: none; }
  }
  @container (max-width: 300px) { .plyr .plyr__controls .plyr__time { display: none; } }
</style>
</head>
<body>
<main>
  <header>${logo ? `<img class="logo" src="${esc(logo)}" alt="${esc(senderName)} logo" referrerpolicy="no-referrer">` : ""}<p>${esc(senderName)}</p><h1>${esc(hello)}</h1></header>
  <div class="player">
    <video id="player" playsinline controls preload="metadata" poster="${base}/poster" data-events="${esc(`${base}/events`)}" data-testid="landing-video">
      <source src="${base}/video" type="video/mp4">
    </video>
  </div>
  <section class="card">
    ${message ? `<p class="message">${message}</p>` : ""}
    <a class="cta" href="${esc(ctaHref)}" rel="noopener">${esc(ctaLabel)}</a>
    <div class="sender" aria-label="Contact details">
      <strong>${esc(d.sender.name)}${d.sender.businessName ? ` &middot; ${esc(d.sender.businessName)}` : ""}</strong>
      <a href="mailto:${esc(d.sender.email)}">${esc(d.sender.email)}</a>
      ${d.sender.phone ? `<a href="tel:${esc(d.sender.phone)}">${esc(d.sender.phone)}</a>` : ""}
    </div>
  </section>
  ${d.sender.hideBranding ? "" : "<footer>Powered by Pitchwise</footer>"}
</main>
<script src="/v/assets/plyr.js"></script>
<script src="/v/assets/landing.js"></script>
</body>
</html>`;
}

/** The page for an unknown token or a deleted video. */
export function renderUnavailablePage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Video not available</title>
<style>body{font-family:system-ui,sans-serif;background:#f4f5f8;color:#111827;display:grid;place-items:center;min-height:100vh;margin:0}main{text-align:center;padding:24px}p{color:#4b5563}</style></head>
<body><main><h1>This video is no longer available</h1><p>The link may be mistyped, or the sender removed the video.</p></main></body></html>`;
}
