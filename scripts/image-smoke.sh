#!/usr/bin/env bash
# Builds the image (make image) and walks it as an app would, in a
# container of its own on this machine: sign-up, verification with the code
# from the log, a profile time zone (the image has no zoneinfo: this proves
# the binary's embedded tzdata), a photo upload and its download, the
# health check, the version, the labels. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-tandem:smoke}
PORT=${SMOKE_PORT:-18099}
NAME=tandem-smoke-$$
BASE="http://127.0.0.1:$PORT"

IMAGE="$IMAGE" bash scripts/image.sh
engine=podman
command -v podman >/dev/null || engine=docker
if [ "$engine" = podman ] && [ -z "${CONTAINERS_CONF:-}" ] && [ ! -e /etc/containers/containers.conf ]; then
  export CONTAINERS_CONF="$PWD/deploy/containers.conf"
fi
run_flags=(--network host)
[ "$engine" = podman ] && run_flags+=(--runtime runc)

cleanup() { "$engine" rm -f "$NAME" >/dev/null 2>&1 || true; "$engine" volume rm -f "$NAME" >/dev/null 2>&1 || true; }
trap cleanup EXIT
fail() { echo "image-smoke: FAIL: $*" >&2; "$engine" logs "$NAME" 2>&1 | tail -20 >&2 || true; exit 1; }

"$engine" volume create "$NAME" >/dev/null
"$engine" run -d --name "$NAME" "${run_flags[@]}" -v "$NAME:/data" \
  -e TANDEM_ENV=development -e TANDEM_MAIL=log -e TANDEM_ADDR="127.0.0.1:$PORT" -e TANDEM_METRICS_ADDR= \
  -e TANDEM_PUBLIC_URL="$BASE" -e TANDEM_LOG_LEVEL=info "$IMAGE" >/dev/null

for _ in $(seq 1 60); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fs "$BASE/readyz" >/dev/null || fail "not ready on $BASE"
"$engine" exec "$NAME" /tandem healthcheck | grep -qx ready || fail "tandem healthcheck inside the container"

version=$("$engine" exec "$NAME" /tandem version | head -1)
label=$("$engine" image inspect "$IMAGE" --format '{{ index .Labels "org.opencontainers.image.version" }}')
[ "$version" = "tandem $label" ] || fail "version '$version' does not match the label '$label'"
commit=$("$engine" exec "$NAME" /tandem version | sed -n 2p)
revision=$("$engine" image inspect "$IMAGE" --format '{{ index .Labels "org.opencontainers.image.revision" }}')
[ "$commit" = "commit $revision" ] && [ "$revision" != unknown ] || fail "'$commit' does not name the commit of the label '$revision'"
user=$("$engine" image inspect "$IMAGE" --format '{{ .Config.User }}')
[ "$user" = "65532:65532" ] || fail "runs as '$user'"

email="smoke-$$@example.com"
post() {
  local auth=()
  [ -n "$3" ] && auth=(-H "Authorization: Bearer $3")
  curl -fsS -X "$1" "$BASE$2" -H 'Content-Type: application/json' "${auth[@]}" -d "$4"
}
id=$(post POST /api/auth/signup/email "" "{\"email\":\"$email\",\"password\":\"a smoke test password\"}" | jq -r .userId)
[ -n "$id" ] && [ "$id" != null ] || fail "sign-up"
code=""
for _ in $(seq 1 40); do
  code=$("$engine" logs "$NAME" 2>&1 | jq -rR --arg to "$email" 'fromjson? | select(.msg == "mail" and .to == $to) | .code // empty' | tail -1)
  [ -n "$code" ] && break
  sleep 0.25
done
[ -n "$code" ] || fail "no verification mail in the log"
token=$(post POST /api/auth/signup/email "" "{\"userId\":\"$id\",\"verificationCode\":\"$code\"}" | jq -r .token)
[ -n "$token" ] && [ "$token" != null ] || fail "verification"

tz=$(post PATCH "/api/users/user/$id" "$token" '{"timezone":"Asia/Kathmandu"}' | jq -r .timezone)
[ "$tz" = Asia/Kathmandu ] || fail "time zone: '$tz' (no tzdata in the binary?)"

# A 1x1 PNG, uploaded and read back; then a photo over 256 KiB, which the
# server spools to /tmp while reading it.
png=$(mktemp --suffix=.png)
base64 -d > "$png" <<< 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
url=$(curl -fsS -X POST "$BASE/api/users/user/$id/images" -H "Authorization: Bearer $token" \
  -F "file=@$png;type=image/png" | jq -r '.files[0].data.url')
rm -f "$png"
[ -n "$url" ] && [ "$url" != null ] || fail "upload"
status=$(curl -s -o /dev/null -w '%{http_code}' "$url")
[ "$status" = 200 ] || fail "download of $url: $status"
big=$(mktemp --suffix=.png)
python3 - "$big" <<'PY'
import struct, sys, zlib, os
w, h = 512, 512
raw = b"".join(b"\x00" + os.urandom(w * 3) for _ in range(h))  # noise: does not compress
chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
[ "$(stat -c %s "$big")" -gt 262144 ] || fail "the big photo is not over 256 KiB"
big_url=$(curl -fsS -X POST "$BASE/api/users/user/$id/images" -H "Authorization: Bearer $token" \
  -F "file=@$big;type=image/png" | jq -r '.files[0].data.url') || fail "upload of a photo over 256 KiB (no /tmp?)"
rm -f "$big"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$big_url")" = 200 ] || fail "download of the big photo"

"$engine" exec "$NAME" /tandem version >/dev/null
echo "image-smoke: ok ($IMAGE, $version): ready, healthcheck, sign-up, verification, time zone, uploads (small and spooled), downloads"
