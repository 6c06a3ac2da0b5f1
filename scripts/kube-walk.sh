#!/usr/bin/env bash
# The Kubernetes manifests (deploy/kubernetes) run with `podman kube play` on
# this machine and walked by a couple, as scripts/walkthrough.sh walks three
# processes: the images built here FROM scratch (Tandem's by scripts/image.sh;
# MariaDB's, NATS's and SeaweedFS's from this machine's binaries: no registry
# is reachable), the data stores played and waited for, the bucket created,
# the two Tandem replicas played on the empty database (they migrate under the
# migration lock), then sign-up and verification across the replicas,
# pairing, a message, a photo uploaded through one replica and read back
# through the other, from the bucket. Everything is taken down at the end,
# failed or not (`podman kube down`, the volumes, the secret, the network).
# Needs: podman (with runc; deploy/containers.conf), mariadbd and
# nats-server on this machine (Debian: mariadb-server, nats-server), curl, jq.
set -euo pipefail
cd "$(dirname "$0")/.."
K=deploy/kubernetes
NET=tandem-kube
SECRET=tandem-secrets
VOLUMES=(tandem-mariadb tandem-seaweedfs tandem-nats tandem-tmp) # the claims, the ConfigMap's and the emptyDir (podman makes named volumes of both)
WORK=$(mktemp -d)
START=$(date +%s)
step() { echo "kube-walk: [$(($(date +%s) - START))s] $*"; }

if [ -z "${CONTAINERS_CONF:-}" ] && [ ! -e /etc/containers/containers.conf ] && [ ! -e "$HOME/.config/containers/containers.conf" ]; then
  export CONTAINERS_CONF="$PWD/deploy/containers.conf"
fi
# podman without systemd complains on every start that it cannot schedule
# the health checks (docs/deploy.md): the probes are asked here instead.
pm() { podman "$@" 2> >(grep -vE 'unable to get systemd connection|failed to connect to syslog' >&2); }

teardown() {
  pm kube down "$K/tandem.yaml" >/dev/null 2>&1 || true
  pm kube down "$K/datastores.yaml" >/dev/null 2>&1 || true
  pm volume rm -f "${VOLUMES[@]}" >/dev/null 2>&1 || true
  pm secret rm "$SECRET" >/dev/null 2>&1 || true
  pm network rm -f "$NET" >/dev/null 2>&1 || true
}
cleanup() {
  local status=$?
  teardown
  rm -rf "$WORK"
  [ "$status" -eq 0 ] || echo "kube-walk: FAIL (exit $status); everything was taken down" >&2
}
trap cleanup EXIT
logs() { for c in tandem-pod-0-tandem tandem-pod-1-tandem mariadb-mariadb nats-nats seaweedfs-seaweedfs; do echo "--- $c:" >&2; pm logs --tail 8 "$c" >&2 2>&1 || true; done; }
fail() { echo "kube-walk: FAIL: $*" >&2; logs; exit 1; }

# ---------------------------------------------------------------- images

# host_image TAG DIR: builds DIR/Containerfile FROM scratch after copying
# into DIR/root the files named on stdin ("SOURCE [PATH IN THE IMAGE]") with
# the shared libraries they load (their ldd list), at the host's paths.
host_image() {
  local tag=$1 dir=$2 src dst lib
  while read -r src dst; do
    dst=${dst:-$src}
    mkdir -p "$dir/root$(dirname "$dst")"
    cp -L "$src" "$dir/root$dst"
    for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*' || true); do
      [ -e "$dir/root$lib" ] && continue
      mkdir -p "$dir/root$(dirname "$lib")"
      cp -L "$lib" "$dir/root$lib"
    done
  done
  pm build -q --format docker -t "$tag" -f "$dir/Containerfile" "$dir" >/dev/null
}

