#!/usr/bin/env bash
# make bench-http: the calendar's three hot operations (get one event, list
# 20, create) under wrk -t1 -c32 against a real `tandem serve`, on SQLite,
# memory and MySQL, each with 10,000 couples and 20 users sharing 10,000
# events (tandem-load prepare|serve). Prints one table; BENCHMARKS.md keeps
# the figures. PROFILES, DURATION, CONNS and TANDEM_BENCH_MYSQL_DSN adjust;
# TANDEM_BIN serves the SQL profiles with another build (a before/after).
set -euo pipefail
cd "$(dirname "$0")/.."

PROFILES=${PROFILES:-"sqlite memory mysql"}
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
MYSQL_DSN=${TANDEM_BENCH_MYSQL_DSN:-"root@tcp(127.0.0.1:3306)/tandem_bench"}
ADDR=127.0.0.1:8089
BIN=${TANDEM_BIN:-bin/tandem}
OUT=bench/out
OPS="get list create"

command -v wrk >/dev/null || { echo "bench: installing wrk"; apt-get install -y -qq wrk >/dev/null; }
mkdir -p "$OUT" bin
go build -o bin/tandem ./cmd/tandem
go build -o bin/tandem-load ./cmd/tandem-load

serve_env() {
  echo TANDEM_DB="$1" TANDEM_ADDR=$ADDR TANDEM_METRICS_ADDR=127.0.0.1:9464 TANDEM_ENV=development \
    TANDEM_BLOBS=memory TANDEM_MAIL=log TANDEM_PUSH=log TANDEM_LOG_LEVEL=error \
    TANDEM_WRITE_BUDGETS=messages=100000000/100000000,events=100000000/100000000,memories=100000000/100000000,moods=100000000/100000000,idempotency_keys=100000000/100000000
}

# wait_ready polls /readyz every 5 ms; prints the milliseconds since $1 (ns).
wait_ready() {
  for _ in $(seq 1 4000); do
    if curl -sf -o /dev/null "http://$ADDR/readyz"; then
      echo $(( ($(date +%s%N) - $1) / 1000000 ))
      return 0
    fi
    sleep 0.005
  done
  echo "bench: the server never became ready" >&2
  return 1
}

rows=()
measure() { # profile pid fixture cold-start-ms
  local profile=$1 pid=$2 fixture=$3 cold=$4
  FIXTURE=$fixture wrk -t1 -c"$CONNS" -d2s -s bench/wrk/get.lua "http://$ADDR" >/dev/null # warm-up
  for op in $OPS; do
    local line
    line=$(FIXTURE=$fixture wrk -t1 -c"$CONNS" -d"$DURATION" -s "bench/wrk/$op.lua" "http://$ADDR" | grep '^RESULT')
    # The peak resident size so far: the creates add the events they make.
    line="$line peak_mb=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status")"
    echo "$profile $op: $line"
    rows+=("$profile $op $line")
  done
  rows+=("$profile start cold_start_ms=$cold")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

for profile in $PROFILES; do
  dir=$OUT/$profile
  rm -rf "$dir" && mkdir -p "$dir"
  case $profile in
    sqlite | mysql)
      db="sqlite:$dir/bench.db"
      if [ "$profile" = mysql ]; then
        name=${MYSQL_DSN##*/}
        mysql --protocol=tcp -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS \`$name\`; CREATE DATABASE \`$name\` CHARACTER SET utf8mb4"
        db="mysql:$MYSQL_DSN"
      fi
      bin/tandem-load prepare -db "$db" -out "$dir/fixture.lua"
      start=$(date +%s%N)
      env $(serve_env "$db") "$BIN" serve &
      pid=$!
      cold=$(wait_ready "$start")
      measure "$profile" "$pid" "$dir/fixture.lua" "$cold"
      ;;
    memory)
      start=$(date +%s%N)
      bin/tandem-load serve -db memory -addr $ADDR -out "$dir/fixture.lua" &
      pid=$!
      cold=$(wait_ready "$start") # includes writing the fixture
      measure memory "$pid" "$dir/fixture.lua" "$cold"
      ;;
  esac
done

echo
echo "| profile | operation | req/s | p50 ms | p99 ms | unexpected | peak RSS MB |"
echo "|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  set -- $r
  if [ "$2" = start ]; then
    echo "| $1 | ready after start: ${3#cold_start_ms=} ms | | | | | |"
    continue
  fi
  rps=${4#rps=} p50=${5#p50_ms=} p99=${6#p99_ms=} bad=${8#unexpected=} rss=${10#peak_mb=}
  echo "| $1 | $2 | $rps | $p50 | $p99 | $bad | $rss |"
done
