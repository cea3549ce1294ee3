import { THEME_STORAGE_KEY, THEMES } from "../../../client/themes";

/**
 * What /docs/api adds to swagger-ui-dist so the page passes axe-core's WCAG 2 A/AA rules (no
 * serious or critical violation, tests/e2e/a11y.spec.ts) and follows the app's light or dark theme.
 * Swagger UI 5 ships a dark palette under `html.dark-mode`; THEME_SCRIPT sets that class.
 */

/** Ids of the app's dark themes (src/client/themes: the one list of themes and their modes). */
const DARK_THEME_IDS = THEMES.filter((t) => t.mode === "dark").map((t) => t.id);
const THEME_IDS = THEMES.map((t) => t.id);

/**
 * Runs in <head> before the first paint (an external file: the CSP allows no inline script). Dark
 * when the theme the app saved in localStorage (`pitchwise-theme`, same origin) is a dark one; with
 * no saved theme, the browser's prefers-color-scheme. Follows changes of either while open.
 */
export const THEME_SCRIPT = `(function () {
  var KEY = ${JSON.stringify(THEME_STORAGE_KEY)};
  var THEMES = ${JSON.stringify(THEME_IDS)};
  var DARK = ${JSON.stringify(DARK_THEME_IDS)};
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function apply() {
    var saved = null;
    try { saved = localStorage.getItem(KEY); } catch (e) {}
    var dark = THEMES.indexOf(saved) >= 0 ? DARK.indexOf(saved) >= 0 : !!(media && media.matches);
    document.documentElement.classList.toggle("dark-mode", dark);
  }
  apply();
  if (media && media.addEventListener) media.addEventListener("change", apply);
  window.addEventListener("storage", function (e) { if (e.key === KEY || e.key === null) apply(); });
})();
`;

/**
 * Accessible names and keyboard access Swagger UI leaves out, added as it renders (a MutationObserver
 * on #swagger-ui; React keeps attributes it did not set):
 * - the servers select gets "Server", a parameter's select or input the parameter's name, other
 *   unnamed selects (media types) "Media type", the request body's textarea "Request body";
 * - the Authorize dialog is a dialog (role, aria-modal, named by its title) and its close button is
 *   named "Close dialog"; a button whose aria-label leaves out its visible
 *   text ("Apply credentials" on Authorize) is named by that text;
 * - scrollable example/response code blocks become focusable (tabindex 0) so a keyboard can scroll them.
 */
export const A11Y_SCRIPT = `(function () {
  function name(el, label) {
    if (!el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby")) el.setAttribute("aria-label", label);
  }
  function fix(root) {
    root.querySelectorAll("select, textarea, input").forEach(function (el) {
      var row = el.closest("tr[data-param-name]");
      if (el.id === "servers") name(el, "Server");
      else if (row) name(el, "Parameter " + row.getAttribute("data-param-name"));
      else if (el.tagName === "SELECT") name(el, "Media type");
      else if (el.tagName === "TEXTAREA") name(el, el.closest(".body-param") ? "Request body" : "Text");
    });
    root.querySelectorAll(".modal-ux").forEach(function (m) {
      if (m.getAttribute("role") === "dialog") return;
      m.setAttribute("role", "dialog");
      m.setAttribute("aria-modal", "true");
      var title = m.querySelector(".modal-ux-header h3");
      name(m, title ? title.textContent.trim() : "Dialog");
    });
    root.querySelectorAll("button.close-modal").forEach(function (b) { name(b, "Close dialog"); });
    root.querySelectorAll("button[aria-label]").forEach(function (b) {
      var text = b.textContent.trim();
      if (text && b.getAttribute("aria-label").toLowerCase().indexOf(text.toLowerCase()) < 0) b.setAttribute("aria-label", text);
    });
    root.querySelectorAll(".highlight-code > .microlight, pre.microlight").forEach(function (p) {
      if (!p.hasAttribute("tabindex")) p.setAttribute("tabindex", "0");
    });
  }
  var host = document.getElementById("swagger-ui");
  if (!host) return;
  var queued = false;
  new MutationObserver(function () {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { queued = false; fix(document.body); });
  }).observe(document.body, { childList: true, subtree: true });
  fix(document.body);
})();
`;

