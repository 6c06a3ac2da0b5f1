#!/usr/bin/env bash
# Go clients from the served document (issue 45: a contract every generator
# accepts): builds tandem, prints its document (tandem openapi, what
# /openapi.json serves), generates a client with oapi-codegen and one with ogen,
# both pinned and run through `go run module@version` (neither is in the
# project's go.mod), in a module of their own under bin/goclients (kept for a
# look; a fixed path lets the build cache serve an unchanged output), then go
# build and go vet them.
# Fails when a generator fails or skips anything (ogen prints each operation,
# body or response it leaves out), when an operationId has no client method in
# either output, or when the output does not compile or vet.
#
#   scripts/goclients.sh              the document of this checkout
#   scripts/goclients.sh doc.json     another document (tandem is not built)
set -euo pipefail
GO=${GO:-go}
OAPI_CODEGEN=${OAPI_CODEGEN:-github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2}
OAPI_RUNTIME=${OAPI_RUNTIME:-github.com/oapi-codegen/runtime@v1.9.0}
OGEN=${OGEN:-github.com/ogen-go/ogen/cmd/ogen@v1.25.0}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${GOCLIENTS_DIR:-$root/bin/goclients}
rm -rf "$work"
mkdir -p "$work"

if [ -n "${1:-}" ]; then
  cp "$1" "$work/openapi.json"
else
  (cd "$root" && $GO build -o "$work/tandem" ./cmd/tandem)
  TANDEM_PUBLIC_URL=http://localhost:8080 "$work/tandem" openapi > "$work/openapi.json"
fi
ops=$(jq -r '.paths[][] | objects | .operationId // empty' "$work/openapi.json" | sort)
total=$(jq -r '[.paths[][] | objects | select(has("responses"))] | length' "$work/openapi.json")
if [ "$(printf '%s\n' "$ops" | grep -c .)" -ne "$total" ]; then
  echo "goclients: FAIL: $total operations, not all with an operationId" >&2; exit 1
fi

mod=$work/mod
mkdir -p "$mod/oapiclient" "$mod/ogenclient"
(cd "$mod" && $GO mod init goclients >/dev/null 2>&1)

echo "goclients: oapi-codegen ${OAPI_CODEGEN##*@}"
(cd "$mod" && $GO run "$OAPI_CODEGEN" -generate types,client -package oapiclient \
  -o oapiclient/client.gen.go "$work/openapi.json")

echo "goclients: ogen ${OGEN##*@}"
# Every not-implemented case is logged as a skip instead of stopping at the
# first, so that one run names them all; any skip then fails. The client only.
printf 'generator:\n  ignore_not_implemented: ["all"]\n  features:\n    disable: ["paths/server", "webhooks/server"]\n' > "$work/ogen.yml"
(cd "$mod" && $GO run "$OGEN" -config "$work/ogen.yml" -package ogenclient -target ogenclient -clean \
  "$work/openapi.json") > "$work/ogen.log" 2>&1 || { cat "$work/ogen.log" >&2; echo "goclients: FAIL: ogen" >&2; exit 1; }
if grep -i 'skipping' "$work/ogen.log" >&2; then
  echo "goclients: FAIL: ogen skipped the above" >&2; exit 1
fi

# One client method per operation in each output (oapi-codegen adds
# <Op>WithBody for a body; a multipart upload has only that one).
missing=0
for op in $ops; do
  m="$(printf '%s' "${op:0:1}" | tr '[:lower:]' '[:upper:]')${op:1}"
  grep -Eq "^func \(c \*Client\) ${m}(WithBody)?\(" "$mod/oapiclient/client.gen.go" ||
    { echo "goclients: oapi-codegen has no Client.$m ($op)" >&2; missing=1; }
  grep -Eq "^func \(c \*Client\) ${m}\(" "$mod/ogenclient/oas_client_gen.go" ||
    { echo "goclients: ogen has no Client.$m ($op)" >&2; missing=1; }
done
[ "$missing" = 0 ] || { echo "goclients: FAIL: operations missing from a client" >&2; exit 1; }

echo "goclients: go build and go vet"
(
  cd "$mod"
  $GO get "${OGEN%%/cmd/*}@${OGEN##*@}" "$OAPI_RUNTIME" 2>&1 | { grep -v '^go: \(added\|downloading\|upgraded\) ' || true; }
  $GO mod tidy 2>&1 | { grep -v '^go: \(added\|downloading\|finding\|found\) ' || true; }
  $GO build ./...
  $GO vet ./...
)
echo "goclients: $total operations, each a method of both clients; both build and vet"
