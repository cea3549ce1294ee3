#!/usr/bin/env bash
# Proves the Dockerfile's steps on this machine (`npm run smoke:build`):
#   1. a clean copy of HEAD (git archive) in a temp folder;
#   2. the image's build stage there: `npm ci`, `npm run build`, `npm prune --omit=dev`
#      (SMOKE_REUSE_NODE_MODULES=1 hard-links this checkout's node_modules instead of `npm ci`, for a
#      machine without the registry; the prune then only unlinks in the copy);
#   3. the fly.toml release command `node dist/server/migrate.js`, then the two process groups with the
#      commands fly.toml's [processes] gives them (read from the file: `app`, the web server, and
#      `worker`) with NODE_ENV=production against a temp database on SMOKE_PG (default
#      postgres://postgres@127.0.0.1:5432);
#   4. scripts/smoke.ts against it (health, compressed client, register, CSV import, email campaign);
#   5. SIGTERM to both processes: each must exit 0 (graceful shutdown).
# Leaves nothing behind (temp folder and database are removed) unless SMOKE_KEEP=1.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PG="${SMOKE_PG:-postgres://postgres@127.0.0.1:5432}"
PORT="${SMOKE_PORT:-3291}"
DB="pw_smoke_$$"
TMP="$(mktemp -d /tmp/pitchwise-smoke-XXXXXX)"
chmod 755 "$TMP"
APP="$TMP/app"
WEB_PID=""
WORKER_PID=""

cleanup() {
  local code=$?
  [ -n "$WEB_PID" ] && kill "$WEB_PID" 2>/dev/null || true
  [ -n "$WORKER_PID" ] && kill "$WORKER_PID" 2>/dev/null || true
  psql "$PG/postgres" -qc "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  if [ "${SMOKE_KEEP:-0}" = 1 ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
  exit "$code"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

step "clean copy of $(git -C "$ROOT" rev-parse --short HEAD) in $APP"
mkdir -p "$APP"
git -C "$ROOT" archive HEAD | tar -x -C "$APP"
cd "$APP"

if [ "${SMOKE_REUSE_NODE_MODULES:-0}" = 1 ]; then
  step "node_modules hard-linked from $ROOT (SMOKE_REUSE_NODE_MODULES=1) instead of npm ci"
  cp -al "$(readlink -f "$ROOT/node_modules")" node_modules
else
  step "npm ci --no-audit --no-fund"
  npm ci --no-audit --no-fund
fi

step "npm run build"
npm run build
test -f dist/client/index.html && test -f dist/server/index.js && test -f dist/server/worker.js
ls dist/client/assets/*.br >/dev/null

step "npm prune --omit=dev --no-audit --no-fund"
npm prune --omit=dev --no-audit --no-fund
if [ -e node_modules/@biomejs/biome ] || [ -e node_modules/dependency-cruiser ]; then
  echo "dev dependencies (biome, dependency-cruiser) are still installed after the prune" >&2
  exit 1
fi

step "temp database $DB"
psql "$PG/postgres" -qc "create database $DB" >/dev/null
export NODE_ENV=production
export APP_SECRET="$(node -e 'console.log(require("crypto").randomBytes(32).toString("hex"))')"
export DATABASE_URL="$PG/$DB"
export PORT HOST=127.0.0.1 APP_URL="http://127.0.0.1:$PORT" DATA_DIR="$TMP/data"
export CAMPAIGN_SIMULATE_ENGAGEMENT=false SHUTDOWN_TIMEOUT_MS=10000

step "release command: node dist/server/migrate.js"
node dist/server/migrate.js

# a process group's command as fly.toml's [processes] table writes it (`  app = "..."`)
fly_process() { sed -n "s/^  $1 = \"\(.*\)\"\$/\1/p" fly.toml; }
WEB_CMD="$(fly_process app)"
WORKER_CMD="$(fly_process worker)"
if [ -z "$WEB_CMD" ] || [ -z "$WORKER_CMD" ]; then
  echo "fly.toml has no [processes] app and worker commands" >&2
  exit 1
fi
step "processes as fly.toml starts them: web ($WEB_CMD) and worker ($WORKER_CMD)"
# exec: the PID is the command's own (env execs node in its place), so SIGTERM below reaches node
bash -c "exec $WEB_CMD" >"$TMP/web.log" 2>&1 &
WEB_PID=$!
bash -c "exec $WORKER_CMD" >"$TMP/worker.log" 2>&1 &
WORKER_PID=$!

step "smoke test against http://127.0.0.1:$PORT"
if ! "$ROOT/node_modules/.bin/tsx" "$ROOT/scripts/smoke.ts" "http://127.0.0.1:$PORT"; then
  echo "--- web log (last 30 lines)"; tail -30 "$TMP/web.log"
  echo "--- worker log (last 30 lines)"; tail -30 "$TMP/worker.log"
  exit 1
fi

step "SIGTERM: both processes drain and exit 0"
kill -TERM "$WEB_PID" "$WORKER_PID"
set +e
wait "$WEB_PID"; WEB_CODE=$?
wait "$WORKER_PID"; WORKER_CODE=$?
set -e
WEB_PID=""; WORKER_PID=""
echo "web exited $WEB_CODE, worker exited $WORKER_CODE"
grep -h '"shutdown complete"' "$TMP/web.log" "$TMP/worker.log" | head -2
LINES=$(grep -c '"msg":"GET /healthz 200' "$TMP/web.log" || true)
echo "production request log: $LINES JSON line(s) for GET /healthz, e.g.:"
grep -m1 '"msg":"GET /healthz 200' "$TMP/web.log" || true
[ "$WEB_CODE" = 0 ] && [ "$WORKER_CODE" = 0 ]
echo
echo "smoke-build passed"
