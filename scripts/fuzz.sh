#!/usr/bin/env bash
# Runs every Go fuzz target of the module for FUZZTIME each: `go test -fuzz`
# takes one target of one package per run, so this lists them with
# `go test -list '^Fuzz'` and runs them one after another.
#
#   FUZZTIME   how long each target runs (default 30s; any -fuzztime value)
#   FUZZPKGS   packages to search (default ./...)
#   FUZZFLAGS  more go test flags (e.g. -parallel 1)
#   FUZZLOG    a directory that gets each target's output as PKG.TARGET.log
#
# A failing input is written under the package's testdata/fuzz/<Target>/ by
# go test; commit it as a regression seed once the bug is fixed. The exit
# status is 1 when any target failed; every target runs regardless.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-30s}
FUZZPKGS=${FUZZPKGS:-./...}
FUZZFLAGS=${FUZZFLAGS:-}
GO=${GO:-go}

failed=()
count=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for dir in $($GO list -f '{{.Dir}}' $FUZZPKGS); do
  grep -qs '^func Fuzz' "$dir"/*_test.go || continue # no target: skip compiling its tests
  pkg=$($GO list "$dir")
  for target in $($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
    count=$((count + 1))
    echo "== $pkg $target ($FUZZTIME)"
    # shellcheck disable=SC2086
    $GO test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" $FUZZFLAGS >"$log" 2>&1
    status=$?
    grep -E '^fuzz: elapsed' "$log" | tail -n 1 # the totals: time, executions, corpus
    grep -vE '^fuzz: elapsed' "$log"
    if [ -n "${FUZZLOG:-}" ]; then
      mkdir -p "$FUZZLOG"
      cp "$log" "$FUZZLOG/$(basename "$pkg").$target.log"
    fi
    [ "$status" -eq 0 ] || failed+=("$pkg $target")
  done
done
echo "fuzz: $count targets, ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "FAIL: $f"; done
[ ${#failed[@]} -eq 0 ]
