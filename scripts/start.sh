#!/usr/bin/env bash
# Installs what is missing, builds, and starts the whole service on embedded
# defaults (PostgreSQL, Temporal + UI, MinIO, migrations, worker, API).
# Ctrl-C stops everything it started. Settings: docs/operations.md, "Configuration".
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/lib.sh"
"$ROOT/scripts/install.sh"
cd "$ROOT"
log "compiling TypeScript and the dashboard (npm run build)"
npm run --silent build
export PATH="$BIN_DIR:$PATH"
exec node dist/scripts/start.js
