# Shared shell helpers for scripts/*.sh. Sourced, not run.
# Where the Go-built servers are cached: outside the repo, shared by clones.
BIN_DIR="${OPENVOX_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openvox/bin}"

log() { printf '[openvox] %s\n' "$*" >&2; }
die() { printf '[openvox] error: %s\n' "$*" >&2; exit 1; }