/**
 * Colour fixes over swagger-ui.css, light and `html.dark-mode`: every text keeps 4.5:1 on its
 * background (method badges, version stamps, links, the Authorize and Try-it buttons, parameter
 * hints, code samples), and a visible focus ring. The 4.5:1 figures were measured with axe-core.
 */
export const DOCS_CSS = `body{margin:0}
.swagger-ui .topbar{display:none}
html.dark-mode body{background:#1c2022}
.swagger-ui :focus-visible{outline:2px solid #1d64b0;outline-offset:2px}
html.dark-mode .swagger-ui :focus-visible{outline-color:#8fc2ff}
/* method badges: white on a darker fill (the dark mode keeps its own: near-black text on bright fills) */
.swagger-ui .opblock .opblock-summary-method{color:#fff;text-shadow:none}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#1d64b0}
.swagger-ui .opblock.opblock-post .opblock-summary-method{background:#127245}
.swagger-ui .opblock.opblock-put .opblock-summary-method{background:#8a5300}
.swagger-ui .opblock.opblock-patch .opblock-summary-method{background:#0f6e62}
.swagger-ui .opblock.opblock-delete .opblock-summary-method{background:#b3261e}
.swagger-ui .opblock.opblock-head .opblock-summary-method,
.swagger-ui .opblock.opblock-options .opblock-summary-method{background:#4b5563}
.swagger-ui .info .title small,.swagger-ui .info .title small pre{background:#4b5563;color:#fff}
.swagger-ui .info .title small.version-stamp,.swagger-ui .info .title small.version-stamp pre{background:#3d6b00;color:#fff}
/* links, Authorize, Try it out / Cancel, Execute */
.swagger-ui .info a,.swagger-ui .info .url,.swagger-ui a.nostyle:visited{color:#1d64b0}
.swagger-ui .btn.authorize{border-color:#127245;color:#127245}
.swagger-ui .btn.authorize svg{fill:#127245}
.swagger-ui .btn.cancel,.swagger-ui .opblock .opblock-section-header .try-out__btn.cancel{border-color:#b3261e;color:#b3261e}
.swagger-ui .btn.execute{background:#1d64b0;border-color:#1d64b0;color:#fff}
/* parameter hints and small print */
.swagger-ui .parameter__in,.swagger-ui .parameter__deprecated,.swagger-ui .parameter__extension,
.swagger-ui .prop-format,.swagger-ui .renderedMarkdown small{color:#595959}
.swagger-ui .json-schema-2020-12-expand-deep-button,.swagger-ui .json-schema-2020-12__attribute{color:#595959}
/* code samples: plain light text on the dark block */
.swagger-ui .highlight-code .microlight span,.swagger-ui pre.microlight span{color:#f0f1f1!important}
html.dark-mode .swagger-ui .info a,html.dark-mode .swagger-ui .info .url,html.dark-mode .swagger-ui a.nostyle:visited{color:#8fc2ff}
html.dark-mode .swagger-ui .btn.authorize{border-color:#6ee7a8;color:#6ee7a8}
html.dark-mode .swagger-ui .btn.authorize svg{fill:#6ee7a8}
html.dark-mode .swagger-ui .btn.cancel,html.dark-mode .swagger-ui .opblock .opblock-section-header .try-out__btn.cancel{border-color:#ff9a93;color:#ff9a93}
html.dark-mode .swagger-ui .parameter__in,html.dark-mode .swagger-ui .parameter__deprecated,
html.dark-mode .swagger-ui .parameter__extension,html.dark-mode .swagger-ui .prop-format,
html.dark-mode .swagger-ui .renderedMarkdown small,html.dark-mode .swagger-ui .json-schema-2020-12-expand-deep-button,
html.dark-mode .swagger-ui .json-schema-2020-12__attribute{color:#c4c9cc}
/* a response's headers table (Request-Id, RateLimit-*): Swagger UI keeps its light-theme grey text */
html.dark-mode .swagger-ui .headers-wrapper,html.dark-mode .swagger-ui .headers-wrapper .headers-title,
html.dark-mode .swagger-ui .headers-wrapper .header-col{color:#e8eaed}
`;
