#!/bin/sh
# The Temporal CLI's dev server on the ports of temporalio/server (gRPC 7233)
# plus its UI on 8233, with each value of DYNAMIC_CONFIG_FILE_PATH (a file of
# `key:` lines each followed by `  - value: X`) passed as --dynamic-config-value.
set -eu
set -- --ip 0.0.0.0 --port 7233 --ui-ip 0.0.0.0 --ui-port 8233 --namespace default --log-level warn
if [ -n "${DYNAMIC_CONFIG_FILE_PATH:-}" ] && [ -f "$DYNAMIC_CONFIG_FILE_PATH" ]; then
  for pair in $(awk '/^[^ #][^:]*:[ ]*$/ { key = $1; sub(/:$/, "", key) } /^[ ]*- value:/ && key != "" { print key "=" $3; key = "" }' "$DYNAMIC_CONFIG_FILE_PATH"); do
    set -- "$@" --dynamic-config-value "$pair"
  done
fi
echo "temporal server start-dev $*"
exec temporal server start-dev "$@"
