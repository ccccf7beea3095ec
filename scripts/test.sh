#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, then lints (ESLint and
# Prettier's check), type-checks and runs jest, whose global setup starts its
# own PostgreSQL database, Temporal dev server and MinIO (on ports apart from
# the start command's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OPENVOX_TEST_DATA=1 "$ROOT/scripts/install.sh"
cd "$ROOT"
npm run lint
exec npm test -- "$@"
