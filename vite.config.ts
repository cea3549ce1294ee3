import { fileURLToPath } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import { tanstackRouter } from "@tanstack/router-plugin/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompressPlugin } from "./scripts/precompress";

/** Where the dev server forwards API, tRPC, dev and public-share calls (the Fastify process). */
const apiTarget = process.env.PITCHWISE_API_URL ?? "http://127.0.0.1:3000";
const proxied = ["/api", "/trpc", "/healthz", "/dev", "/v/", "/u/"];

export default defineConfig({
  plugins: [
    // Must come before the React plugin: it generates the route tree and splits route components.
    tanstackRouter({
      target: "react",
      routesDirectory: "src/client/routes",
      generatedRouteTree: "src/client/routeTree.gen.ts",
      autoCodeSplitting: true,
      quoteStyle: "double",
    }),
    react(),
    tailwindcss(),
    // .br and .gz beside every text file of dist/client, served by @fastify/static's preCompressed
    precompressPlugin(),
  ],
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
  },
  server: {
    proxy: Object.fromEntries(
      proxied.map((prefix) => [prefix, { target: apiTarget, changeOrigin: false, ws: prefix === "/trpc" }]),
    ),
  },
  build: {
    outDir: "dist/client",
    emptyOutDir: true,
  },
});
