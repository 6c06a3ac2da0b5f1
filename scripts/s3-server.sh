#!/usr/bin/env bash
# A real S3-compatible server for the tests: SeaweedFS's `weed server -s3`
# (Apache-2.0; MinIO's server is AGPL and not used), built from its Go
# module at a pinned version on first use and cached, then started in the
# background on loopback with one identity. Prints the URL the tests take
# as TANDEM_TEST_S3_URL: http://KEY:SECRET@127.0.0.1:PORT.
#   scripts/s3-server.sh start   build if needed, start (or reuse), print the URL
#   scripts/s3-server.sh stop
#   scripts/s3-server.sh path    build if needed, print the binary's path (scripts/kube-walk.sh)
#   scripts/s3-server.sh check   start a second server on other ports, check that it
#                                listens on exactly its ports, on 127.0.0.1 only, with
#                                telemetry off, then stop it (CI runs it)
# Every port comes from the environment (SEAWEED_*, not TANDEM_*: tandem
# refuses TANDEM_* names it does not read), so that two servers, or a server
# beside other services, never meet on a port:
#   SEAWEED_S3_PORT (8333), SEAWEED_MASTER_PORT (19333), SEAWEED_VOLUME_PORT
#   (18080), SEAWEED_FILER_PORT (18888), and each one's gRPC port
#   SEAWEED_*_GRPC_PORT (its port + 10000, as SeaweedFS picks);
#   SEAWEED_DIR (/tmp/tandem-s3) holds the data, log, pid and unix sockets.
# Nothing else listens: telemetry (a report to telemetry.seaweedfs.com) is
# off, the Iceberg and Lance catalogs are off, no metrics or debug port, and
# every listener binds 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."

WEED_MODULE=github.com/seaweedfs/seaweedfs
WEED_VERSION=v0.0.0-20261109003541-7506e5f91cd6 # SeaweedFS 4.53
GO=${GO:-go}
CACHE=${TANDEM_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-ci}
WEED="$CACHE/weed-$WEED_VERSION"

ports() { # the ports of this server, from the environment
  RUN=${SEAWEED_DIR:-/tmp/tandem-s3}
  PORT=${SEAWEED_S3_PORT:-8333}
  MASTER_PORT=${SEAWEED_MASTER_PORT:-19333}
  VOLUME_PORT=${SEAWEED_VOLUME_PORT:-18080}
  FILER_PORT=${SEAWEED_FILER_PORT:-18888}
  S3_GRPC_PORT=${SEAWEED_S3_GRPC_PORT:-$((PORT + 10000))}
  MASTER_GRPC_PORT=${SEAWEED_MASTER_GRPC_PORT:-$((MASTER_PORT + 10000))}
  VOLUME_GRPC_PORT=${SEAWEED_VOLUME_GRPC_PORT:-$((VOLUME_PORT + 10000))}
  FILER_GRPC_PORT=${SEAWEED_FILER_GRPC_PORT:-$((FILER_PORT + 10000))}
  URL="http://$KEY:$SECRET@127.0.0.1:$PORT"
}
KEY=test-access-key # the keys the tests sign with (tests/openapi_validate_test.go TestMain)
SECRET=test-secret-key
ports

answers() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/" ; }