mariadb_image() {
  local d=$WORK/mariadb share=/usr/share/mysql
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || fail "no mariadbd on this machine (Debian: apt-get install mariadb-server)"
  mkdir -p "$d/root/usr/share/mysql/english" "$d/root/etc" "$d/dirs/tmp" "$d/dirs/var/lib/mysql"
  cp -r "$share/charsets" "$d/root/usr/share/mysql/"
  cp "$share/english/errmsg.sys" "$d/root/usr/share/mysql/english/"
  # What mariadb-install-db feeds `mariadbd --bootstrap` (no test database,
  # root@localhost without a password, reachable only inside the pod), made
  # here because the image has no cat or sed.
  {
    echo "create database if not exists mysql;"
    echo "use mysql;"
    echo "SET @auth_root_socket=NULL;"
    sed -e '/@current_hostname/d' "$share/mysql_system_tables.sql" "$share/mysql_performance_tables.sql" \
      "$share/mysql_system_tables_data.sql" "$share/fill_help_tables.sql" "$share/maria_add_gis_sp_bootstrap.sql" \
      "$share/mysql_sys_schema.sql"
  } > "$d/root/usr/share/mysql/bootstrap.sql"
  echo "mysql:x:999:999:mysql:/var/lib/mysql:/sbin/nologin" > "$d/root/etc/passwd"
  echo "mysql:x:999:" > "$d/root/etc/group"
  cat > "$d/Containerfile" <<'EOF'
FROM scratch
COPY root/ /
COPY --chown=999:999 dirs/ /
ENV PATH=/usr/sbin:/usr/bin:/bin
USER 999:999
VOLUME ["/var/lib/mysql"]
EXPOSE 3306
ENTRYPOINT ["/usr/sbin/mariadbd"]
EOF
  chmod 1777 "$d/dirs/tmp"
  printf '%s /usr/sbin/mariadbd\n/bin/sh\n' "$(command -v mariadbd || echo /usr/sbin/mariadbd)" | host_image localhost/tandem-mariadb:10.11 "$d"
}

nats_image() {
  local d=$WORK/nats bin
  bin=$(command -v nats-server || echo /usr/sbin/nats-server)
  [ -x "$bin" ] || fail "no nats-server on this machine (Debian: apt-get install nats-server)"
  mkdir -p "$d"
  cat > "$d/Containerfile" <<'EOF'
FROM scratch
COPY root/ /
USER 65532:65532
EXPOSE 4222
ENTRYPOINT ["/usr/sbin/nats-server"]
EOF
  echo "$bin /usr/sbin/nats-server" | host_image localhost/tandem-nats:2 "$d"
}

seaweedfs_image() {
  local d=$WORK/seaweedfs weed
  weed=$(bash scripts/s3-server.sh path)
  mkdir -p "$d/dirs/tmp" "$d/dirs/data"
  chmod 1777 "$d/dirs/tmp"
  cat > "$d/Containerfile" <<'EOF'
FROM scratch
COPY root/ /
COPY --chown=65532:65532 dirs/ /
ENV PATH=/usr/bin:/bin
USER 65532:65532
VOLUME ["/data"]
EXPOSE 8333
ENTRYPOINT ["/usr/bin/weed"]
EOF
  printf '%s /usr/bin/weed\n/bin/sh\n' "$weed" | host_image localhost/tandem-seaweedfs:4.53 "$d"
}

command -v podman >/dev/null || fail "no podman (Debian: apt-get install podman runc)"
teardown # what an interrupted run left
IMAGE=localhost/tandem:kube bash scripts/image.sh 2>&1 | grep -v 'unable to get systemd connection' | tail -1
mariadb_image
nats_image
seaweedfs_image
step "images built FROM scratch: tandem, tandem-mariadb, tandem-nats, tandem-seaweedfs"

# ---------------------------------------------------------------- the secret

# Fresh values for exactly the keys of secret.example.yaml. podman 4.3 reads
# a secret given to environment variables as JSON (key: base64), not as the
# Kubernetes Secret it stores from a YAML: so the Secret is made here.
hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# NATS reads a value that starts with a digit as a number (secret.example.yaml)
db_pw=$(hex 16) nats_pw=n$(hex 16)
jq -n --arg db "$db_pw" --arg nats "$nats_pw" --arg bus "$(hex 32)" --arg ak "$(hex 10)" --arg sk "$(hex 20)" '{
  MARIADB_PASSWORD: $db, TANDEM_DB: "mysql:tandem:\($db)@tcp(mariadb:3306)/tandem",
  NATS_PASSWORD: $nats, TANDEM_BUS: "nats://tandem:\($nats)@nats:4222",
  TANDEM_BUS_SECRET: $bus, AWS_ACCESS_KEY_ID: $ak, AWS_SECRET_ACCESS_KEY: $sk}' > "$WORK/secret.json"
want=$(sed -n '/^stringData:/,$p' "$K/secret.example.yaml" | grep -oE '^  [A-Z_]+:' | tr -d ' :' | sort | tr '\n' ' ')
have=$(jq -r 'keys[]' "$WORK/secret.json" | sort | tr '\n' ' ')
[ "$want" = "$have" ] || fail "the secret made here ($have) is not the example's ($want)"
S3_KEY=$(jq -r .AWS_ACCESS_KEY_ID "$WORK/secret.json") S3_SECRET=$(jq -r .AWS_SECRET_ACCESS_KEY "$WORK/secret.json")
jq 'map_values(@base64)' "$WORK/secret.json" | pm secret create "$SECRET" - >/dev/null
rm -f "$WORK/secret.json"
pm network create "$NET" >/dev/null

# ---------------------------------------------------------------- data stores

