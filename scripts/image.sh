#!/usr/bin/env bash
# Builds the Tandem image (Containerfile) as IMAGE with podman, or docker
# when a Docker engine answers. The context is made here, in bin/image: the
# static binary, the host's CA bundle, a passwd naming the unprivileged
# user, and the empty /data (the volume) and /tmp the user owns. Nothing is
# pulled.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-tandem:dev}
GO=${GO:-go}

engine=""
if command -v podman >/dev/null; then
  engine=podman
elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=docker
else
  echo "image: neither podman nor a Docker engine is available (Debian: apt-get install podman runc)" >&2
  exit 1
fi
if [ "$engine" = podman ] && [ -z "${CONTAINERS_CONF:-}" ] && [ ! -e /etc/containers/containers.conf ] && [ ! -e "$HOME/.config/containers/containers.conf" ]; then
  export CONTAINERS_CONF="$PWD/deploy/containers.conf"
fi

# The same stamps as make build (make image passes them): `tandem version`
# in the image names the release and the commit, "+dirty" when built from
# changed files.
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
revision=${COMMIT:-$(c=$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null && echo "$c" || echo "$c+dirty"; } || echo unknown)}
ctx=bin/image
rm -rf "$ctx" && mkdir -p "$ctx/dirs/data" "$ctx/dirs/tmp"
CGO_ENABLED=0 "$GO" build -trimpath -ldflags "-s -w -X tandem/bootstrap.Version=$version -X tandem/bootstrap.Commit=$revision" -o "$ctx/tandem" ./cmd/tandem
ca=""
for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
  [ -r "$f" ] && ca=$f && break
done
[ -n "$ca" ] || { echo "image: no CA bundle found on this machine (Debian: apt-get install ca-certificates)" >&2; exit 1; }
cp "$ca" "$ctx/ca-certificates.crt"
echo "tandem:x:65532:65532:tandem:/data:/sbin/nologin" > "$ctx/passwd"
echo "tandem:x:65532:" > "$ctx/group"

args=(build --build-arg "VERSION=$version" --build-arg "REVISION=$revision" -t "$IMAGE" -f Containerfile)
[ "$engine" = podman ] && args+=(--format docker) # docker format keeps the HEALTHCHECK
"$engine" "${args[@]}" "$ctx"
echo "image: built $IMAGE ($version, $revision) with $engine"