build() {
  [ -x "$WEED" ] && return
  echo "s3: building SeaweedFS $WEED_VERSION (once; cached in $CACHE)" >&2
  mkdir -p "$CACHE"
  # go install refuses the module (its go.mod has a replace directive): build it as the main module.
  local dir
  dir=$(GOFLAGS=-mod=mod "$GO" mod download -json "$WEED_MODULE@$WEED_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  (cd "$dir" && CGO_ENABLED=0 "$GO" build -trimpath -o "$WEED.tmp" ./weed)
  mv "$WEED.tmp" "$WEED"
}

start() {
  if answers; then echo "$URL"; return; fi
  build
  rm -rf "$RUN" && mkdir -p "$RUN/data"
  cat > "$RUN/s3.json" <<JSON
{"identities":[{"name":"tandem","credentials":[{"accessKey":"$KEY","secretKey":"$SECRET"}],
  "actions":["Admin","Read","List","Tagging","Write"]}]}
JSON
  nohup "$WEED" server -dir="$RUN/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.port="$MASTER_PORT" -master.port.grpc="$MASTER_GRPC_PORT" -master.telemetry=false \
    -volume.port="$VOLUME_PORT" -volume.port.grpc="$VOLUME_GRPC_PORT" -volume.max=100 -master.volumeSizeLimitMB=64 \
    -filer.port="$FILER_PORT" -filer.port.grpc="$FILER_GRPC_PORT" -filer.localSocket="$RUN/filer.sock" \
    -s3 -s3.port="$PORT" -s3.port.grpc="$S3_GRPC_PORT" -s3.port.iceberg=0 -s3.port.lance=0 \
    -s3.localSocket="$RUN/s3.sock" -s3.config="$RUN/s3.json" > "$RUN/weed.log" 2>&1 &
  echo $! > "$RUN/pid"
  disown # a stop is ours to report, not the shell's
  for _ in $(seq 1 120); do
    answers && { echo "$URL"; return; }
    sleep 0.5
  done
  echo "s3: SeaweedFS did not answer on :$PORT; its log:" >&2
  tail -30 "$RUN/weed.log" >&2
  exit 1
}

stop() {
  [ -f "$RUN/pid" ] || return 0
  local pid
  pid=$(cat "$RUN/pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$RUN/pid"
  # SeaweedFS names its local gRPC sockets itself, in /tmp, by port.
  rm -f "/tmp/seaweedfs-master-grpc-$MASTER_GRPC_PORT.sock" "/tmp/seaweedfs-volume-grpc-$VOLUME_GRPC_PORT.sock" \
    "/tmp/seaweedfs-filer-grpc-$FILER_GRPC_PORT.sock" "/tmp/seaweedfs-s3-grpc-$S3_GRPC_PORT.sock"
}

# check starts a server of its own on ports no default uses, and fails
# unless the process listens on exactly the ports given, all on 127.0.0.1,
# and runs with telemetry off.
check() {
  export SEAWEED_DIR=/tmp/tandem-s3-check-$$ SEAWEED_S3_PORT=28433 SEAWEED_MASTER_PORT=29433 \
    SEAWEED_VOLUME_PORT=28180 SEAWEED_FILER_PORT=28988 SEAWEED_S3_GRPC_PORT=29533 \
    SEAWEED_MASTER_GRPC_PORT=29633 SEAWEED_VOLUME_GRPC_PORT=29733 SEAWEED_FILER_GRPC_PORT=29833
  ports
  trap 'stop; rm -rf "$RUN"' EXIT
  start >/dev/null
  local pid want got
  pid=$(cat "$RUN/pid")
  want=$(printf '127.0.0.1:%s\n' "$PORT" "$MASTER_PORT" "$VOLUME_PORT" "$FILER_PORT" \
    "$S3_GRPC_PORT" "$MASTER_GRPC_PORT" "$VOLUME_GRPC_PORT" "$FILER_GRPC_PORT" | sort)
  # The filer and the S3 gateway start after the master: wait for every port.
  for _ in $(seq 1 60); do
    got=$(ss -Htlnp | grep "pid=$pid," | awk '{print $4}' | sort -u)
    [ "$got" = "$want" ] && break
    sleep 0.5
  done
  [ "$got" = "$want" ] || { printf 's3: check: FAIL: listening on\n%s\nwant\n%s\n' "$got" "$want" >&2; exit 1; }
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- '-master.telemetry=false' || { echo "s3: check: FAIL: telemetry on" >&2; exit 1; }
  grep -qi 'telemetry.seaweedfs.com' "$RUN/weed.log" && { echo "s3: check: FAIL: the log names the telemetry server" >&2; exit 1; }
  echo "s3: check: ok: $(echo "$got" | wc -l) listeners, each from the environment, all on 127.0.0.1; telemetry off"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  path) build && echo "$WEED" ;;
  check) check ;;
  *) echo "usage: $0 start|stop|path|check" >&2; exit 2 ;;
esac
