/**
 * JavaScript each screen transfers (`npm run measure:bundles`): loads /, /dashboard, /contacts and
 * /contacts/map in Chromium (Playwright, /usr/bin/chromium) against the built server
 * (`node dist/server/index.js`, NODE_ENV=production; run `npm run build` first) with a cold cache
 * per route (/ as a visitor, the others signed in), and sums the compressed bytes of every script response (Playwright's
 * `request.sizes().responseBodySize`, i.e. bytes on the wire before decoding).
 *
 * Database: DATABASE_URL when set, else an embedded PostgreSQL in a temp folder on a free port.
 * MEASURE_URL measures an already running server instead (it must serve the built client).
 * Budget: /contacts <= 250,000 bytes of compressed JS; exits 1 when over, or when a route did not
 * render. Prints `uptime` (machine load) beside the figures.
 */
import { type ChildProcess, execSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium } from "@playwright/test";
import { sleep, waitForHealthy } from "./smoke-lib";

const ROOT = path.resolve(import.meta.dirname, "..");
const ROUTES = ["/", "/dashboard", "/contacts", "/contacts/map"] as const;
const BUDGET: Partial<Record<(typeof ROUTES)[number], number>> = { "/contacts": 250_000 };

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts dist/server/index.js in production mode; returns its URL and a stop function. */
async function startBuiltServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const entry = path.join(ROOT, "dist/server/index.js");
  if (!fs.existsSync(entry) || !fs.existsSync(path.join(ROOT, "dist/client/index.html")))
    throw new Error("dist/ is missing: run `npm run build` first");
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-measure-"));
  fs.chmodSync(dir, 0o777);
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      APP_SECRET: crypto.randomBytes(32).toString("hex"),
      PORT: String(port),
      HOST: "127.0.0.1",
      // localhost: Chromium keeps the production (Secure) session cookie on http://localhost
      APP_URL: `http://localhost:${port}`,
      DATA_DIR: path.join(dir, "data"),
      EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  process.on("exit", () => child.kill("SIGTERM"));
  const url = `http://localhost:${port}`;
  await waitForHealthy(`${url}/healthz`, 180_000);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Figure {
  route: string;
  /** the page's first h1, to show the screen really rendered */
  heading: string;
  scripts: number;
  compressed: number;
  decoded: number;
  largest: { file: string; compressed: number }[];
  landedOn: string;
}

/**
 * Loads `route` in a fresh context (cold cache), waits for its heading and for the network to settle,
 * and sums its script responses.
 */
async function measure(context: BrowserContext, base: string, route: string): Promise<Figure> {
  const page = await context.newPage();
  const pending: Promise<{ file: string; compressed: number; decoded: number } | null>[] = [];
  page.on("response", (res) => {
    if (res.request().resourceType() !== "script") return;
    pending.push(
      (async () => {
        try {
          const sizes = await res.request().sizes();
          const body = await res.body().catch(() => Buffer.alloc(0));
          return {
            file: new URL(res.url()).pathname,
            compressed: sizes.responseBodySize,
            decoded: body.length,
          };
        } catch {
          return null; // the page went away first: reported below
        }
      })(),
    );
  });
  await page.goto(base + route, { waitUntil: "networkidle" });
  await page.locator("h1").first().waitFor({ timeout: 60_000 });
  await sleep(1000); // chunks a rendered screen asks for (lazy components, the map)
  await page.waitForLoadState("networkidle");
  const heading = (await page.locator("h1").first().textContent())?.trim() ?? "";
  const landedOn = new URL(page.url()).pathname;
  const settled = await Promise.all(pending);
  const rows = settled.filter((r) => r !== null);
  if (rows.length !== settled.length)
    throw new Error(`${route}: ${settled.length - rows.length} script sizes unreadable`);
  await page.close();
  return {
    route,
    heading,
    scripts: rows.length,
    compressed: rows.reduce((s, r) => s + r.compressed, 0),
    decoded: rows.reduce((s, r) => s + r.decoded, 0),
    largest: rows
      .sort((a, b) => b.compressed - a.compressed)
      .slice(0, 3)
      .map(({ file, compressed }) => ({ file: path.basename(file), compressed })),
    landedOn,
  };
}

async function main() {
  const load = execSync("uptime").toString().trim();
  const server = process.env.MEASURE_URL
    ? { url: process.env.MEASURE_URL.replace(/\/$/, ""), stop: async () => {} }
    : await startBuiltServer();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
  });
  let failed = false;
  try {
    // sign up once; every route then loads in a new context holding only that session (cold cache)
    const setup = await browser.newContext();
    const page = await setup.newPage();
    await page.goto(`${server.url}/`);
    const email = `measure-${Date.now()}@example.com`;
    const status = await page.evaluate(async (email) => {
      const res = await fetch("/api/auth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Bundle Meter", email, password: "correct-horse-battery" }),
      });
      return res.status;
    }, email);
    if (status !== 200) throw new Error(`register answered ${status}`);
    // a few contacts with ZIP codes, so the map screen draws its map (it shows an empty state without any)
    const located = await page.evaluate(async () => {
      const zips = ["10001", "94103", "60601", "98101", "33101"];
      for (const [i, postal_code] of zips.entries()) {
        const res = await fetch("/api/contacts", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ first_name: `Map${i}`, email: `map${i}@example.com`, postal_code }),
        });
        if (!res.ok) return `create contact answered ${res.status}`;
      }
      // the worker geocodes them from the ZIP code
      for (let t = 0; t < 240; t++) {
        const res = await fetch("/api/contacts/map");
        const body = (await res.json()) as { contacts?: unknown[] };
        if ((body.contacts?.length ?? 0) > 0) return null;
        await new Promise((r) => setTimeout(r, 500));
      }
      return "no contact was placed on the map within 120 s";
    });
    if (located) throw new Error(located);
    const storageState = await setup.storageState();
    await setup.close();

    const figures: Figure[] = [];
    for (const route of ROUTES) {
      // the landing page as a visitor sees it; the app screens signed in
      const context = await browser.newContext(route === "/" ? {} : { storageState });
      figures.push(await measure(context, server.url, route));
      await context.close();
    }
    console.log(`\nJavaScript transferred per route (cold cache, brotli from the built server)`);
    console.log(`load: ${load}\n`);
    console.log("route            scripts  compressed    decoded  largest (compressed)");
    for (const f of figures) {
      const over = BUDGET[f.route as keyof typeof BUDGET];
      const flag =
        over !== undefined
          ? f.compressed <= over
            ? `  (budget ${over / 1000} kB: ok)`
            : `  (budget ${over / 1000} kB: OVER)`
          : "";
      console.log(
        `${f.route.padEnd(16)} ${String(f.scripts).padStart(7)} ${(f.compressed / 1000).toFixed(1).padStart(8)} kB ${(f.decoded / 1000).toFixed(1).padStart(7)} kB  "${f.heading}": ${f.largest.map((l) => `${l.file} ${(l.compressed / 1000).toFixed(1)}`).join(", ")}${flag}`,
      );
      if (f.landedOn !== f.route) {
        console.log(`  !! ${f.route} ended on ${f.landedOn} (not signed in?)`);
        failed = true;
      }
      if (over !== undefined && f.compressed > over) failed = true;
    }
    console.log(
      "\n(kB = 1,000 bytes; compressed = bytes on the wire, decoded = JavaScript the browser parsed)",
    );
  } finally {
    await browser.close();
    await server.stop();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
