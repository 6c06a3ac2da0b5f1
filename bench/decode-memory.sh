#!/usr/bin/env bash
# The decode-memory burst of the security issue: a real `tandem serve`
# (SQLite, file blobs, log mail), one verified user, and ROUNDS rounds of
# CONC uploads at once of one 7000×7000 PNG (49 megapixels, about 8.8 MB,
# made by bench/bigpng). It samples the server's VmRSS every 0.2 s during
# the burst and reads it again AFTER seconds after the last answer, with the
# Go heap's figures from /metrics (in use, idle, given back). Prints one
# line; BENCHMARKS.md keeps the figures.
#
#   bash bench/decode-memory.sh                       # builds bin/tandem
#   TANDEM_BIN=/tmp/tandem-before bash bench/decode-memory.sh
#   GOMEMLIMIT=900MiB bash bench/decode-memory.sh     # any variable passes to the server
#
# ROUNDS (3), CONC (4), AFTER ("10 30 60"), PORT (8091) adjust.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
CONC=${CONC:-4}
AFTER=${AFTER:-"10 30 60"}
PORT=${PORT:-8091}
METRICS=127.0.0.1:$((PORT + 1))
BASE=http://127.0.0.1:$PORT
OUT=bench/out/decode-memory
BIN=${TANDEM_BIN:-bin/tandem}
mkdir -p "$OUT" bin
if [ -z "${TANDEM_BIN:-}" ]; then
  go build -o bin/tandem ./cmd/tandem
fi
[ -s "$OUT/big.png" ] || go run ./bench/bigpng -w 7000 -h 7000 -o "$OUT/big.png"

work=$(mktemp -d)
pid=""
sampler=""
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null || true
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

TANDEM_ENV=development TANDEM_DB="sqlite:$work/tandem.db" TANDEM_BLOBS="file:$work/blobs" \
  TANDEM_MAIL=log TANDEM_PUSH=log TANDEM_ADDR="127.0.0.1:$PORT" TANDEM_METRICS_ADDR="$METRICS" \
  TANDEM_PUBLIC_URL="$BASE" TANDEM_IMAGES_RATE_LIMIT=1000 TANDEM_LOG_LEVEL=info \
  "$BIN" serve >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do curl -fs -o /dev/null "$BASE/readyz" && break; sleep 0.05; done
curl -fs -o /dev/null "$BASE/readyz" || { tail -20 "$work/log" >&2; exit 1; }

rss() { awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$pid/status"; }
# heap: the Go heap's MB in use, idle (kept, not in use) and released (given back).
heap() {
  curl -fs "http://$METRICS/metrics" | awk '
    /^go_memstats_heap_inuse_bytes / {u=$2} /^go_memstats_heap_idle_bytes / {i=$2}
    /^go_memstats_heap_released_bytes / {r=$2}
    END {printf "inuse=%.0f idle=%.0f released=%.0f", u/1048576, i/1048576, r/1048576}'
}

post() { curl -fsS -X POST "$BASE$1" -H 'Content-Type: application/json' -d "$2"; }
email="burst-$$@example.com"
id=$(post /api/auth/signup/email "{\"email\":\"$email\",\"password\":\"a burst test password\"}" | jq -r .userId)
code=""
for _ in $(seq 1 40); do
  code=$(jq -rR --arg to "$email" 'fromjson? | select(.msg == "mail" and .to == $to) | .code // empty' "$work/log" | tail -1)
  [ -n "$code" ] && break
  sleep 0.25
done
[ -n "$code" ] || { echo "decode-memory: no verification code in the log" >&2; exit 1; }
token=$(post /api/auth/signup/email "{\"userId\":\"$id\",\"verificationCode\":\"$code\"}" | jq -r .token)

idle_mb=$(rss)
( while kill -0 "$pid" 2>/dev/null; do rss; echo; sleep 0.2; done ) >"$work/rss" &
sampler=$!

start=$(date +%s%N)
for _ in $(seq 1 "$ROUNDS"); do
  uploads=()
  for _ in $(seq 1 "$CONC"); do
    curl -s -o /dev/null -w '%{http_code}\n' -X POST "$BASE/api/users/user/$id/images" \
      -H "Authorization: Bearer $token" -F "file=@$OUT/big.png;type=image/png" >>"$work/codes" &
    uploads+=($!)
  done
  wait "${uploads[@]}"
done
burst_s=$(( ($(date +%s%N) - start) / 1000000000 ))
peak_mb=$(sort -n "$work/rss" | tail -1)
codes=$(sort "$work/codes" | uniq -c | awk '{printf "%s%s×%s", sep, $2, $1; sep=","}')

line="rounds=$ROUNDS conc=$CONC codes=$codes burst_s=$burst_s idle_mb=$idle_mb peak_mb=$peak_mb"
line="$line end_mb=$(rss) end_heap=[$(heap)]"
waited=0
for s in $AFTER; do
  sleep $((s - waited))
  waited=$s
  line="$line after${s}s_mb=$(rss)"
done
line="$line last_heap=[$(heap)]"
limit=$(grep -o '"msg":"memory limit[^}]*' "$work/log" | head -1 || true)
echo "$line${limit:+ log=[$limit]}"
echo "$(date -u +%FT%TZ) bin=$BIN ${GOMEMLIMIT:+GOMEMLIMIT=$GOMEMLIMIT }load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /) $line" >>"$OUT/results.txt"
