#!/usr/bin/env bash
# Installs what the stack needs and is missing: Debian packages (PostgreSQL,
# ffmpeg, the speech engines), the Temporal CLI and MinIO built with Go into a cache
# outside the repo, and the npm dependencies. Idempotent: a second run only
# checks. Usage: scripts/install.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

TEMPORAL_VERSION="v1.5.1"
# `go install github.com/minio/minio@latest` resolved to this pseudo-version on
# 2026-11-22; pinned so every machine builds the same server.
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"

# Speech engines (README.md, "Speech engines and voices"): eSpeak NG, Flite, and Festival with the
# free voices Debian main ships. festival-hi/-mr/-te are only Recommends of
# their voices, so they are listed (this installs without recommends).
SPEECH_PACKAGES=(
  espeak-ng flite festival
  festvox-us-slt-hts festvox-kallpc16k festvox-kdlpc16k festvox-ca-ona-hts
  festvox-czech-dita festvox-czech-krb festvox-czech-machac festvox-czech-ph
  festvox-suopuhe-lj festvox-suopuhe-mv festvox-italp16k festvox-itapc16k festvox-ru
  festvox-hi-nsk festvox-mr-nsk festvox-te-nsk festival-hi festival-mr festival-te
)
APT_PACKAGES=(postgresql ffmpeg "${SPEECH_PACKAGES[@]}")

# Non-free engines (SVOX Pico, RHVoice) only when the operator opts in with
# ENABLE_NONFREE_ENGINES=true: they live in Debian's contrib/non-free sections,
# which this adds to apt's sources. The service then offers their voices,
# labelled non-free in the catalog.
NONFREE_APT_PACKAGES=(libttspico-utils rhvoice rhvoice-english)
# Real human speech (Debian main, CC-BY-SA / public domain) that the cloning
# tests and bench/cloning.ts use as reference speakers; scripts/test.sh asks
# for it with OPENVOX_TEST_DATA=1.
TEST_APT_PACKAGES=(asterisk-core-sounds-en-g722 asterisk-core-sounds-fr-g722 asterisk-core-sounds-it-g722 pocketsphinx-testdata)
NONFREE_SOURCES=/etc/apt/sources.list.d/openvox-nonfree.sources
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

# go_binary NAME MODULE VERSION: builds MODULE@VERSION into $BIN_DIR once.
go_binary() {
  local name="$1" module="$2" version="$3"
  local target="$BIN_DIR/$name-$version"
  if [ -x "$target" ]; then
    log "$name $version cached at $target"
  else
    command -v go >/dev/null || die "Go is needed to build $name (install Go >= 1.25 from https://go.dev/dl or apt-get install golang)"
    log "building $name $version with go install (first time takes minutes)"
    local started=$SECONDS tmp
    tmp="$(mktemp -d)"
    GOBIN="$tmp" CGO_ENABLED=0 go install "$module@$version"
    mkdir -p "$BIN_DIR"
    mv "$tmp/$name" "$target"
    rmdir "$tmp"
    log "built $name in $((SECONDS - started)) s"
  fi
  ln -sf "$target" "$BIN_DIR/$name"
}

install_npm_packages() {
  if [ -d "$ROOT/node_modules" ] && [ "$ROOT/node_modules/.package-lock.json" -nt "$ROOT/package-lock.json" ]; then
    log "npm packages up to date"
    return
  fi
  command -v npm >/dev/null || die "Node.js >= 20 with npm is needed (apt-get install nodejs npm)"
  log "installing npm packages"
  # The registry reachable here serves no other platform's optional binaries
  # (e.g. @swc/core-darwin-arm64), so the lock file cannot list them and
  # `npm ci` refuses it; `npm install` installs the same locked versions.
  (cd "$ROOT" && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null \
    || npm install --no-save --no-audit --no-fund --loglevel=error; })
}

started=$SECONDS
install_apt_packages
go_binary temporal github.com/temporalio/cli/cmd/temporal "$TEMPORAL_VERSION" &
temporal_pid=$!
go_binary minio github.com/minio/minio "$MINIO_VERSION" &
minio_pid=$!
install_npm_packages
wait "$temporal_pid" || die "building temporal failed"
wait "$minio_pid" || die "building minio failed"
log "install done in $((SECONDS - started)) s"
