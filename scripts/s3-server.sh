#!/usr/bin/env bash
# A real S3-compatible server for the tests: SeaweedFS's `weed server -s3`
# (Apache-2.0; MinIO's server is AGPL and not used), built from its Go
# module at a pinned version on first use and cached, then started in the
# background on loopback with one identity. Prints the URL the tests take
# as TANDEM_TEST_S3_URL: http://KEY:SECRET@127.0.0.1:PORT.
#   scripts/s3-server.sh start   build if needed, start (or reuse), print the URL
#   scripts/s3-server.sh stop
#   scripts/s3-server.sh path    build if needed, print the binary's path (scripts/kube-walk.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

WEED_MODULE=github.com/seaweedfs/seaweedfs
WEED_VERSION=v0.0.0-20261109003541-7506e5f91cd6 # SeaweedFS 4.53
GO=${GO:-go}
CACHE=${TANDEM_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-ci}
WEED="$CACHE/weed-$WEED_VERSION"
RUN=${TANDEM_S3_DIR:-/tmp/tandem-s3}
PORT=${TANDEM_S3_PORT:-8333}
KEY=test-access-key # the keys the tests sign with (tests/openapi_validate_test.go TestMain)
SECRET=test-secret-key
URL="http://$KEY:$SECRET@127.0.0.1:$PORT"

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
    -master.port=19333 -volume.port=18080 -filer.port=18888 -volume.max=100 -master.volumeSizeLimitMB=64 \
    -s3 -s3.port="$PORT" -s3.config="$RUN/s3.json" > "$RUN/weed.log" 2>&1 &
  echo $! > "$RUN/pid"
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
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  path) build && echo "$WEED" ;;
  *) echo "usage: $0 start|stop|path" >&2; exit 2 ;;
esac
