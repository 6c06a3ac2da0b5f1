#!/usr/bin/env bash
# Regenerate and type-check the TypeScript client (clients/typescript).
#
#   scripts/client.sh           print the document (tandem openapi), regenerate
#                               src/schema.d.ts with the pinned openapi-typescript,
#                               then tsc --noEmit under strict
#   scripts/client.sh --check   regenerate into a temp file and diff it against the
#                               committed src/schema.d.ts: exit 1 on drift (CI), then
#                               type-check
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

(cd "$root" && $GO run ./cmd/tandem openapi) > "$tmp/openapi.json"

cd "$pkg"
if [ ! -x node_modules/.bin/openapi-typescript ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

if [ "$check" = 1 ]; then
  npx --no-install openapi-typescript "$tmp/openapi.json" --output "$tmp/schema.d.ts" >/dev/null
  if ! diff -u src/schema.d.ts "$tmp/schema.d.ts" > "$tmp/drift.diff"; then
    head -n 60 "$tmp/drift.diff"
    echo "client: clients/typescript/src/schema.d.ts is out of date with the document; run 'make client' and commit it" >&2
    exit 1
  fi
  echo "client: src/schema.d.ts matches the document"
else
  npx --no-install openapi-typescript "$tmp/openapi.json" --output src/schema.d.ts
fi

npx --no-install tsc --noEmit -p tsconfig.json
echo "client: type-check passed (strict)"
