# Pitchwise: one image for the `app` and `worker` process groups (fly.toml).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:client && npm prune --omit=dev --no-audit --no-fund || true

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
CMD ["npx", "tsx", "src/server/index.ts"]
