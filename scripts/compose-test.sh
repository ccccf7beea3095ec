#!/usr/bin/env bash
# Runs docker-compose.yml for real on this machine, where no image registry is
# reachable: builds openvox:local from ./Dockerfile on a local Debian base,
# swaps the third-party images for local stand-ins
# (deploy/compose-test/docker-compose.test.yml: images and networking only),
# brings the stack up, runs README's first session and an OpenAI streaming
# request, kills the worker mid-job and checks the job still completes, then
# removes everything it made except its cache (the base and stand-in images,
# tagged openvox-compose-test/*, and the Compose binary).
# Usage: npm run compose:test   (as root; not part of scripts/test.sh: minutes)
#   COMPOSE_TEST_KEEP_IMAGE=1 keeps openvox:local and its layers (a faster
#   next build while working on this; the default removes them).
# What it verifies and what it does not: docs/operations.md#docker-compose.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

COMPOSE_VERSION="v2.40.3"
CACHE_PREFIX="openvox-compose-test"
BASE_IMAGE="$CACHE_PREFIX/debian:bookworm"
PROJECT="openvox-compose-test"
STANDINS="$ROOT/deploy/compose-test"
readme_file="$ROOT/README.md"
# Waits, in seconds (generous: the machine is shared).
READY_TIMEOUT="${COMPOSE_TEST_READY_TIMEOUT:-600}"
JOB_TIMEOUT="${COMPOSE_TEST_JOB_TIMEOUT:-600}"

[ "$(id -u)" -eq 0 ] || die "run as root (apt-get, dockerd, debootstrap)"
WORK="$(mktemp -d /tmp/openvox-compose-test.XXXXXX)"
STARTED_DOCKERD=""
SNAPSHOT=""
UP=""

compose() {
  "$COMPOSE" -p "$PROJECT" --project-directory "$ROOT" \
    -f "$ROOT/docker-compose.yml" -f "$STANDINS/docker-compose.test.yml" "$@"
}

# Everything docker holds, by id: compared before and after.
docker_state() {
  {
    docker ps -aq --no-trunc | sed 's/^/container /'
    docker images -aq --no-trunc | sed 's/^/image /'
    docker volume ls -q | sed 's/^/volume /'
    docker network ls -q --no-trunc | sed 's/^/network /'
  } | sort -u
}

cleanup() {
  local status=$?
  set +e
  if [ -n "$SNAPSHOT" ]; then
    if [ "$status" -ne 0 ] && [ -n "$UP" ]; then
      log "failed; the last lines of each service's log:"
      compose logs --no-color --tail 40 2>&1 | tail -300
    fi
    log "docker compose down -v"
    compose down -v --remove-orphans --timeout 20 >/dev/null 2>&1
    # The container of a failed build step.
    comm -13 <(echo "$SNAPSHOT") <(docker_state) | awk '$1 == "container" { print $2 }' | xargs -r docker rm -f >/dev/null 2>&1
    local left
    if [ "${COMPOSE_TEST_KEEP_IMAGE:-0}" = 1 ]; then
      log "COMPOSE_TEST_KEEP_IMAGE=1: openvox:local and its build layers kept for the next run"
      left="$(comm -13 <(echo "$SNAPSHOT") <(docker_state) | grep -v '^image ')"
    else
      docker rmi openvox:local >/dev/null 2>&1
      # What the build left beyond its cache: the stages' untagged images.
      comm -13 <(echo "$SNAPSHOT") <(docker_state) | awk '$1 == "image" { print $2 }' | xargs -r docker rmi -f >/dev/null 2>&1
      left="$(comm -13 <(echo "$SNAPSHOT") <(docker_state))"
    fi
    if [ -n "$left" ]; then
      echo "left behind:" >&2
      echo "$left" >&2
      status=1
    else
      log "nothing left behind (containers, images, volumes, networks as before the build)"
    fi
  fi
  if [ -n "$STARTED_DOCKERD" ]; then
    kill "$STARTED_DOCKERD" 2>/dev/null
    wait "$STARTED_DOCKERD" 2>/dev/null
  fi
  rm -rf "$WORK"
  if [ "$status" -eq 0 ]; then log "compose test passed"; else log "compose test FAILED"; fi
  exit "$status"
}
trap cleanup EXIT

