# Pitchwise: one image for the `app` and `worker` process groups (fly.toml). The server runs as JavaScript
# built by `npm run build` (client: vite, server: esbuild bundle in dist/server); no TypeScript at runtime.
# scripts/smoke-build.sh runs the build stage's commands in a clean copy and smoke-tests the result.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci's postinstall applies patches/ (patch-package) to the installed dependencies
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg espeak-ng ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    FFMPEG_PATH=/usr/bin/ffmpeg \
    FFPROBE_PATH=/usr/bin/ffprobe \
    PORT=8080 \
    HOST=0.0.0.0
COPY --from=build /app /app
EXPOSE 8080
# SIGTERM goes straight to node (no npm/npx in between), which drains and exits (src/server/index.ts).
# --max-semi-space-size=32: a 32 MB young generation (V8's default is 16 MB), as fly.toml's `app` process
# and `npm start` run the web server (README, "Build and deploy")
CMD ["node", "--max-semi-space-size=32", "--enable-source-maps", "dist/server/index.js"]
