import fs from "node:fs";
import path from "node:path";

/**
 * The application folder (the one holding package.json): found by walking up from this module, so
 * the same answer comes out whether the server runs from `src/server` through tsx or from the
 * esbuild bundle in `dist/server` (`npm run build`). Migrations (`drizzle/`), the built client
 * (`dist/client`) and bundled assets are resolved from here.
 */
export const APP_ROOT = (() => {
  let dir = import.meta.dirname;
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
})();