# ------------------------------------------------------------ docker engine
ensure_docker() {
  if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    log "installing docker.io and debootstrap from Debian"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null
  fi
  if docker info >/dev/null 2>&1; then return; fi
  log "starting dockerd (log: $WORK/dockerd.log)"
  dockerd >"$WORK/dockerd.log" 2>&1 &
  STARTED_DOCKERD=$!
  local tries=0
  until docker info >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -lt 60 ] || die "dockerd did not start: $(tail -5 "$WORK/dockerd.log")"
    sleep 1
  done
}

# Compose v2, built once with Go (like the Temporal CLI and MinIO of
# scripts/install.sh). `go install module@version` refuses this module (its
# go.mod has exclude directives), so it is built inside the downloaded module.
ensure_compose() {
  COMPOSE="$BIN_DIR/docker-compose-$COMPOSE_VERSION"
  if [ -x "$COMPOSE" ]; then return; fi
  command -v go >/dev/null || die "Go is needed to build Docker Compose $COMPOSE_VERSION"
  log "building Docker Compose $COMPOSE_VERSION with Go (first time takes minutes)"
  local started=$SECONDS dir
  dir="$(cd "$WORK" && go mod download -json "github.com/docker/compose/v2@$COMPOSE_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -d "$dir" ] || die "go mod download github.com/docker/compose/v2@$COMPOSE_VERSION failed"
  mkdir -p "$BIN_DIR"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
    -o "$COMPOSE.partial" ./cmd)
  mv "$COMPOSE.partial" "$COMPOSE"
  log "built Docker Compose in $((SECONDS - started)) s"
}

# ---------------------------------------------------------- cached images
# The Debian mirror apt uses on this machine.
debian_mirror() {
  local uri
  uri="$(grep -rhs -A3 '^Types: deb' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
    | sed -n 's/^URIs: *\(http[^ ]*\/debian\/\?\)$/\1/p' | head -1)"
  [ -n "$uri" ] || uri="$(sed -n 's/^deb \(http[^ ]*\/debian\/\?\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -1)"
  echo "${uri:-http://deb.debian.org/debian}"
}

ensure_base_image() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then return; fi
  local mirror started=$SECONDS
  mirror="$(debian_mirror)"
  log "debootstrap --variant=minbase bookworm from $mirror (once; cached as $BASE_IMAGE)"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
    || die "debootstrap failed: $(tail -5 "$WORK/debootstrap.log")"
  tar -C "$WORK/rootfs" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$WORK/rootfs"
  log "base image in $((SECONDS - started)) s"
}

# build_standin TAG DOCKERFILE [TARGET] [FILE...]: a stand-in image from
# deploy/compose-test, with FILEs (host paths) copied into its context. Docker's
# layer cache makes a rebuild with the same inputs instant.
build_standin() {
  local tag="$1" dockerfile="$2" target="$3"
  shift 3
  local context="$WORK/context-${tag//[:\/]/-}"
  mkdir -p "$context"
  cp -r "$STANDINS"/. "$context/"
  local file
  for file in "$@"; do cp -rL "$file" "$context/"; done
  docker build --quiet --network host --build-arg BASE="$BASE_IMAGE" ${target:+--target "$target"} \
    -f "$context/$dockerfile" -t "$CACHE_PREFIX/$tag" "$context" >"$WORK/standin.log" 2>&1 || {
    tail -30 "$WORK/standin.log"
    die "building the stand-in $tag failed"
  }
  rm -rf "$context"
}

build_standins() {
  log "building the base and stand-in images ($CACHE_PREFIX/*; cached)"
  local started=$SECONDS node npm
  # Node for the image: the binary this machine runs (Node >= 20 from the same
  # bookworm, glibc-compatible) and its npm, rather than Debian trixie's nodejs.
  node="$(readlink -f "$(command -v node)")"
  npm="$(dirname "$(readlink -f "$(command -v npm)")")/.."
  npm="$(cd "$npm" && pwd)"
  [ -f "$npm/package.json" ] || die "cannot find npm's directory beside $(command -v npm)"
  mkdir -p "$WORK/node" && cp "$node" "$WORK/node/node" && cp -r "$npm" "$WORK/node/npm"
  [ -x "$BIN_DIR/temporal" ] && [ -x "$BIN_DIR/minio" ] || die "run scripts/install.sh first (it builds temporal and minio into $BIN_DIR)"
  build_standin node:20 node.Dockerfile "" "$WORK/node/node" "$WORK/node/npm" /etc/ssl/certs/ca-certificates.crt
  build_standin python:3 python.Dockerfile "" /etc/ssl/certs/ca-certificates.crt
  build_standin postgres:15 postgres.Dockerfile ""
  build_standin temporal:server temporal.Dockerfile server "$BIN_DIR/temporal"
  build_standin temporal:admin-tools temporal.Dockerfile admin-tools "$BIN_DIR/temporal"
  build_standin temporal:ui temporal.Dockerfile ui "$BIN_DIR/temporal"
  build_standin minio:local minio.Dockerfile "" "$BIN_DIR/minio"
  build_standin mailpit:local mailpit.Dockerfile ""
  rm -rf "$WORK/node"
  log "stand-ins ready in $((SECONDS - started)) s"
}

