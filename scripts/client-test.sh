#!/usr/bin/env bash
# The TypeScript client's scenario tests (clients/typescript/test) against a real
# `tandem serve` on the memory profile: builds the binary, checks the generated types
# for drift (scripts/client.sh --check), starts the server with mail to its log (the
# tests read verification codes from it), npm ci, runs the tests, stops the server.
# Exits non-zero on any failure. CLIENT_TEST_PORT picks the port (default 18190).
set -euo pipefail
GO=${GO:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
pkg=$root/clients/typescript
PORT=${CLIENT_TEST_PORT:-18190}
BASE="http://127.0.0.1:$PORT"
work=$(mktemp -d)
log=$work/tandem.log
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$root" && $GO build -o "$work/tandem" ./cmd/tandem)
(cd "$pkg" && npm ci --no-audit --no-fund)
GO=$GO bash "$root/scripts/client.sh" --check

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "client-test: port $PORT is taken; set CLIENT_TEST_PORT" >&2; exit 1
fi
env TANDEM_DB=memory TANDEM_BLOBS=memory TANDEM_ENV=development TANDEM_MAIL=log \
  TANDEM_PUSH=log TANDEM_API_KEYS=dev-key TANDEM_ADDR="127.0.0.1:$PORT" \
  TANDEM_PUBLIC_URL="$BASE" TANDEM_METRICS_ADDR= TANDEM_LOG_LEVEL=info \
  "$work/tandem" serve > "$log" 2>&1 &
pid=$!
for _ in $(seq 1 80); do
  kill -0 "$pid" 2>/dev/null || break
  curl -fs "$BASE/readyz" >/dev/null 2>&1 && break
  sleep 0.25
done
if ! kill -0 "$pid" 2>/dev/null || ! curl -fs "$BASE/readyz" >/dev/null; then
  echo "client-test: tandem not ready on $BASE" >&2; tail -30 "$log" >&2; exit 1
fi

status=0
(cd "$pkg" && TANDEM_URL="$BASE" TANDEM_LOG="$log" TANDEM_API_KEY=dev-key npm test) || status=$?
if [ "$status" != 0 ]; then
  echo "client-test: FAIL; the server's last log lines:" >&2; tail -30 "$log" >&2
fi
exit "$status"
