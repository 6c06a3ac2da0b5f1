#!/usr/bin/env bash
# The three-machine deployment of docs/deploy.md, on one machine: three
# `tandem serve` processes started at the same instant on an empty MySQL
# database, sharing NATS (signed with TANDEM_BUS_SECRET) and an
# S3-compatible bucket (SeaweedFS), each request sent to another process as
# a load balancer would. A couple walks through: sign-up and verification,
# pairing by codes, a photo, a calendar event, a logout everywhere; then a
# rolling stop (SIGTERM: drain, exit 0).
# Needs: MariaDB/MySQL on 127.0.0.1:3306 (root, no password), NATS on
# 127.0.0.1:4222, curl and jq; starts the S3 server itself.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
WORK=$(mktemp -d)
DB=tandem_walk_$$
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  mysql --protocol=tcp -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $DB" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "walkthrough: FAIL: $*" >&2; mkdir -p /tmp/walk-logs && cp "$WORK"/p*.log /tmp/walk-logs/; for i in 1 2 3; do echo "--- process $i:" >&2; tail -5 "$WORK/p$i.log" >&2; done; exit 1; }
step() { echo "walkthrough: $*"; }

S3_URL=$(bash scripts/s3-server.sh start)
S3_HOST=${S3_URL##*@}
S3_USERINFO=${S3_URL#http://}; S3_USERINFO=${S3_USERINFO%@*}
export AWS_ACCESS_KEY_ID=${S3_USERINFO%%:*} AWS_SECRET_ACCESS_KEY=${S3_USERINFO#*:}
mysql --protocol=tcp -h 127.0.0.1 -uroot -e "CREATE DATABASE $DB CHARACTER SET utf8mb4"
CGO_ENABLED=0 "$GO" build -o "$WORK/tandem" ./cmd/tandem

export TANDEM_ENV=development TANDEM_MAIL=log TANDEM_PUSH=log TANDEM_METRICS_ADDR= TANDEM_LOG_LEVEL=${TANDEM_LOG_LEVEL:-info}
export TANDEM_DB="mysql:root@tcp(127.0.0.1:3306)/$DB"
export TANDEM_BUS="nats://127.0.0.1:4222" TANDEM_BUS_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export TANDEM_BLOBS="s3://walk-$$?endpoint=$S3_HOST&region=us-east-1&secure=false"
PORTS=(18101 18102 18103)
for i in 0 1 2; do
  TANDEM_ADDR=127.0.0.1:${PORTS[$i]} TANDEM_PUBLIC_URL=http://127.0.0.1:${PORTS[$i]} \
    "$WORK/tandem" serve > "$WORK/p$((i + 1)).log" 2>&1 &
  PIDS+=($!)
done
for i in 0 1 2; do
  for _ in $(seq 1 480); do curl -fs "http://127.0.0.1:${PORTS[$i]}/readyz" >/dev/null 2>&1 && break; sleep 0.25; done
  curl -fs "http://127.0.0.1:${PORTS[$i]}/readyz" >/dev/null || fail "process $((i + 1)) is not ready"
done
step "three processes ready on one new MySQL database ($(grep -l 'waiting for its migrations' "$WORK"/p*.log | wc -l) waited for another's migrations)"

url_of() { echo "http://127.0.0.1:${PORTS[$(($1 - 1))]}"; } # process 1-3
server_logs() { cat "$WORK"/p*.log; }
# shellcheck source=scripts/walk-lib.sh
. scripts/walk-lib.sh
read -r ANN ANN_T <<< "$(member ann-$$@example.com 1 2)"
read -r BOB BOB_T <<< "$(member bob-$$@example.com 2 3)"
step "Ann and Bob signed up on one process and verified on another"

pair_by_codes 1 3 2 3 1
step "paired by codes across three processes"

url=$(upload_photo 3 "$WORK/p.png")
path=${url#http://127.0.0.1:${PORTS[2]}}
location=$(curl -fsS -o /dev/null -w '%{redirect_url}' "$(url_of 1)$path")
case "$location" in "http://$S3_HOST/walk-$$/"*) ;; *) fail "the photo is not served from the bucket: '$location'" ;; esac
is_png "$WORK/back.png" "$(curl -fsS -o "$WORK/back.png" -w '%{content_type}' "$location")"
step "a photo uploaded through one process is read from the bucket through another"

event=$(call 2 POST "/api/users/user/$BOB/events" "$BOB_T" '{"action":"create","title":"Anniversary dinner","startDate":"2026-12-24"}' | jq -r '.data.id // .id')
call 3 GET "/api/users/user/$ANN/events?action=list" "$ANN_T" >/dev/null || true
call 1 GET "/api/users/user/$BOB/events/$event" "$BOB_T" | jq -e '.. | .title? // empty | select(. == "Anniversary dinner")' >/dev/null || fail "the event"
step "a calendar event written through one process is read through another"

call 1 POST /api/auth/logout "$ANN_T" '{"all":true}' >/dev/null
for _ in $(seq 1 20); do
  status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ANN_T" "http://127.0.0.1:${PORTS[1]}/api/users/user/$ANN")
  [ "$status" = 401 ] && break
  sleep 0.05
done
[ "$status" = 401 ] || fail "Ann's token still works on process 2 after her logout on process 1"
step "a logout on one process is a 401 on the others at once"

for i in 0 1 2; do
  kill -TERM "${PIDS[$i]}"
  wait "${PIDS[$i]}" || fail "process $((i + 1)) did not stop cleanly"
done
PIDS=()
step "ok: a rolling stop, each process drained and exited 0"