# ------------------------------------------------------------------- checks
free_port() {
  node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })"
}

api() { curl -fsS "$API$1" "${@:2}"; }

is_mp3() {
  # An MP3 starts with an ID3 tag or an MPEG frame sync.
  [ "$(head -c 3 "$1")" = ID3 ] || [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' ' | cut -c1-3)" = fff ] \
    || [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' ' | cut -c1-3)" = ffe ]
}

status_of() {
  api "/api/v1/tts/history/$1/status/" -H "Authorization: Bearer $ACCESS" | jq -r .status
}

# ---------------------------------------------------------------------- run
BIN_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/openvox/bin"
command -v jq >/dev/null && command -v curl >/dev/null || die "jq and curl are needed (scripts/install.sh installs jq)"
ensure_docker
ensure_compose
ensure_base_image
build_standins

# What compose reads from the environment (instead of .env): fresh secrets,
# the API's loopback port, and where the mail catcher writes.
SESSION="$WORK/session"
mkdir -p "$SESSION/.data/mail"
export POSTGRES_PASSWORD MINIO_ROOT_PASSWORD JWT_SECRET COMPOSE_TEST_API_PORT COMPOSE_TEST_MAIL_DIR="$SESSION/.data/mail"
POSTGRES_PASSWORD="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
MINIO_ROOT_PASSWORD="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
JWT_SECRET="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
COMPOSE_TEST_API_PORT="$(free_port)"
API="http://127.0.0.1:$COMPOSE_TEST_API_PORT"

SNAPSHOT="$(docker_state)"
log "building openvox:local from ./Dockerfile on the local bases"
build_started=$SECONDS
docker build --quiet --network host \
  --build-arg NODE_IMAGE="$CACHE_PREFIX/node:20" --build-arg PYTHON_IMAGE="$CACHE_PREFIX/python:3" \
  -t openvox:local "$ROOT" >"$WORK/build.log" 2>&1 || {
  tail -40 "$WORK/build.log"
  die "docker build failed"
}
BUILD_SECONDS=$((SECONDS - build_started))
IMAGE_MB=$(($(docker image inspect -f '{{.Size}}' openvox:local) / 1000000))
log "openvox:local built in $BUILD_SECONDS s, $IMAGE_MB MB"

# No model is fetched at run time: the neural voice is in the image.
docker run --rm --network none --entrypoint sh openvox:local -c 'ls /app/models/en_US-joe-medium.onnx /app/models/en_US-joe-medium.onnx.json' >/dev/null \
  || die "the image has no Piper voice in /app/models"


log "docker compose up -d (API on $API)"
up_started=$SECONDS
UP=1
compose up -d --no-build --pull never --quiet-pull >"$WORK/up.log" 2>&1 || {
  cat "$WORK/up.log"
  die "docker compose up failed"
}
until curl -fsS -o /dev/null "$API/readyz" 2>/dev/null; do
  [ $((SECONDS - up_started)) -lt "$READY_TIMEOUT" ] || die "/readyz did not answer 200 within $READY_TIMEOUT s"
  sleep 1
done
READY_SECONDS=$((SECONDS - up_started))
log "/readyz 200 after $READY_SECONDS s from docker compose up"

# README's first session, as written: the first bash block under "Using the API".
log "README's first session"
awk '/^## Using the API$/ { section = 1 } section && /^```bash$/ { inside = 1; next } inside && /^```$/ { exit } inside' \
  "$readme_file" >"$WORK/first-session.sh"
