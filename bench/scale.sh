#!/usr/bin/env bash
# make bench-scale (issue 36): how each cost grows with the data. For each
# size (SIZES, couples) and store (STORES: sqlite, mysql) it prepares a data
# set with the crowd's spread (tandem-load prepare -spread), then records:
# the time to prepare it and its size; `tandem migrate` on the up-to-date
# schema; one pass of every background job with its statements
# (tandem-load jobs); `tandem serve`'s cold start to /readyz; wrk -c32 on
# get / list 20 / create; the load tool's 17-route mix against the served
# crowd (tandem-load -url); the server's peak RSS; and on SQLite `tandem
# backup` and `restore`. Every line goes to $OUT/results.txt with the box's
# load average beside it (the box is shared: read the figures with it), and
# a table is printed at the end.
#
#   SIZES="1000 10000 100000" STORES="sqlite mysql" DURATION=10s MIX_DURATION=15s bash bench/scale.sh
#
# MySQL: TANDEM_BENCH_MYSQL_DSN (default root@tcp(127.0.0.1:3306)/tandem_scale);
# the database named there is dropped and created for each size.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 10000 100000"}
STORES=${STORES:-"sqlite mysql"}
DURATION=${DURATION:-10s}
MIX_DURATION=${MIX_DURATION:-15s}
MIX_USERS=${MIX_USERS:-200}
MIX_CONNS=${MIX_CONNS:-8}
CONNS=${CONNS:-32}
SPREAD=${SPREAD:-default}
MYSQL_DSN=${TANDEM_BENCH_MYSQL_DSN:-"root@tcp(127.0.0.1:3306)/tandem_scale"}
ADDR=${ADDR:-127.0.0.1:8091}
METRICS_ADDR=${METRICS_ADDR:-127.0.0.1:9466}
BIN=${TANDEM_BIN:-bin/tandem}
OUT=${OUT:-bench/out/scale}

command -v wrk >/dev/null || { echo "bench: installing wrk"; apt-get install -y -qq wrk >/dev/null; }
mkdir -p "$OUT" bin
go build -o bin/tandem ./cmd/tandem
go build -o bin/tandem-load ./cmd/tandem-load
RESULTS=$OUT/results.txt
: >"$RESULTS"

load() { cut -d' ' -f1 /proc/loadavg; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# timed NAME CMD...: runs CMD and prints NAME_ms (wall), NAME_cpu_ms (user +
# system): on a shared box the wall time holds the run queue's wait.
timed() {
  local name=$1 t
  shift
  t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null; } 2>&1 | tail -1)
  awk -v n="$name" '{printf "%s_ms=%.0f %s_cpu_ms=%.0f", n, $1*1000, n, ($2+$3)*1000}' <<<"$t"
}
cpu_ms() { # pid: user + system CPU so far
  awk -v tck="$(getconf CLK_TCK)" '{printf "%.0f", ($14+$15)*1000/tck}' "/proc/$1/stat"
}
record() { # store size key=value...
  echo "$* load=$(load)" | tee -a "$RESULTS"
}

serve_env() { # db dir
  echo TANDEM_DB="$1" TANDEM_ADDR=$ADDR TANDEM_METRICS_ADDR=$METRICS_ADDR TANDEM_ENV=development \
    TANDEM_BLOBS="file:$2/blobs" TANDEM_MAIL=log TANDEM_PUSH=log TANDEM_LOG_LEVEL=error \
    TANDEM_API_KEYS=load-key TANDEM_RATE_LIMIT_IP=100000000 \
    TANDEM_WRITE_BUDGETS=messages=100000000/100000000,events=100000000/100000000,memories=100000000/100000000,moods=100000000/100000000,idempotency_keys=100000000/100000000 \
    TANDEM_LIMITS_FREE='{"projects":3,"storage":"100GB","imagesPerUpload":4,"memories":100000000}'
}

