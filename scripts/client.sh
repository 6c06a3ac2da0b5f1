#!/usr/bin/env bash
# Regenerate and type-check the TypeScript client (clients/typescript).
#
#   scripts/client.sh           print the document (tandem openapi), regenerate
#                               src/schema.ts with the pinned openapi-typescript,
#                               then tsc --noEmit under strict
#   scripts/client.sh --check   regenerate into a temp file and diff it against the
#                               committed src/schema.ts: exit 1 on drift (CI), then
#                               type-check
#
# The types are a .ts module (types only: it compiles to an empty schema.js), so tsc
# emits dist/schema.d.ts next to dist/index.d.ts and the built package carries them.
set -euo pipefail
GO=${GO:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
pkg=$root/clients/typescript
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CLIENT_TANDEM_BIN: a tandem binary already built (scripts/client-test.sh passes its
# own; not a TANDEM_ name, which the binary would refuse as an unknown setting)
if [ -n "${CLIENT_TANDEM_BIN:-}" ]; then
  "$CLIENT_TANDEM_BIN" openapi > "$tmp/openapi.json"
else
  (cd "$root" && $GO run ./cmd/tandem openapi) > "$tmp/openapi.json"
fi

cd "$pkg"
if [ ! -x node_modules/.bin/openapi-typescript ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# src/schema.d.ts was the types' old name (tsc never copied it into dist): a branch
# that still regenerates it must not leave a second copy next to src/schema.ts.
if [ -e src/schema.d.ts ]; then
  if [ "$check" = 1 ]; then
    echo "client: clients/typescript/src/schema.d.ts is stale (the types are src/schema.ts now); delete it and run 'make client'" >&2
    exit 1
  fi
  rm -f src/schema.d.ts
fi

if [ "$check" = 1 ]; then
  npx --no-install openapi-typescript "$tmp/openapi.json" --output "$tmp/schema.ts" >/dev/null
  if ! diff -u src/schema.ts "$tmp/schema.ts" > "$tmp/drift.diff"; then
    head -n 60 "$tmp/drift.diff"
    echo "client: clients/typescript/src/schema.ts is out of date with the document; run 'make client' and commit it" >&2
    exit 1
  fi
  echo "client: src/schema.ts matches the document"
else
  npx --no-install openapi-typescript "$tmp/openapi.json" --output src/schema.ts
fi

npx --no-install tsc --noEmit -p tsconfig.json
echo "client: type-check passed (strict)"
