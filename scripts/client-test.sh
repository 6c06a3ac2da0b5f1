#!/usr/bin/env bash
# The TypeScript client tested the way an app gets it:
#   1. the drift check and strict type-check of the sources (scripts/client.sh --check);
#   2. npm pack the package (prepack builds dist) and check the tarball carries the types;
#   3. a fresh app in a temp folder installs the tarball with the pinned typescript and
#      @types/node (package.json's devDependencies), and type-checks under strict
#      test/app.ts (type-level tests: typed calls, live events narrowed on `event`) and the
#      tests, which import "@tandem/client" by name: as a Node app (NodeNext) and as a
#      bundled app (moduleResolution bundler, DOM, no Node types);
#   4. a real `tandem serve` on the memory profile, mail to its log (the tests read
#      verification codes from it), and the tests (test/*.test.ts) run from the app.
# Needs the npm registry (or npm's cache) and nothing else. Exits non-zero on any failure.
# CLIENT_TEST_PORT picks the port (default 18190).
set -euo pipefail
GO=${GO:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
pkg=$root/clients/typescript
PORT=${CLIENT_TEST_PORT:-18190}
BASE="http://127.0.0.1:$PORT"
work=$(mktemp -d)
app=$work/app
log=$work/tandem.log
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
npmq() { npm --no-audit --no-fund --no-update-notifier "$@"; }

(cd "$root" && $GO build -o "$work/tandem" ./cmd/tandem)
GO=$GO CLIENT_TANDEM_BIN="$work/tandem" bash "$root/scripts/client.sh" --check

# The package as it ships.
tgz=$(cd "$pkg" && npmq pack --pack-destination "$work" --loglevel=warn | tail -n 1)
tgz=$work/$tgz
[ -f "$tgz" ] || { echo "client-test: npm pack made no tarball" >&2; exit 1; }
files=$(tar -tzf "$tgz")
for f in package/dist/index.js package/dist/index.d.ts package/dist/schema.d.ts; do
  grep -qx "$f" <<<"$files" || { echo "client-test: the tarball lacks $f" >&2; exit 1; }
done
echo "client-test: packed $(basename "$tgz"):" $files

# A fresh app that installs it.
mkdir -p "$app"
printf '{ "name": "tandem-client-app", "private": true, "type": "module" }\n' > "$app/package.json"
cp "$pkg"/test/*.ts "$pkg"/test/tsconfig*.json "$app/"
pin() { node -p "require('$pkg/package.json').devDependencies['$1']"; }
(cd "$app" && npmq install --prefer-offline --loglevel=error \
  "$tgz" "typescript@$(pin typescript)" "@types/node@$(pin @types/node)")
resolved=$(cd "$app" && node --input-type=module -e 'console.log(import.meta.resolve("@tandem/client"))')
case "$resolved" in
  "file://$app/node_modules/@tandem/client/"*) echo "client-test: the app imports $resolved" ;;
  *) echo "client-test: @tandem/client resolved to $resolved, not the installed tarball" >&2; exit 1 ;;
esac
(cd "$app" && npx --no-install tsc -p tsconfig.json && npx --no-install tsc -p tsconfig.bundler.json)
echo "client-test: the app type-checks under strict (NodeNext and bundler), types from the tarball"

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
(cd "$app" && TANDEM_URL="$BASE" TANDEM_LOG="$log" TANDEM_API_KEY=dev-key \
  node --test --test-concurrency=1 dist/) || status=$?
if [ "$status" != 0 ]; then
  echo "client-test: FAIL; the server's last log lines:" >&2; tail -30 "$log" >&2
fi
exit "$status"