ip_of() { pm inspect "$1" --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}'; }
tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
pm kube play --network "$NET" "$K/datastores.yaml" >/dev/null
MARIADB=$(ip_of mariadb-mariadb) NATS=$(ip_of nats-nats) S3=$(ip_of seaweedfs-seaweedfs)
for _ in $(seq 1 240); do
  tcp_open "$MARIADB" 3306 && curl -fs "http://$NATS:8222/healthz" >/dev/null && curl -s -o /dev/null "http://$S3:8333/" && break
  sleep 0.25
done
tcp_open "$MARIADB" 3306 || fail "MariaDB does not answer on $MARIADB:3306"
curl -fs "http://$NATS:8222/healthz" >/dev/null || fail "NATS is not healthy on $NATS:8222"
# The bucket, once (Tandem never creates it): an S3 CreateBucket signed with the keys.
for _ in $(seq 1 120); do
  s=$(curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 aws:amz:us-east-1:s3 -u "$S3_KEY:$S3_SECRET" -X PUT "http://$S3:8333/tandem" || true)
  { [ "$s" = 200 ] || [ "$s" = 409 ]; } && break
  sleep 0.5
done
[ "$s" = 200 ] || [ "$s" = 409 ] || fail "the bucket could not be created ($s)"
step "data stores ready: mariadb $MARIADB, nats $NATS, seaweedfs $S3 (bucket tandem)"

# ---------------------------------------------------------------- Tandem

pm kube play --network "$NET" "$K/tandem.yaml" >/dev/null
PODS=(tandem-pod-0 tandem-pod-1)
IPS=()
for p in "${PODS[@]}"; do IPS+=("$(ip_of "$p-tandem")"); done
for i in 0 1; do
  for _ in $(seq 1 480); do curl -fs "http://${IPS[$i]}:8080/readyz" >/dev/null 2>&1 && break; sleep 0.25; done
  curl -fs "http://${IPS[$i]}:8080/readyz" >/dev/null || fail "replica $i (${IPS[$i]}) is not ready"
done
waited=0
for p in "${PODS[@]}"; do pm logs "$p-tandem" 2>&1 | grep -q 'waiting for its migrations' && waited=$((waited + 1)); done
step "two replicas ready on the empty database (${IPS[*]}; $waited waited for the other's migrations)"

API_KEY=$(sed -n 's/^  TANDEM_API_KEYS: *//p' "$K/tandem.yaml" | cut -d, -f1)
url_of() { echo "http://${IPS[$1]}:8080"; } # replica 0 or 1
server_logs() { for p in "${PODS[@]}"; do pm logs "$p-tandem" 2>&1; done; }
# shellcheck source=scripts/walk-lib.sh
. scripts/walk-lib.sh
read -r ANN ANN_T <<< "$(member ann-$$@example.com 0 1)"
read -r BOB BOB_T <<< "$(member bob-$$@example.com 1 0)"
step "Ann and Bob signed up on one replica and verified on the other"

pair_by_codes 0 1 0 1 0
step "paired by codes across the replicas"

sent=$(call 0 POST /api/messages/send "$ANN_T" '{"body":"Dinner at eight?"}' | jq -r .id)
call 1 GET /api/messages/list "$BOB_T" | jq -e --arg id "$sent" --arg a "$ANN" \
  'any(.[]; .id == $id and .body == "Dinner at eight?" and .author == $a)' >/dev/null || fail "Bob does not read Ann's message on the other replica"
step "a message sent through one replica is read by the partner through the other"

url=$(upload_photo 0 "$WORK/p.png")
public=$(sed -n 's/^  TANDEM_PUBLIC_URL: *//p' "$K/tandem.yaml")
case "$url" in "$public/"*) ;; *) fail "the photo's URL is not under TANDEM_PUBLIC_URL: '$url'" ;; esac
location=$(curl -fsS -o /dev/null -w '%{redirect_url}' "http://${IPS[1]}:8080${url#"$public"}")
case "$location" in "http://seaweedfs:8333/tandem/"*) ;; *) fail "the photo is not served from the bucket: '$location'" ;; esac
# The URL is presigned for seaweedfs:8333, the name the apps would resolve:
# here it is the pod's address.
is_png "$WORK/back.png" "$(curl -fsS --connect-to "seaweedfs:8333:$S3:8333" -o "$WORK/back.png" -w '%{content_type}' "$location")"
step "a photo uploaded through one replica is read back through the other, from the bucket"

# Both replicas mount the one volume podman makes of the emptyDir: the first
# pod's removal cannot remove it (the second's does), which podman reports.
pm kube down "$K/tandem.yaml" >/dev/null 2>&1
pm kube down "$K/datastores.yaml" >/dev/null
for p in "${PODS[@]}" mariadb nats seaweedfs; do
  ! pm pod exists "$p" || fail "the pod $p is still there after podman kube down"
done
step "ok: taken down with podman kube down"
