#!/usr/bin/env bash
# make bench-soak: does one SQLite `tandem serve` hold its throughput as the
# database grows? Prepares a crowd of COUPLES couples (tandem-load prepare
# -spread), serves it, and drives it for DURATION with CONNS clients (the
# load tool's 17-route mix plus the home screen, a sign-in every 50 cycles
# of a client, STREAMS live streams held all along: tandem-load soak). Every
# EVERY it prints req/s, p50 and p99 in all and per route, the server's own
# time per route, its RSS, descriptors and goroutines, the database's and
# the write-ahead log's sizes and the load average; at the end the first
# and last interval side by side. Everything goes to $OUT (soak.txt, the
# server's log, wal.txt: the -wal file's size every 5 s).
#
#   DURATION=30m bash bench/soak.sh
#   TANDEM_BIN=/tmp/tandem-old DURATION=5m OUT=bench/out/soak-old bash bench/soak.sh   # another build
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-30m}
EVERY=${EVERY:-1m}
CONNS=${CONNS:-32}
STREAMS=${STREAMS:-32}
USERS=${USERS:-200}
COUPLES=${COUPLES:-1000}
ADDR=${ADDR:-127.0.0.1:8092}
METRICS_ADDR=${METRICS_ADDR:-127.0.0.1:9467}
BIN=${TANDEM_BIN:-bin/tandem}
OUT=${OUT:-bench/out/soak}
EVENT_DATES=${EVENT_DATES:-spread} # fixed: every created event in the month the mix reads (tandem-load soak -h)

mkdir -p bin
go build -o bin/tandem ./cmd/tandem
go build -o bin/tandem-load ./cmd/tandem-load
rm -rf "$OUT" && mkdir -p "$OUT/blobs"
db=$OUT/bench.db

if curl -s -o /dev/null "http://$ADDR/readyz"; then
  echo "soak: something already serves $ADDR (set ADDR)" >&2
  exit 1
fi
bin/tandem-load prepare -db "sqlite:$db" -couples "$COUPLES" -spread default -out "$OUT/fixture.lua" >"$OUT/prepare.txt"

# No memory limit (as for a plan without one): with a limit, each create
# counts the user's memories in the write's turn, a count the plan's limit
# bounds (100 free, 10,000 premium by default) and that the soak's clients,
# at a memory a second each, would take past any real account's within
# minutes (BENCHMARKS.md, Soak).
env -u TANDEM_BIN TANDEM_DB="sqlite:$db" TANDEM_ADDR="$ADDR" TANDEM_METRICS_ADDR="$METRICS_ADDR" TANDEM_ENV=development \
  TANDEM_BLOBS="file:$OUT/blobs" TANDEM_MAIL=log TANDEM_PUSH=log TANDEM_LOG_LEVEL=warn \
  TANDEM_API_KEYS=load-key TANDEM_RATE_LIMIT_IP=100000000 \
  TANDEM_WRITE_BUDGETS=messages=100000000/100000000,events=100000000/100000000,memories=100000000/100000000,moods=100000000/100000000,idempotency_keys=100000000/100000000 \
  TANDEM_LIMITS_FREE='{"projects":3,"storage":"100GB","imagesPerUpload":4}' \
  "$BIN" serve >"$OUT/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; kill $walpid 2>/dev/null || true' EXIT
for _ in $(seq 1 2000); do
  curl -sf -o /dev/null "http://$ADDR/readyz" && break
  sleep 0.01
done

# The write-ahead log's size every 5 s, with the database's.
(while kill -0 $pid 2>/dev/null; do
  echo "$(date +%s) wal_bytes=$(stat -c %s "$db-wal" 2>/dev/null || echo 0) db_bytes=$(stat -c %s "$db") load=$(cut -d' ' -f1 /proc/loadavg)"
  sleep 5
done) >"$OUT/wal.txt" &
walpid=$!

echo "soak: $BIN (worktree at $(git rev-parse --short HEAD)), $COUPLES couples, $CONNS clients, $STREAMS streams, events $EVENT_DATES, $DURATION; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/soak.txt"
bin/tandem-load soak -url "http://$ADDR" -metrics "http://$METRICS_ADDR" -sqlite "$db" -users "$USERS" \
  -c "$CONNS" -streams "$STREAMS" -event-dates "$EVENT_DATES" -d "$DURATION" -every "$EVERY" | tee -a "$OUT/soak.txt"

# The per-interval table for BENCHMARKS.md.
echo
python3 - "$OUT/soak.txt" <<'PY'
import re, sys
print("| min | req/s | p50 ms | p99 ms | server CPU µs/req | RSS MB | FDs | goroutines | DB MB | WAL MB | load |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    if not line.startswith("SOAK "):
        continue
    kv = dict(re.findall(r'(\w+)=(\S+)', line))
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (kv["min"], kv["rps"], kv["p50_ms"], kv["p99_ms"],
          kv.get("server_cpu_us_per_req", "—"), kv["rss_mb"], kv["fds"], kv["goroutines"], kv["db_mb"], kv["wal_mb"], kv["load"]))
PY
