#!/usr/bin/env bash
# Runs a command beside N CPU-burning processes (default 2), as on a shared, busy CI machine:
#   scripts/with-burners.sh [-n N] -- npm test
# The burners are bounded (they end with the command, or after 30 minutes at most) and are stopped on exit.
set -euo pipefail
n=2
if [ "${1:-}" = "-n" ]; then n=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: scripts/with-burners.sh [-n N] -- COMMAND..." >&2; exit 2; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for _ in $(seq "$n"); do
  timeout 1800 node -e 'for (;;) {}' &
  pids+=($!)
done
echo "with-burners: $n CPU burners running beside: $*" >&2
"$@"
