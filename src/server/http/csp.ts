import { createHash } from "node:crypto";
import fs from "node:fs";
import type { Env } from "../../env";

/** The default basemap's origin (OpenFreeMap: style, tiles, sprites and glyphs are all served from it). */
export const DEFAULT_MAP_ORIGIN = "https://tiles.openfreemap.org";

/** `'sha256-...'` sources of the inline `<script>` elements (no `src`) of an HTML page. */
export function inlineScriptHashes(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi))
    if (m[1].trim()) out.push(`'sha256-${createHash("sha256").update(m[1], "utf8").digest("base64")}'`);
  return out;
}

function originOf(url: string | undefined): string | null {
  if (!url || !/^https?:/i.test(url)) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The Content-Security-Policy directives (Helmet) every response carries (issue 11). What needs what:
 * - scripts only from this origin, plus the hashes of the built `index.html`'s inline theme script
 *   (`clientIndexHtml`); no inline scripts elsewhere (the video landing page loads /v/assets/landing.js)
 *   and no `eval` (the client sets zod's `jitless`);
 * - styles from this origin and inline (`'unsafe-inline'`: server-rendered pages carry a `<style>`,
 *   wavesurfer and sonner inject style elements, Plyr and maplibre set style attributes);
 * - maplibre: its worker is a same-origin file, blob: workers are allowed too; the basemap's style, tiles,
 *   sprites and glyphs are fetched from https://tiles.openfreemap.org and from the origin of
 *   `MAP_STYLE_URL` when set (a custom style must serve its tiles, sprites and glyphs from its own
 *   origin);
 * - media (Plyr, wavesurfer, the recorder's preview) from this origin, blob: and data:;
 * - images from anywhere over https (workspace logos, contact avatars), data: and blob:;
 * - forms post only to this origin (the local checkout and portal, unsubscribe), no plugins, no
 *   framing by other sites, `<base>` only this origin; `upgrade-insecure-requests` in production only
 *   (on http://LAN-address development it would break every request).
 */
export function cspDirectives(
  env: Pick<Env, "isProduction"> & { MAP_STYLE_URL?: string },
  clientIndexHtml: string | null,
): Record<string, string[] | null> {
  const mapOrigins = [DEFAULT_MAP_ORIGIN];
  const styleOrigin = originOf(env.MAP_STYLE_URL);
  if (styleOrigin && !mapOrigins.includes(styleOrigin)) mapOrigins.push(styleOrigin);
  return {
    "default-src": ["'self'"],
    "script-src": ["'self'", ...(clientIndexHtml ? inlineScriptHashes(clientIndexHtml) : [])],
    "script-src-attr": ["'none'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:", "https:"],
    "font-src": ["'self'", "data:"],
    "media-src": ["'self'", "blob:", "data:"],
    "connect-src": ["'self'", ...mapOrigins],
    "worker-src": ["'self'", "blob:"],
    "child-src": ["'self'", "blob:"],
    "frame-src": ["'none'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'self'"],
    "upgrade-insecure-requests": env.isProduction ? [] : null,
  };
}

/** The built client's index.html, or null when the client is not built / not served. */
export function readClientIndex(dir: string): string | null {
  try {
    return fs.readFileSync(`${dir}/index.html`, "utf8");
  } catch {
    return null;
  }
}
