/**
 * Build step of the client: writes `name.br` (brotli, quality 11) and `name.gz` (gzip, level 9)
 * beside every compressible file of `dist/client`, which @fastify/static sends as-is (`preCompressed`,
 * src/server/main.ts) to browsers that accept them. Runs as the last step of `vite build`
 * (precompressPlugin in vite.config.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { Plugin } from "vite";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Text formats worth compressing (images, fonts in woff2 and media are compressed already). */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|map|txt|wasm|xml|ico|ttf)$/i;
/** Below this a compressed copy saves less than its headers cost. */
const MIN_BYTES = 1024;

/**
 * Compresses every compressible file of at least 1 KB under `dir` (recursively) to `.br` and `.gz`;
 * a compressed copy that is not smaller than the original is not written (the original is served).
 * @returns the files compressed with their sizes in bytes
 */
export async function precompressDir(
  dir: string,
): Promise<{ file: string; bytes: number; br: number | null; gz: number | null }[]> {
  const out: { file: string; bytes: number; br: number | null; gz: number | null }[] = [];
  const files = (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((f) => path.join(dir, f))
    .filter((f) => COMPRESSIBLE.test(f) && fs.statSync(f).isFile());
  await Promise.all(
    files.map(async (file) => {
      const raw = await fs.promises.readFile(file);
      if (raw.length < MIN_BYTES) return;
      const [br, gz] = await Promise.all([
        brotli(raw, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
          },
        }),
        gzip(raw, { level: 9 }),
      ]);
      const write = async (ext: string, data: Buffer) => {
        if (data.length >= raw.length) return null;
        await fs.promises.writeFile(file + ext, data);
        return data.length;
      };
      out.push({
        file: path.relative(dir, file),
        bytes: raw.length,
        br: await write(".br", br),
        gz: await write(".gz", gz),
      });
    }),
  );
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** Vite plugin: precompressDir over the output folder once the bundle is written (client build only). */
export function precompressPlugin(): Plugin {
  let outDir = "";
  return {
    name: "pitchwise-precompress",
    apply: "build",
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = await precompressDir(outDir);
      this.info?.(`precompressed ${files.length} files (.br, .gz)`);
    },
  };
}