grep -q 'OPENVOX=${OPENVOX:-http://localhost:3000}' "$WORK/first-session.sh" || die "README has no first session block"
EMAIL="compose-$(date +%s)@example.com"
(cd "$SESSION" && OPENVOX="$API" EMAIL="$EMAIL" timeout 300 bash -e -o pipefail "$WORK/first-session.sh") >"$WORK/session.out" \
  || { cat "$WORK/session.out"; die "README's first session failed"; }
grep -q '{"email_verified":true}' "$WORK/session.out" || die "no email_verified in: $(cat "$WORK/session.out")"
[ "$(tail -1 "$WORK/session.out")" = completed ] || die "the first session did not end completed: $(tail -3 "$WORK/session.out")"
is_mp3 "$SESSION/hello.mp3" || die "hello.mp3 is not an MP3"
log "first session: verified by mail, synthesized, hello.mp3 $(stat -c %s "$SESSION/hello.mp3") bytes"

ACCESS="$(api /api/v1/auth/login/ -XPOST -H 'Content-Type: application/json' \
  -d "{\"email\":\"$EMAIL\",\"password\":\"a long passphrase\"}" | jq -r .access)"

log "OpenAI streaming request (/v1/audio/speech)"
timing="$(curl -fsS --no-buffer -o "$WORK/speech.mp3" -D "$WORK/speech.headers" -w '%{time_starttransfer} %{time_total}' \
  "$API/v1/audio/speech" -H "Authorization: Bearer $ACCESS" -H 'Content-Type: application/json' \
  -d '{"model":"tts-1","voice":"alloy","input":"First sentence. Second one. A third.","response_format":"mp3"}')" \
  || die "/v1/audio/speech failed"
grep -qi '^content-type: audio/mpeg' "$WORK/speech.headers" || die "/v1/audio/speech: $(cat "$WORK/speech.headers")"
is_mp3 "$WORK/speech.mp3" || die "/v1/audio/speech did not stream an MP3"
read -r first_byte total <<<"$timing"
log "streamed $(stat -c %s "$WORK/speech.mp3") bytes of MP3: first byte after ${first_byte} s, done after ${total} s"

log "killing the worker mid-job"
text="$(for i in $(seq 1 40); do printf 'This is sentence number %d of a long passage, read while the worker is killed. ' "$i"; done)"
JOB="$(api /api/v1/tts/synthesize/ -XPOST -H "Authorization: Bearer $ACCESS" -H 'Content-Type: application/json' \
  -d "{\"text\":\"$text\",\"voice_id\":\"en-us-joe\",\"output_format\":\"mp3\"}" | jq -r .id)"
waited=0
until [ "$(status_of "$JOB")" = processing ]; do
  waited=$((waited + 1))
  [ "$waited" -lt 120 ] || die "the long job never reached processing"
  sleep 0.5
done
worker="$(compose ps -q worker)"
restarts_before="$(docker inspect -f '{{.RestartCount}}' "$worker")"
# SIGKILL to the container's init from outside, like a crash or the OOM
# killer: `docker kill` would count as a manual stop, which restart policies
# leave stopped.
kill -9 "$(docker inspect -f '{{.State.Pid}}' "$worker")"
killed_at=$SECONDS
until [ "$(docker inspect -f '{{.RestartCount}} {{.State.Running}}' "$worker")" = "$((restarts_before + 1)) true" ]; do
  [ $((SECONDS - killed_at)) -lt 120 ] || die "the worker was not restarted (restart: unless-stopped)"
  sleep 1
done
log "worker restarted by Docker after $((SECONDS - killed_at)) s; job $JOB was processing when killed"
until status="$(status_of "$JOB")" && [ "$status" != queued ] && [ "$status" != processing ]; do
  [ $((SECONDS - killed_at)) -lt "$JOB_TIMEOUT" ] || die "the job did not finish within $JOB_TIMEOUT s of the kill"
  sleep 2
done
[ "$status" = completed ] || die "the job ended $status after the worker was killed"
api "/api/v1/tts/history/$JOB/audio/" -H "Authorization: Bearer $ACCESS" -o "$WORK/long.mp3"
is_mp3 "$WORK/long.mp3" || die "the long job's audio is not an MP3"
log "job completed $((SECONDS - killed_at)) s after the kill ($(stat -c %s "$WORK/long.mp3") bytes)"

echo "compose test: image build ${BUILD_SECONDS} s, image ${IMAGE_MB} MB, /readyz ${READY_SECONDS} s after up, streaming first byte ${first_byte} s of ${total} s"