wait_ready() { # start-ns
  for _ in $(seq 1 4000); do
    if curl -sf -o /dev/null "http://$ADDR/readyz"; then
      ms_since "$1"
      return 0
    fi
    sleep 0.005
  done
  echo "bench: the server never became ready" >&2
  return 1
}

db_size_mb() { # store db dir
  if [ "$1" = sqlite ]; then
    du -cm "$3"/bench.db* | awk 'END {print $1}'
  else
    mysql --protocol=tcp -h 127.0.0.1 -uroot -N -e "SELECT ROUND(SUM(FILE_SIZE)/1048576) FROM information_schema.INNODB_SYS_TABLESPACES WHERE NAME LIKE '${MYSQL_DSN##*/}/%'"
  fi
}

# settle_mysql: a prepare leaves MariaDB's buffer pool full of dirty pages,
# which it writes out only when its redo log fills: under the next writes.
# Measured without this, the 100,000-couple create ran at 75 req/s (p50 395
# ms) and at 835 req/s a few minutes later. The data set is flushed first
# (the dirty-page ceiling lowered to 0 and put back), so each size is read
# in the same steady state; prints the seconds it took.
settle_mysql() {
  local q="mysql --protocol=tcp -h 127.0.0.1 -uroot -N -e" pct t
  pct=$($q "SELECT @@innodb_max_dirty_pages_pct")
  t=$(date +%s%N)
  $q "SET GLOBAL innodb_max_dirty_pages_pct=0"
  for _ in $(seq 1 600); do
    [ "$($q "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'" | cut -f2)" -lt 50 ] && break
    sleep 0.5
  done
  $q "SET GLOBAL innodb_max_dirty_pages_pct=$pct"
  echo $(( $(ms_since "$t") / 1000 ))
}

# innodb_waits prints MariaDB's wait counters; waits_since BEFORE their
# growth since: twice the MySQL create ran at a tenth of its usual rate
# (73-75 req/s, p50 ~400 ms) and re-runs did not reproduce it; these say
# which wait it was the next time (row locks, the redo log, free pages).
innodb_waits() {
  mysql --protocol=tcp -h 127.0.0.1 -uroot -N -e "SHOW GLOBAL STATUS WHERE Variable_name IN
    ('Innodb_row_lock_waits','Innodb_row_lock_time','Innodb_log_waits','Innodb_buffer_pool_wait_free',
     'Innodb_data_fsyncs','Innodb_deadlocks')" | awk '{printf "%s=%s ", tolower($1), $2}'
}
waits_since() {
  paste -d' ' <(tr ' ' '\n' <<<"$1" | grep =) <(innodb_waits | tr ' ' '\n' | grep =) |
    awk -F'[= ]' '{printf "%s=%d ", substr($1, 8), $4 - $2}'
}

for store in $STORES; do
  for size in $SIZES; do
    dir=$OUT/$store-$size
    rm -rf "$dir" && mkdir -p "$dir/blobs"
    db="sqlite:$dir/bench.db"
    if [ "$store" = mysql ]; then
      name=${MYSQL_DSN##*/}
      mysql --protocol=tcp -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS \`$name\`; CREATE DATABASE \`$name\` CHARACTER SET utf8mb4"
      db="mysql:$MYSQL_DSN"
    fi
    env=$(serve_env "$db" "$dir")

    t=$(date +%s%N)
    bin/tandem-load prepare -db "$db" -couples "$size" -spread "$SPREAD" -out "$dir/fixture.lua" | tee "$dir/prepare.txt"
    record "$store $size prepare_s=$(( $(ms_since "$t") / 1000 )) db_mb=$(db_size_mb $store "$db" "$dir")"
    [ "$store" = mysql ] && record "$store $size settle_s=$(settle_mysql)"

    record "$store $size $(timed migrate env $env "$BIN" migrate)"

    bin/tandem-load jobs -db "$db" | tee "$dir/jobs.txt"
    while read -r line; do record "$store $size $line"; done <"$dir/jobs.txt"

    t=$(date +%s%N)
    if curl -s -o /dev/null "http://$ADDR/readyz"; then
      echo "bench: something already serves $ADDR (set ADDR)" >&2
      exit 1
    fi
    env $env "$BIN" serve >"$dir/serve.log" 2>&1 &
    pid=$!
    ready=$(wait_ready "$t")
    record "$store $size cold_start_ms=$ready cold_start_cpu_ms=$(cpu_ms $pid)"
    FIXTURE=$dir/fixture.lua wrk -t1 -c"$CONNS" -d2s -s bench/wrk/get.lua "http://$ADDR" >/dev/null # warm-up
    for op in get list create; do
      [ "$store" = mysql ] && before=$(innodb_waits)
      line=$(FIXTURE=$dir/fixture.lua wrk -t1 -c"$CONNS" -d"$DURATION" -s "bench/wrk/$op.lua" "http://$ADDR" | grep '^RESULT')
      record "$store $size wrk_$op ${line#RESULT }"
      [ "$store" = mysql ] && record "$store $size innodb_$op $(waits_since "$before")"
    done
    # Before the mix: its sign-ins hash passwords (argon2id, 64 MiB each).
    record "$store $size rss_before_mix_mb=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status")"
    bin/tandem-load -url "http://$ADDR" -users "$MIX_USERS" -c "$MIX_CONNS" -d "$MIX_DURATION" | tee "$dir/mix.txt" || true
    record "$store $size $(grep '^MIX' "$dir/mix.txt")"
    record "$store $size peak_rss_mb=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$pid/status")"
    kill "$pid"
    wait "$pid" 2>/dev/null || true

    if [ "$store" = sqlite ]; then
      rm -rf "$dir/backup" "$dir/restored" && mkdir -p "$dir/restored/blobs"
      record "$store $size $(timed backup env $env "$BIN" backup "$dir/backup")"
      record "$store $size $(timed restore env $(serve_env "sqlite:$dir/restored/bench.db" "$dir/restored") "$BIN" restore "$dir/backup")"
      rm -rf "$dir/backup" "$dir/restored"
    fi
  done
done

echo
echo "results: $RESULTS"
python3 - "$RESULTS" <<'EOF'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) < 3:
        continue
    key = (p[0], int(p[1]))
    d = rows.setdefault(key, {})
    kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
    if p[2].startswith("wrk_"):
        d[p[2]] = "%s / %s / %s" % (kv.get("rps"), kv.get("p50_ms"), kv.get("p99_ms"))
    elif p[2] == "MIX":
        d["mix"] = "%s / %s / %s (%s err)" % (kv.get("rps"), kv.get("p50_ms"), kv.get("p99_ms"), kv.get("errors"))
    elif p[2] == "JOB":
        d.setdefault("jobs", []).append("%s: %s items, %s stmts, %s ms" % (kv["name"].strip('"'), kv["items"], kv["statements"], kv["ms"]))
    else:
        for k, v in kv.items():
            if k != "load":
                d[k] = v
    d.setdefault("loads", []).append(kv.get("load", "?"))
cols = ["prepare_s", "db_mb", "migrate_ms", "migrate_cpu_ms", "cold_start_ms", "cold_start_cpu_ms", "mix", "wrk_get", "wrk_list", "wrk_create", "rss_before_mix_mb", "peak_rss_mb", "backup_ms", "backup_cpu_ms", "restore_ms", "restore_cpu_ms"]
print("| store | couples | " + " | ".join(cols) + " | load (min-max) |")
print("|" + "---|" * (len(cols) + 3))
for (store, size), d in sorted(rows.items()):
    loads = [float(x) for x in d["loads"] if x != "?"]
    print("| %s | %d | " % (store, size) + " | ".join(d.get(c, "—") for c in cols) + " | %.1f-%.1f |" % (min(loads), max(loads)))
for (store, size), d in sorted(rows.items()):
    print("\n%s %d jobs: " % (store, size) + "; ".join(d.get("jobs", [])))
EOF
